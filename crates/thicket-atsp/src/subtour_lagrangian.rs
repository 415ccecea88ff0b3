//! The assignment bound strengthened by subtour-elimination cuts moved into the costs
//! (Lagrangian relaxation, after Balas and Christofides 1981).
//!
//! Every tour leaves every proper subset S of the cities at least once: `x(out(S)) >= 1`.
//! Moving these constraints into the objective with multipliers `lambda_S >= 0` gives, for
//! any multipliers, the bound
//!
//! ```text
//! min over assignments x of  sum c'(i, j) x(i, j) + sum lambda_S,
//! c'(i, j) = c(i, j) - sum of lambda_S over the cuts S with i in S and j outside
//! ```
//!
//! on every tour (a tour pays `lambda_S (x(out(S)) - 1) >= 0` less than its cost). The
//! relaxation is still an assignment problem, so each node of the subtour search bounds itself
//! by a second assignment on `c'`, re-solved incrementally beside the plain one (O(n^2) a
//! child); only the root pays for the multipliers, found by subgradient ascent over the cycles
//! of the assignments (each subtour is a violated cut).
//! At the best multipliers the bound would equal the linear program with every subtour cut
//! (the Held–Karp bound); the ascent stops short of it, yet far above the plain assignment
//! bound on the ftv family (ftv170: 2,631 -> 2,716, against about 2,734 for the Held–Karp
//! path search's ascent and an optimum of 2,755; ft53: 5,931 -> 6,905, its optimum).
//!
//! Multipliers are integers in units of `1/scale` of a cost unit, so the relaxed costs stay
//! integers and every bound is exact integer arithmetic, rounded up at the end.

use std::collections::HashSet;
use std::time::Instant;

use thicket_core::StopFlag;

use super::instance::{Instance, MAX_COST};
use super::lap::{Lap, LapScratch};

/// Units of a multiplier per cost unit: a finer scale follows the ascent more closely (the
/// scale is coarser where large costs would overflow it, see [`ascend`]).
const SCALE: i64 = 1024;

/// The ceiling the scaled costs of [`ascend`] must stay below (besides the forbidden-arc
/// cost): the forbidden-arc cost at 1,000 cities, the largest instance before n could reach
/// 10,000 and where the choice between multipliers and the plain assignment was measured.
/// The forbidden-arc cost of 10,000 cities let the ascent run on instances where it had not
/// (amat at n = 316 with a 2.7 s limit: 13 nodes proved the optimum with the plain
/// assignment, while the ascent's steps left no time for a node).
const MULTIPLIER_CEILING: i128 = 4 * MAX_COST as i128 * 1000;

/// Where the costs leave room only for a scale coarser than [`SCALE`] (costs of millions, as
/// in most generated classes), multipliers are found only where the plain assignment bound
/// leaves more than this share of the incumbent open. There they close most of it (stilt at
/// n = 316: 21% open at the root, the run's gap 13.6% without multipliers and 5.8% with them
/// at 3 s; crane 1.9% and 0.7%), while on amat and tmat (0.4-1.7% open) the plain search
/// proves the optimum before the ascent's steps pay (amat:316 0.08 s against 0.15 s).
const COARSE_OPEN_SHARE: f64 = 0.03;

/// The size from which an ascent's step re-solves the assignment from the step before
/// instead of from scratch. The optimal assignment it finds may differ where several tie,
/// and with it the cuts and the ascent's path: on ft53 the path from scratch reaches the
/// subtour LP's bound (6,905) and the re-solved one 6,891. Below a few hundred cities a step
/// from scratch takes under a millisecond, and the path from scratch is kept; above, the
/// re-solve takes 3-4 times the steps in the same time (stilt:316 at 2 s: 150 against 34,
/// the gap 3.5% against 4.4%; stilt:1000 at 8 s: 42 against 12, 4.7% against 6.7%).
const WARM_FROM: usize = 200;

/// Subgradient steps at most.
const ITERATIONS: usize = 1500;

/// Steps without a better bound after which the step factor is halved.
const PATIENCE: usize = 50;

/// The step factor below which the ascent has converged.
const MIN_STEP: f64 = 1e-3;

/// The costs the subtour search runs on, and how its assignment values become bounds.
#[derive(Debug, Clone)]
pub(crate) struct Relaxed {
    /// `c'`, row-major `n * n`, in units of `1 / scale` (the diagonal is the caller's to forbid).
    pub(crate) costs: Vec<i64>,
    /// Units per cost unit.
    scale: i64,
    /// The sum of the multipliers, in units.
    offset: i64,
    /// The best bound the ascent proved at the root.
    pub(crate) root_bound: i64,
    /// Subgradient steps taken (for the run's notes).
    pub(crate) steps: usize,
    /// Cuts with a positive multiplier.
    pub(crate) cuts: usize,
    /// Where the ascent stopped, for a later one to go on from.
    ascent: Ascent,
}

