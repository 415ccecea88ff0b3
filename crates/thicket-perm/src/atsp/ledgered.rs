//! Ledgered ATSP: the search tree cut into the subtrees below every path 0 -> a -> b, solved
//! one after another in a fixed order, each finished subtree committed to a [`Ledger`] with
//! the nodes it took, the best tour it held (if it beat the incumbent) and the incumbent
//! after it. A killed run resumes with the best recorded tour as its incumbent and skips the
//! finished subtrees, so it proves the same optimum.
//!
//! A subtree is solved as an instance of its own: the path 0 -> a -> b contracted into one
//! city (leaving by b's arcs, entered by city 0's), searched by [`solve_below`] for a tour
//! cheaper than the incumbent less the path's cost. That is exact because every tour through
//! the path is a tour of the contracted instance plus the path's cost, and the other way
//! round.

use std::path::Path;
use std::time::Instant;

use thicket_core::ledger::{BatchRecord, Ledger, LedgerSpec};
use thicket_core::{Error, Progress, Result};

use super::heuristic::{heuristic_tour, tour_cost};
use super::instance::Instance;
use super::search::{solve_below, AtspOptions, AtspSolution};

/// The ledger spec of `inst`: its name, size and a hash of its costs, and the split.
pub fn ledger_spec(inst: &Instance) -> LedgerSpec {
    LedgerSpec {
        problem: format!(
            "atsp name={} n={} costs-fnv1a={:016x} split=paths-0ab-v1",
            inst.name.split_whitespace().collect::<Vec<_>>().join("_"),
            inst.n,
            costs_hash(inst)
        ),
        batches: prefixes(inst.n).len() as u64,
        shard: (0, 1),
    }
}

/// Solves `inst` subtree by subtree, recording each finished subtree in the ledger at
/// `ledger_path` and skipping those it already holds. Starts from the heuristic tour and the
/// recorded tours; `opts.upper_bound` and `opts.node_limit` must be unset. `nodes` is the sum
/// over every subtree, the earlier runs' included.
pub fn solve_ledgered(
    inst: &Instance,
    opts: &AtspOptions,
    ledger_path: &Path,
    progress: &Progress,
) -> Result<AtspSolution> {
    if opts.upper_bound.is_some() || opts.node_limit.is_some() {
        return Err(Error::InvalidInput(
            "a ledgered ATSP run starts from its own incumbent: no upper bound or node limit"
                .into(),
        ));
    }
    if opts.threads == 0 {
        return Err(Error::InvalidInput("threads must be at least 1".into()));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| Error::Unavailable(format!("cannot start {} threads: {e}", opts.threads)))?;
    let ledger = Ledger::open_or_create(ledger_path, &ledger_spec(inst))?;
    let prefixes = prefixes(inst.n);
    let (mut best_tour, mut best_cost) = heuristic_tour(inst);
    for (id, detail) in ledger.details()? {
        if let Some((cost, tour)) = recorded_tour(inst, &prefixes, id, &detail)? {
            if cost < best_cost {
                (best_cost, best_tour) = (cost, tour);
            }
        }
    }
    let done = ledger.batches()?;
    let mut nodes = done.iter().try_fold(0u128, |sum, b| {
        b.is_consistent()
            .then(|| sum + b.count)
            .ok_or_else(|| Error::Verification(format!("subtree {}: the ledger is corrupt", b.id)))
    })?;
    progress.set_total(prefixes.len() as u64);
    progress.inc(done.len() as u64);
    let device = format!("{} CPU threads", opts.threads);
    let finished: std::collections::BTreeSet<u64> = done.iter().map(|b| b.id).collect();
    for (id, prefix) in (0u64..).zip(&prefixes) {
        if finished.contains(&id) {
            continue;
        }
        let started = Instant::now();
        let (sub, offset) = contract(inst, prefix)?;
        let found =
            pool.install(|| solve_below(&sub, opts, best_cost - offset, &Progress::hidden()));
        let mut detail = String::new();
        if !found.tour.is_empty() {
            best_cost = found.cost + offset;
            best_tour = expand(inst.n, prefix, &found.tour);
            detail = format!("best={best_cost} tour={}", join(&best_tour));
        }
        detail = format!("incumbent={best_cost} {detail}");
        let record = BatchRecord::new(
            id,
            u128::from(found.nodes),
            "cpu",
            &device,
            started.elapsed().as_secs_f64(),
        );
        ledger.record_with_detail(&record, detail.trim_end())?;
        nodes += u128::from(found.nodes);
        progress.inc(1);
    }
    Ok(AtspSolution {
        cost: best_cost,
        tour: best_tour,
        nodes: u64::try_from(nodes).unwrap_or(u64::MAX),
        proven_optimal: true,
    })
}

/// The subtree roots: paths 0 -> a -> b in lexicographic order (the whole tree as one path
/// `[0]` below four cities, where no two-arc path leaves a city to contract into).
fn prefixes(n: usize) -> Vec<Vec<usize>> {
    if n < 4 {
        return vec![vec![0]];
    }
    (1..n)
        .flat_map(|a| (1..n).filter(move |&b| b != a).map(move |b| vec![0, a, b]))
        .collect()
}

