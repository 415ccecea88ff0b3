//! ATSP in batches for the run layer ([`thicket_run`]): the search tree cut into the subtrees
//! below every path 0 -> a -> b ([`Subtrees`], a [`BatchPlan`]), solved one after another in
//! a fixed order; each finished subtree is recorded with the nodes it took, the best tour it
//! held (if it beat the incumbent) and the incumbent after it. The incumbent travels with the
//! work as the run layer's context (to the threads of this process, or over MPI to other
//! nodes): a killed run resumes with the best recorded tour as its incumbent and skips the
//! finished subtrees, so it proves the same optimum, and shards of one run merge into it.
//!
//! A subtree is solved as an instance of its own: the path 0 -> a -> b contracted into one
//! city (leaving by b's arcs, entered by city 0's), searched by [`solve_below`] for a tour
//! cheaper than the incumbent less the path's cost. That is exact because every tour through
//! the path is a tour of the contracted instance plus the path's cost, and the other way
//! round.

use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};
use thicket_core::{Error, Progress, Result};
use thicket_run::runner::{self, run_ledgered};
use thicket_run::{
    BatchPlan, BatchRecord, BatchValue, BatchWorker, Finished, Ledger, Recheck, Shard,
};

use super::heuristic::{heuristic_tour, tour_cost};
use super::instance::Instance;
use super::search::{solve_below, AtspOptions, AtspSolution, Bound};

/// The subtrees of one instance, the batches of a ledgered ATSP run.
pub struct Subtrees {
    inst: Instance,
    bound: Bound,
    prefixes: Vec<Vec<usize>>,
}

impl Subtrees {
    /// The subtrees of `inst`, searched with `bound` (and rechecked by `verify` with another).
    pub fn new(inst: &Instance, bound: Bound) -> Subtrees {
        Subtrees {
            inst: inst.clone(),
            bound,
            prefixes: prefixes(inst.n),
        }
    }

    /// The subtrees a ledger's stored input describes (see [`BatchPlan::input`]); an input
    /// that does not parse means the ledger is corrupt ([`Error::Verification`]).
    pub fn from_input(input: &str) -> Result<Subtrees> {
        let bad = || Error::Verification("the ledger's stored instance is malformed".into());
        let value: Value = serde_json::from_str(input).map_err(|_| bad())?;
        let cost = value["cost"]
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(|c| c.as_i64().ok_or_else(bad))
            .collect::<Result<Vec<i64>>>()?;
        let n = value["n"].as_u64().ok_or_else(bad)? as usize;
        let inst = Instance::new(value["name"].as_str().ok_or_else(bad)?, n, cost)?;
        let bound = match value["bound"].as_str() {
            Some("partial") => Bound::Partial,
            Some("assignment") => Bound::Assignment,
            _ => Bound::HeldKarp,
        };
        Ok(Subtrees::new(&inst, bound))
    }

    /// The instance.
    pub fn instance(&self) -> &Instance {
        &self.inst
    }

    /// The bound the subtrees are searched with.
    pub fn bound(&self) -> Bound {
        self.bound
    }

    /// The best tour the context holds: `(cost, tour)`.
    pub fn best(context: &Value) -> Result<(i64, Vec<usize>)> {
        let corrupt = || Error::Verification("the run's incumbent is malformed".into());
        let cost = context["cost"].as_i64().ok_or_else(corrupt)?;
        let tour = context["tour"]
            .as_array()
            .ok_or_else(corrupt)?
            .iter()
            .map(|c| c.as_u64().map(|c| c as usize).ok_or_else(corrupt))
            .collect::<Result<Vec<usize>>>()?;
        Ok((cost, tour))
    }
}

impl BatchPlan for Subtrees {
    /// The instance's name, size and a hash of its costs, and the split.
    fn spec(&self) -> String {
        let inst = &self.inst;
        format!(
            "atsp name={} n={} costs-fnv1a={:016x} split=paths-0ab-v1",
            inst.name.split_whitespace().collect::<Vec<_>>().join("_"),
            inst.n,
            costs_hash(inst)
        )
    }

    fn batches(&self) -> u64 {
        self.prefixes.len() as u64
    }

    /// The instance itself and the bound, so that `verify` and `merge` can check tours from
    /// the ledger alone.
    fn input(&self) -> Option<String> {
        let inst = &self.inst;
        let bound = match self.bound {
            Bound::Partial => "partial",
            Bound::Assignment => "assignment",
            Bound::HeldKarp => "held-karp",
        };
        let value = json!({ "name": inst.name, "n": inst.n, "cost": inst.cost, "bound": bound });
        Some(value.to_string())
    }

    /// The heuristic tour.
    fn initial_context(&self) -> Result<Value> {
        let (tour, cost) = heuristic_tour(&self.inst);
        Ok(json!({ "cost": cost, "tour": tour }))
    }