/// An ascent's state: its cuts at the multipliers of its best bound, the cycles it has made
/// cuts of, and its step factor.
#[derive(Debug, Clone)]
struct Ascent {
    cuts: Vec<Cut>,
    known: HashSet<Vec<usize>>,
    step: f64,
}

impl Default for Ascent {
    fn default() -> Ascent {
        Ascent {
            cuts: Vec::new(),
            known: HashSet::new(),
            step: 1.0,
        }
    }
}

impl Relaxed {
    /// The instance's own costs: the plain assignment bound.
    pub(crate) fn plain(inst: &Instance) -> Relaxed {
        Relaxed {
            costs: inst.cost.clone(),
            scale: 1,
            offset: 0,
            root_bound: 0,
            steps: 0,
            cuts: 0,
            ascent: Ascent::default(),
        }
    }

    /// What the ascent did, in one line for the run's notes.
    pub(crate) fn note(&self) -> String {
        if self.is_plain() {
            return "the subtour search bounds by the plain assignment (no multipliers: costs too large for them, or the assignment bound close to the tour)".into();
        }
        format!(
            "subtour-cut multipliers raise the root bound to {} ({} ascent steps, {} cuts)",
            self.root_bound, self.steps, self.cuts
        )
    }

    /// Whether these are the instance's own costs (no multipliers).
    pub(crate) fn is_plain(&self) -> bool {
        self.scale == 1
    }

    /// The bound on every tour of a node whose relaxed assignment costs `value` units.
    pub(crate) fn bound(&self, value: i64) -> i64 {
        round_up(value + self.offset, self.scale)
    }
}

/// `units / scale`, rounded up (tour costs are integers).
fn round_up(units: i64, scale: i64) -> i64 {
    units.div_euclid(scale) + i64::from(units.rem_euclid(scale) != 0)
}

/// One subtour cut: its cities and its multiplier (in units).
#[derive(Debug, Clone)]
struct Cut {
    inside: Vec<bool>,
    members: Vec<usize>,
    lambda: f64,
}