/// `inst` with the path `prefix` (from city 0) contracted into city 0, and the path's cost.
/// The other cities keep their order, numbered from 1.
fn contract(inst: &Instance, prefix: &[usize]) -> Result<(Instance, i64)> {
    let last = *prefix.last().expect("a prefix holds city 0");
    let rest = remaining(inst.n, prefix);
    // City 0 of the contracted instance leaves as `last` and is entered as city 0.
    let leave = |c: usize| if c == 0 { last } else { rest[c - 1] };
    let enter = |c: usize| if c == 0 { 0 } else { rest[c - 1] };
    let n = rest.len() + 1;
    let cost = (0..n * n)
        .map(|k| inst.cost(leave(k / n), enter(k % n)))
        .collect();
    let offset = prefix.windows(2).map(|arc| inst.cost(arc[0], arc[1])).sum();
    Ok((Instance::new(inst.name.clone(), n, cost)?, offset))
}

/// The cities not on `prefix`, in order.
fn remaining(n: usize, prefix: &[usize]) -> Vec<usize> {
    (1..n).filter(|c| !prefix.contains(c)).collect()
}

/// A tour of the instance `prefix` was contracted from, given a tour of the contracted one.
fn expand(n: usize, prefix: &[usize], contracted: &[usize]) -> Vec<usize> {
    let rest = remaining(n, prefix);
    prefix
        .iter()
        .copied()
        .chain(contracted[1..].iter().map(|&c| rest[c - 1]))
        .collect()
}

/// The tour a subtree's detail records, checked: a tour of `inst` through the subtree's path,
/// of the recorded cost. `None` when the subtree found nothing better than the incumbent.
fn recorded_tour(
    inst: &Instance,
    prefixes: &[Vec<usize>],
    id: u64,
    detail: &str,
) -> Result<Option<(i64, Vec<usize>)>> {
    let field = |key: &str| {
        detail
            .split_whitespace()
            .filter_map(|w| w.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    };
    let (Some(cost), Some(tour)) = (field("best"), field("tour")) else {
        return Ok(None);
    };
    let corrupt = || Error::Verification(format!("subtree {id}: recorded tour is corrupt"));
    let cost: i64 = cost.parse().map_err(|_| corrupt())?;
    let tour: Vec<usize> = tour
        .split(',')
        .map(|c| c.parse().map_err(|_| corrupt()))
        .collect::<Result<_>>()?;
    let prefix = prefixes.get(id as usize).ok_or_else(corrupt)?;
    let mut seen = vec![false; inst.n];
    let is_tour = tour.len() == inst.n
        && tour
            .iter()
            .all(|&c| c < inst.n && !std::mem::replace(&mut seen[c], true));
    if !is_tour || !tour.starts_with(prefix) || tour_cost(inst, &tour) != cost {
        return Err(corrupt());
    }
    Ok(Some((cost, tour)))
}

fn join(tour: &[usize]) -> String {
    tour.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// FNV-1a over the cost matrix: a ledger made for another matrix is refused.
fn costs_hash(inst: &Instance) -> u64 {
    inst.cost
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atsp::{generate, solve, Bound, GeneratorClass};

    fn options(bound: Bound, threads: usize) -> AtspOptions {
        AtspOptions {
            bound,
            threads,
            ..AtspOptions::default()
        }
    }

    #[test]
    fn contracted_tours_cost_the_same_in_the_whole_instance() {
        let inst = generate(GeneratorClass::Tsmat, 7, 3).unwrap();
        let prefix = [0, 4, 2];
        let (sub, offset) = contract(&inst, &prefix).unwrap();
        let contracted = [0, 3, 1, 2, 4];
        let tour = expand(inst.n, &prefix, &contracted);
        assert_eq!(tour, [0, 4, 2, 5, 1, 3, 6]);
        assert_eq!(
            tour_cost(&sub, &contracted) + offset,
            tour_cost(&inst, &tour)
        );
    }

    #[test]
    fn subtree_by_subtree_gives_the_optimum_and_resumes() {
        let dir = tempfile::tempdir().unwrap();
        for (n, seed) in [(3, 1), (4, 2), (9, 5)] {
            let inst = generate(GeneratorClass::Coin, n, seed).unwrap();
            let optimum = solve(&inst, &options(Bound::Assignment, 1), &Progress::hidden())
                .unwrap()
                .cost;
            for bound in [Bound::Partial, Bound::Assignment] {
                let path = dir.path().join(format!("a{n}-{bound:?}.db"));
                let opts = options(bound, 2);
                let first = solve_ledgered(&inst, &opts, &path, &Progress::hidden()).unwrap();
                assert_eq!(first.cost, optimum, "n = {n}, {bound:?}");
                assert_eq!(tour_cost(&inst, &first.tour), optimum);
                // Lose the last subtrees: the resumed run proves the same optimum.
                let db = rusqlite::Connection::open(&path).unwrap();
                db.execute("DELETE FROM batches WHERE id > 2", []).unwrap();
                db.execute("DELETE FROM details WHERE id > 2", []).unwrap();
                let again = solve_ledgered(&inst, &opts, &path, &Progress::hidden()).unwrap();
                assert_eq!(again.cost, optimum);
            }
        }
    }

    #[test]
    fn a_tampered_tour_and_another_instance_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let inst = generate(GeneratorClass::Tsmat, 8, 1).unwrap();
        let opts = options(Bound::Assignment, 1);
        solve_ledgered(&inst, &opts, &path, &Progress::hidden()).unwrap();
        let other = generate(GeneratorClass::Tsmat, 8, 2).unwrap();
        let refused = solve_ledgered(&other, &opts, &path, &Progress::hidden());
        assert_eq!(refused.err().map(|e| e.exit_code()), Some(2));
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute(
            "UPDATE details SET detail = 'incumbent=1 best=1 tour=0,1,2,3,4,5,6,7'",
            [],
        )
        .unwrap();
        let caught = solve_ledgered(&inst, &opts, &path, &Progress::hidden());
        assert!(matches!(caught, Err(Error::Verification(_))), "{caught:?}");
    }
}