    /// The better of the incumbent and the subtree's recorded tour, after checking that tour.
    fn advance(&self, context: Value, record: &BatchRecord) -> Result<Value> {
        if !record.is_consistent() {
            return Err(Error::Verification(format!(
                "subtree {}: the ledger is corrupt",
                record.id
            )));
        }
        let detail = record.detail.as_deref().unwrap_or("");
        let recorded = recorded_tour(&self.inst, &self.prefixes, record.id, detail)?;
        let (best_cost, _) = Subtrees::best(&context)?;
        Ok(match recorded {
            Some((cost, tour)) if cost < best_cost => json!({ "cost": cost, "tour": tour }),
            _ => context,
        })
    }

    /// Searches the subtree again, with another bound, for a tour cheaper than the incumbent
    /// recorded after it: there must be none.
    fn recheck(&self, record: &BatchRecord) -> Result<Recheck> {
        let detail = record.detail.as_deref().unwrap_or("");
        let incumbent = field(detail, "incumbent")
            .and_then(|c| c.parse::<i64>().ok())
            .ok_or_else(|| {
                Error::Verification(format!("subtree {}: no incumbent recorded", record.id))
            })?;
        let prefix = self.prefixes.get(record.id as usize).ok_or_else(|| {
            Error::Verification(format!("subtree {}: no such subtree", record.id))
        })?;
        let (bound, by) = match self.bound {
            Bound::HeldKarp => (Bound::Assignment, "the assignment bound"),
            Bound::Assignment | Bound::Partial => (Bound::HeldKarp, "the Held-Karp bound"),
        };
        let (sub, offset) = contract(&self.inst, prefix)?;
        let opts = AtspOptions {
            bound,
            threads: 1,
            ..AtspOptions::default()
        };
        let found = solve_below(&sub, &opts, incumbent - offset, &Progress::hidden());
        Ok(Recheck {
            by,
            mismatch: (!found.tour.is_empty()).then(|| {
                format!(
                    "the subtree holds a tour of cost {} below the recorded incumbent {incumbent}",
                    found.cost + offset
                )
            }),
        })
    }
}

/// Solves subtrees on a pool of CPU threads.
pub struct SubtreeSolver<'a> {
    plan: &'a Subtrees,
    opts: AtspOptions,
    pool: rayon::ThreadPool,
}

impl<'a> SubtreeSolver<'a> {
    /// A solver of `plan`'s subtrees with `opts` (its bound and threads).
    pub fn new(plan: &'a Subtrees, opts: &AtspOptions) -> Result<SubtreeSolver<'a>> {
        if opts.upper_bound.is_some() || opts.node_limit.is_some() {
            return Err(Error::InvalidInput(
                "a ledgered ATSP run starts from its own incumbent: no upper bound or node limit"
                    .into(),
            ));
        }
        Ok(SubtreeSolver {
            plan,
            opts: *opts,
            pool: thicket_core::pool(opts.threads)?,
        })
    }
}

impl BatchWorker for SubtreeSolver<'_> {
    fn backend(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> String {
        format!("{} CPU threads", self.opts.threads)
    }

    /// Solves subtree `id` below the context's incumbent.
    fn run(&mut self, id: u64, context: &Value) -> Result<BatchValue> {
        self.solve_subtree(id, context)?
            .ok_or_else(|| Error::InvalidInput(format!("subtree {id} was stopped by the deadline")))
    }
}

impl SubtreeSolver<'_> {
    /// Solves subtree `id` below the context's incumbent; `None` when the deadline of the
    /// solver's options stopped it first (nothing is then known about the subtree).
    fn solve_subtree(&mut self, id: u64, context: &Value) -> Result<Option<BatchValue>> {
        let (mut best_cost, _) = Subtrees::best(context)?;
        let inst = &self.plan.inst;
        let prefix = self
            .plan
            .prefixes
            .get(id as usize)
            .ok_or_else(|| Error::InvalidInput(format!("subtree {id} does not exist")))?;
        let (sub, offset) = contract(inst, prefix)?;
        let opts = &self.opts;
        let found = self
            .pool
            .install(|| solve_below(&sub, opts, best_cost - offset, &Progress::hidden()));
        if !found.proven_optimal {
            return Ok(None);
        }
        let mut detail = String::new();
        if !found.tour.is_empty() {
            best_cost = found.cost + offset;
            let tour = expand(inst.n, prefix, &found.tour);
            detail = format!("best={best_cost} tour={}", join(&tour));
        }
        Ok(Some(BatchValue {
            count: u128::from(found.nodes),
            detail: Some(
                format!("incumbent={best_cost} {detail}")
                    .trim_end()
                    .to_string(),
            ),
        }))
    }
}