/// Multipliers for `inst`'s subtour cuts by subgradient ascent, aiming at the incumbent's
/// cost `upper`: from zero, or from where an earlier ascent on `inst` (`from`) stopped, whose
/// bound is then never lost. Stops early once the bound reaches `upper` (the incumbent is
/// then optimal), at `deadline` or once `stop` is raised (the caller's Ctrl-C). Falls back to
/// the plain costs where scaled costs could overflow the search's forbidden-arc cost, and
/// where only a coarse scale fits and `plain_bound` (the plain assignment bound, where known)
/// leaves little open ([`COARSE_OPEN_SHARE`]).
pub(crate) fn ascend(
    inst: &Instance,
    upper: i64,
    plain_bound: Option<i64>,
    forbidden: i64,
    deadline: Option<Instant>,
    stop: Option<&StopFlag>,
    from: Option<Relaxed>,
) -> Relaxed {
    let n = inst.n;
    let largest = inst.cost.iter().copied().max().unwrap_or(0).max(upper);
    // The relaxed costs and any assignment's sum of them must stay far below `forbidden`,
    // and below the ceiling the ascent was tuned at.
    let ceiling = (forbidden as i128).min(MULTIPLIER_CEILING);
    let room = ceiling / ((largest.max(1) as i128) * (n as i128) * 16);
    let wide_open =
        plain_bound.is_some_and(|plain| (upper - plain) as f64 > COARSE_OPEN_SHARE * upper as f64);
    let scale = match &from {
        Some(from) if !from.is_plain() => from.scale,
        _ if room >= SCALE as i128 => SCALE,
        _ if wide_open => room as i64,
        _ => 0,
    };
    if n < 3 || scale < 2 || (largest as i128) * (scale as i128) * (n as i128) * 16 >= ceiling {
        return Relaxed::plain(inst);
    }
    let (mut best, earlier) = match from.filter(|from| !from.is_plain()) {
        Some(mut from) => {
            let ascent = std::mem::take(&mut from.ascent);
            (Some(from), ascent)
        }
        None => (None, Ascent::default()),
    };
    let Ascent {
        mut cuts,
        mut known,
        mut step,
    } = earlier;
    // The multipliers of the best bound, cut by cut (the ascent goes on from them).
    let mut best_lambdas: Vec<f64> = cuts.iter().map(|cut| cut.lambda).collect();
    let mut costs = vec![0i64; n * n];
    let mut scratch = LapScratch::default();
    let mut previous: Option<Lap> = None;
    let mut stale = 0;
    let mut steps = best.as_ref().map_or(0, |best| best.steps);
    for _ in 0..ITERATIONS {
        if deadline.is_some_and(|d| Instant::now() >= d) || stop.is_some_and(StopFlag::is_raised) {
            break;
        }
        let offset = relax(inst, &cuts, forbidden, scale, &mut costs);
        // From WARM_FROM cities on, each step re-solves from the last step's assignment (the
        // multipliers move a few rows' costs), the first from scratch.
        let solved = match previous.take().filter(|_| n >= WARM_FROM) {
            Some(mut lap) => lap
                .resolve(n, &costs, &mut scratch, deadline)
                .then_some(lap),
            None => Lap::try_solve(n, &costs, &mut scratch, deadline),
        };
        let Some(lap) = solved else {
            // The deadline stopped the solve (seconds a step at thousands of cities).
            break;
        };
        steps += 1;
        let value = lap.value(n, &costs);
        let relaxed_bound = (value + offset) as f64 / scale as f64;
        let bound = round_up(value + offset, scale);
        if best.as_ref().is_none_or(|b| bound > b.root_bound) {
            let mut kept = Relaxed {
                costs: costs.clone(),
                scale,
                offset,
                root_bound: bound,
                steps: 0,
                cuts: cuts.iter().filter(|c| c.lambda.round() > 0.0).count(),
                ascent: Ascent::default(),
            };
            kept.costs.shrink_to_fit();
            best = Some(kept);
            best_lambdas = cuts.iter().map(|cut| cut.lambda).collect();
            stale = 0;
        } else {
            stale += 1;
            if stale >= PATIENCE {
                step /= 2.0;
                stale = 0;
            }
        }
        if bound >= upper || step < MIN_STEP {
            break;
        }
        let succ: Vec<usize> = (0..n).map(|i| lap.col_of(i)).collect();
        previous = Some(lap);
        let cycles = super::patching::cycles(&succ);
        if cycles.len() > 1 {
            for cycle in cycles {
                let mut key = cycle.clone();
                key.sort_unstable();
                if known.insert(key) {
                    let mut inside = vec![false; n];
                    for &c in &cycle {
                        inside[c] = true;
                    }
                    cuts.push(Cut {
                        inside,
                        members: cycle,
                        lambda: 0.0,
                    });
                }
            }
        }
        // The subgradient of cut S is 1 - x(out(S)) for the assignment x.
        let gradient: Vec<f64> = cuts
            .iter()
            .map(|cut| {
                let leaving = cut
                    .members
                    .iter()
                    .filter(|&&i| !cut.inside[succ[i]])
                    .count();
                1.0 - leaving as f64
            })
            .collect();
        let norm: f64 = gradient
            .iter()
            .zip(&cuts)
            .filter(|(g, c)| **g > 0.0 || c.lambda > 0.0)
            .map(|(g, _)| g * g)
            .sum();
        if norm == 0.0 {
            // The assignment is a tour meeting every cut: the bound is its cost.
            break;
        }
        let gap = (upper as f64 - relaxed_bound).max(1.0);
        let move_by = step * gap * scale as f64 / norm;
        for (cut, g) in cuts.iter_mut().zip(&gradient) {
            cut.lambda = (cut.lambda + move_by * g).max(0.0);
        }
    }
    let Some(mut relaxed) = best else {
        return Relaxed::plain(inst);
    };
    // Cuts found after the best bound had no multiplier there.
    for (k, cut) in cuts.iter_mut().enumerate() {
        cut.lambda = best_lambdas.get(k).copied().unwrap_or(0.0);
    }
    relaxed.steps = steps;
    relaxed.ascent = Ascent { cuts, known, step };
    relaxed
}