/// How a ledgered run with a deadline ended.
pub(crate) enum Ledgered {
    /// Every subtree of the shard is recorded.
    Finished(Finished),
    /// The deadline came first: the incumbent after the recorded subtrees and their nodes (a
    /// later run resumes from the ledger).
    Stopped {
        /// The context (best tour) after every recorded subtree.
        context: Value,
        /// Nodes of the recorded subtrees.
        nodes: u128,
    },
}

/// [`run_ledgered`] that stops at the deadline of `solver`'s options: the subtree in progress
/// then is not recorded, and each one recorded before stays in the ledger for the next run.
pub(crate) fn run_ledgered_until(
    plan: &Subtrees,
    solver: &mut SubtreeSolver,
    path: &Path,
    shard: Shard,
    progress: &Progress,
) -> Result<Ledgered> {
    let ledger = Ledger::open_or_create(path, &runner::ledger_spec(plan, shard))?;
    let done = ledger.batches()?;
    let mut context = runner::fold(plan, &done)?;
    let todo = runner::todo(ledger.spec(), &done);
    let mut nodes: u128 = done.iter().map(|record| record.count).sum();
    let owned = ledger.spec().owned().count() as u64;
    progress.set_total(owned);
    progress.inc(owned - todo.len() as u64);
    let device = solver.device();
    for id in todo {
        let started = Instant::now();
        let expired = || solver.opts.deadline.is_some_and(|d| started >= d);
        let value = match expired() {
            true => None,
            false => solver.solve_subtree(id, &context)?,
        };
        let Some(value) = value else {
            return Ok(Ledgered::Stopped { context, nodes });
        };
        nodes += value.count;
        let seconds = started.elapsed().as_secs_f64();
        let record =
            BatchRecord::new(id, value.count, "cpu", &device, seconds).with_detail(value.detail);
        context = plan.advance(context, &record)?;
        ledger.record(&record)?;
        progress.inc(1);
    }
    Ok(Ledgered::Finished(runner::finished(plan, &ledger)?))
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
    let plan = Subtrees::new(inst, opts.bound);
    let mut solver = SubtreeSolver::new(&plan, opts)?;
    let finished = run_ledgered(&plan, &mut solver, ledger_path, Shard::WHOLE, progress)?;
    solution(&finished)
}

/// The best tour of a finished run (proven optimal when it is the whole run, the best of the
/// shard's subtrees otherwise), with the nodes of every subtree.
pub fn solution(finished: &Finished) -> Result<AtspSolution> {
    let (cost, tour) = Subtrees::best(&finished.context)?;
    Ok(AtspSolution {
        cost,
        tour,
        nodes: u64::try_from(finished.total).unwrap_or(u64::MAX),
        proven_optimal: finished.is_whole(),
        // One shard bounds nothing about the others' tours but that costs are not negative.
        lower_bound: if finished.is_whole() { cost } else { 0 },
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
    let (Some(cost), Some(tour)) = (field(detail, "best"), field(detail, "tour")) else {
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

/// The value of `key` in a subtree's detail (`incumbent=.. best=.. tour=..`).
fn field<'d>(detail: &'d str, key: &str) -> Option<&'d str> {
    detail
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
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
    use crate::generate::{generate, GeneratorClass};
    use crate::search::{branch_and_bound, Bound};

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
            let optimum =
                branch_and_bound(&inst, &options(Bound::Assignment, 1), &Progress::hidden())
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

    /// Edits that leave every recorded tour a tour of its recorded cost (an incumbent changed,
    /// a node count with its check values fixed up) are caught by the merge through the rows'
    /// digests, naming the ledger and the subtree.
    #[test]
    fn a_merge_refuses_an_edited_subtree() {
        let dir = tempfile::tempdir().unwrap();
        let inst = generate(GeneratorClass::Tsmat, 7, 3).unwrap();
        let opts = options(Bound::Assignment, 1);
        let plan = Subtrees::new(&inst, opts.bound);
        let edits = [
            "UPDATE details SET detail = 'incumbent=1' WHERE id = 4",
            "UPDATE batches SET count = '7', mod13 = 7, mod15 = 7 WHERE id = 4",
        ];
        for (k, edit) in edits.iter().enumerate() {
            let path = dir.path().join(format!("e{k}.db"));
            solve_ledgered(&inst, &opts, &path, &Progress::hidden()).unwrap();
            let merged = runner::merge(&plan, &[Ledger::open_existing(&path).unwrap()]);
            assert!(merged.is_ok(), "{merged:?}");
            let db = rusqlite::Connection::open(&path).unwrap();
            assert!(db.execute(edit, []).unwrap() > 0, "{edit}");
            drop(db);
            let refused = runner::merge(&plan, &[Ledger::open_existing(&path).unwrap()])
                .err()
                .unwrap();
            assert_eq!(refused.exit_code(), 3, "{edit}: {refused}");
            let message = refused.to_string();
            assert!(
                message.contains(&format!("e{k}.db: batch ")) && message.contains("digest"),
                "{edit}: {message}"
            );
        }
    }
}