/// Fills `costs` with the relaxed costs under `cuts` (the diagonal `forbidden`) and returns
/// the sum of the multipliers, all in units.
fn relax(inst: &Instance, cuts: &[Cut], forbidden: i64, scale: i64, costs: &mut [i64]) -> i64 {
    let n = inst.n;
    for (relaxed, &cost) in costs.iter_mut().zip(&inst.cost) {
        *relaxed = cost * scale;
    }
    let mut offset = 0;
    for cut in cuts {
        let lambda = cut.lambda.round() as i64;
        if lambda == 0 {
            continue;
        }
        offset += lambda;
        for &i in &cut.members {
            let row = &mut costs[i * n..(i + 1) * n];
            for (j, relaxed) in row.iter_mut().enumerate() {
                if !cut.inside[j] {
                    *relaxed -= lambda;
                }
            }
        }
    }
    for i in 0..n {
        costs[i * n + i] = forbidden;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{cheapest_completion, lcg_below};

    #[test]
    fn the_relaxed_bound_is_between_the_assignment_bound_and_the_optimum() {
        let forbidden = 4 * crate::MAX_COST * crate::MAX_N as i64;
        for seed in 0..30u64 {
            let n = 4 + seed as usize % 5;
            let mut x = seed + 11;
            let cost = (0..n * n).map(|_| lcg_below(&mut x, 50) as i64).collect();
            let inst = Instance::new("lagr", n, cost).unwrap();
            let (optimum, assignment) = optimum_and_assignment(&inst, forbidden);
            let relaxed = ascend(&inst, optimum, None, forbidden, None, None, None);
            assert_sandwiched(&relaxed, &inst, (assignment, optimum), seed);
        }
    }

    /// `inst`'s optimum (by brute force) and its plain assignment bound.
    fn optimum_and_assignment(inst: &Instance, forbidden: i64) -> (i64, i64) {
        let n = inst.n;
        let optimum = cheapest_completion(inst, 0, &(1..n).collect::<Vec<_>>());
        let mut plain = inst.cost.clone();
        for i in 0..n {
            plain[i * n + i] = forbidden;
        }
        let assignment =
            Lap::solve_until(n, &plain, &mut LapScratch::default(), None).value(n, &plain);
        (optimum, assignment)
    }

    /// `relaxed`'s root bound lies in `[assignment, optimum]`, and a tour's relaxed costs
    /// bound its real cost from below.
    fn assert_sandwiched(relaxed: &Relaxed, inst: &Instance, range: (i64, i64), seed: u64) {
        let (assignment, optimum) = range;
        assert!(relaxed.root_bound >= assignment, "seed {seed}");
        assert!(relaxed.root_bound <= optimum, "seed {seed}");
        let n = inst.n;
        let tour: Vec<usize> = (0..n).collect();
        let value: i64 = (0..n)
            .map(|k| relaxed.costs[tour[k] * n + tour[(k + 1) % n]])
            .sum();
        assert!(relaxed.bound(value) <= crate::tour_cost(inst, &tour));
    }

    /// Costs near the largest accepted leave room only for a coarse scale: multipliers are
    /// found where the plain assignment leaves more than [`COARSE_OPEN_SHARE`] of the optimum
    /// open, and bound every tour there too; elsewhere the costs stay plain.
    #[test]
    fn large_costs_take_a_coarse_scale_where_the_assignment_leaves_much_open() {
        let forbidden = 4 * crate::MAX_COST * crate::MAX_N as i64;
        let mut kinds = [0; 2];
        for seed in 0..40u64 {
            let n = 5 + seed as usize % 4;
            let mut x = seed + 3;
            let cost = (0..n * n)
                .map(|_| crate::MAX_COST - lcg_below(&mut x, 1_000_000_000) as i64 / 3)
                .collect();
            let inst = Instance::new("coarse", n, cost).unwrap();
            let (optimum, assignment) = optimum_and_assignment(&inst, forbidden);
            let relaxed = ascend(
                &inst,
                optimum,
                Some(assignment),
                forbidden,
                None,
                None,
                None,
            );
            let wide_open = (optimum - assignment) as f64 > COARSE_OPEN_SHARE * optimum as f64;
            assert_eq!(relaxed.is_plain(), !wide_open, "seed {seed}");
            kinds[usize::from(wide_open)] += 1;
            if wide_open {
                assert!(relaxed.scale > 1 && relaxed.scale < SCALE, "seed {seed}");
                assert_sandwiched(&relaxed, &inst, (assignment, optimum), seed);
            }
            // Without the plain bound, no coarse scale.
            let unknown = ascend(&inst, optimum, None, forbidden, None, None, None);
            assert!(unknown.is_plain(), "seed {seed}");
        }
        assert!(kinds[0] > 0 && kinds[1] > 0, "{kinds:?}");
    }

    /// ft53's multipliers make a node's assignment a tour that costs more than the node's
    /// bound (six nodes in): the search must branch there, not take the tour as the node's
    /// cheapest.
    #[test]
    fn the_search_under_multipliers_proves_ft53() {
        let inst =
            crate::read_tsplib(concat!(env!("CARGO_MANIFEST_DIR"), "/data/ft53.atsp")).unwrap();
        let (tour, cost) = crate::heuristic_tour(&inst);
        let forbidden = crate::subtour_search::FORBIDDEN;
        let relaxed = ascend(&inst, cost, None, forbidden, None, None, None);
        let pool = thicket_core::pool(2).unwrap();
        let found = pool.install(|| {
            crate::subtour_search::search(
                &inst,
                &relaxed,
                (cost, tour),
                None,
                &thicket_core::Progress::hidden(),
            )
        });
        assert_eq!((found.cost, found.proven_optimal), (6905, true));
        crate::verify(&inst, &found.tour, 6905).unwrap();
    }

    /// An ascent that goes on from an earlier one keeps its bound and its costs where it has
    /// no time for a step, and never falls below it where it has.
    #[test]
    fn a_resumed_ascent_never_loses_the_earlier_bound() {
        let inst =
            crate::read_tsplib(concat!(env!("CARGO_MANIFEST_DIR"), "/data/ft53.atsp")).unwrap();
        let (_, cost) = crate::heuristic_tour(&inst);
        let forbidden = crate::subtour_search::FORBIDDEN;
        let first = ascend(&inst, cost, None, forbidden, None, None, None);
        assert!(first.steps > 0 && !first.is_plain());
        let past = Some(Instant::now());
        let kept = ascend(
            &inst,
            cost,
            None,
            forbidden,
            past,
            None,
            Some(first.clone()),
        );
        assert_eq!(
            (kept.root_bound, kept.steps),
            (first.root_bound, first.steps)
        );
        assert_eq!(kept.costs, first.costs);
        let resumed = ascend(
            &inst,
            cost,
            None,
            forbidden,
            None,
            None,
            Some(first.clone()),
        );
        assert!(resumed.root_bound >= first.root_bound);
        assert!(resumed.steps > first.steps);
        assert!(resumed.root_bound <= crate::known_optimum("ft53").unwrap());
    }

    /// The subtour LP bounds (assignment polytope with every subtour cut, cuts separated
    /// exactly) computed by HiGHS outside the tests: `python3 scripts/atsp-lp-bound.py FILE`
    /// (scipy 1.17.1), as (instance, assignment bound, LP bound in 1/10,000 rounded down).
    const SUBTOUR_LP: [(&str, i64, i64); 5] = [
        ("ftv33", 1185, 12_860_000),
        ("ry48p", 12517, 142_893_333),
        ("ft53", 5931, 69_050_000),
        ("ftv70", 1766, 19_090_000),
        ("kro124p", 33978, 359_991_333),
    ];

    /// The ascent's root bound against the LP's: never above it (the Lagrangian dual is the
    /// LP), and within 0.05% of it on these files (the ascent reaches the LP bound).
    fn ascent_meets_the_subtour_lp(names: &[&str]) {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data");
        let forbidden = crate::subtour_search::FORBIDDEN;
        for &(name, assignment, lp) in SUBTOUR_LP.iter().filter(|c| names.contains(&c.0)) {
            let inst = crate::read_tsplib(format!("{data}/{name}.atsp")).unwrap();
            let (_, (cost, _)) = crate::policy::RootBounds::of(&inst);
            let relaxed = ascend(&inst, cost, None, forbidden, None, None, None);
            // The LP's ceiling: no integer bound exceeds it.
            let lp_ceiling = (lp + 9_999) / 10_000;
            assert!(relaxed.root_bound >= assignment, "{name}");
            assert!(
                relaxed.root_bound <= lp_ceiling,
                "{name}: {}",
                relaxed.root_bound
            );
            assert!(
                relaxed.root_bound * 10_000 * 2000 >= lp * 1999,
                "{name}: {} against the LP's {lp_ceiling}",
                relaxed.root_bound
            );
            assert!(lp_ceiling <= crate::known_optimum(name).unwrap());
        }
    }

    #[test]
    fn the_ascent_meets_the_subtour_lp_bound_on_small_files() {
        ascent_meets_the_subtour_lp(&["ftv33", "ry48p", "ft53"]);
    }

    #[test]
    #[ignore = "release builds: cargo test --release -- --ignored"]
    fn the_ascent_meets_the_subtour_lp_bound_on_larger_files() {
        ascent_meets_the_subtour_lp(&["ftv70", "kro124p"]);
    }
}
