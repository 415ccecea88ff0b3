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
//! Beyond subtours, any inequality `a x >= b` that every tour meets moves into the costs the
//! same way (`c' = c - lambda a`, `lambda b` added back). The ascent's second phase adds
//! blossoms (2-matching inequalities, see `blossom`), separated on the running average of its
//! assignments. Their multipliers raise the root bound (ftv170: 2,716 -> 2,724, the LP's with
//! blossoms), but under them alone the search's tree grew on kro124p (90,277 nodes against
//! 29,691) and ry48p: the multipliers fixed at the root fit the children worse. So the search
//! keeps both multiplier sets as *layers* and bounds each node by the larger of their
//! assignments, which is never weaker than either.
//!
//! Multipliers are integers in units of `1/SCALE` of a cost unit, so the relaxed costs stay
//! integers and every bound is exact integer arithmetic, rounded up at the end.

use std::collections::HashSet;
use std::time::Instant;

use super::blossom::{self, Blossom};
use super::instance::Instance;
use super::lap::{Lap, LapScratch};

/// Units of a multiplier per cost unit: a finer scale follows the ascent more closely.
const SCALE: i64 = 1024;

/// Subgradient steps at most in the subtour phase.
const ITERATIONS: usize = 1500;

/// Subgradient steps at most in the blossom phase (its rounds need steps to take effect).
const BLOSSOM_ITERATIONS: usize = 1500;

/// Blossom separation rounds at most.
const BLOSSOM_ROUNDS: usize = 20;

/// How far the running average of the assignments must violate a blossom for it to be
/// added (the average only approximates the LP's optimum).
const BLOSSOM_MARGIN: f64 = 0.05;

/// The weight of the newest assignment in the running average.
const AVERAGE_WEIGHT: f64 = 0.05;

/// The step factor the blossom phase starts from (the subtour phase's multipliers are
/// already near their best).
const BLOSSOM_STEP: f64 = 0.25;

/// Steps without a better bound after which the step factor is halved.
const PATIENCE: usize = 50;

/// The step factor below which the ascent has converged.
const MIN_STEP: f64 = 1e-3;

/// The costs the subtour search bounds its nodes with.
#[derive(Debug, Clone)]
pub(crate) struct Relaxed {
    /// One relaxed cost matrix per multiplier set (none: the plain assignment bound).
    pub(crate) layers: Vec<Layer>,
    /// The best bound the ascent proved at the root.
    pub(crate) root_bound: i64,
    /// Subgradient steps taken (for the run's notes).
    pub(crate) steps: usize,
    /// Subtour cuts with a positive multiplier.
    pub(crate) cuts: usize,
    /// Blossoms with a positive multiplier.
    pub(crate) blossoms: usize,
    /// `excluded[i * n + j]`: no tour cheaper than the incumbent uses arc `i -> j` (reduced-cost
    /// fixing at the root); empty where none is.
    pub(crate) excluded: Vec<bool>,
}

/// The costs under one set of multipliers, and how its assignment values become bounds.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    /// `c'`, row-major `n * n`, in units of `1 / SCALE` (the diagonal forbidden).
    pub(crate) costs: Vec<i64>,
    /// What the multipliers add back (`sum lambda b`), in units.
    offset: i64,
    /// The layer's bound at the root.
    root_bound: i64,
}

impl Layer {
    /// The bound on every tour of a node whose assignment on this layer costs `value` units.
    pub(crate) fn bound(&self, value: i64) -> i64 {
        round_up(value + self.offset, SCALE)
    }
}

impl Relaxed {
    /// The instance's own costs: the plain assignment bound.
    pub(crate) fn plain() -> Relaxed {
        Relaxed {
            layers: Vec::new(),
            root_bound: 0,
            steps: 0,
            cuts: 0,
            blossoms: 0,
            excluded: Vec::new(),
        }
    }

    /// What the ascent did, in one line for the run's notes.
    pub(crate) fn note(&self) -> String {
        if self.is_plain() {
            return "the subtour search bounds by the plain assignment (costs too large for multipliers)".into();
        }
        let layers: Vec<String> = self
            .layers
            .iter()
            .map(|layer| layer.root_bound.to_string())
            .collect();
        format!(
            "cut multipliers raise the root bound to {} ({} ascent steps, {} subtour cuts, {} blossoms; layers {}; {} arcs excluded by their reduced costs)",
            self.root_bound,
            self.steps,
            self.cuts,
            self.blossoms,
            layers.join(" and "),
            self.excluded_arcs()
        )
    }

    /// Whether these are the instance's own costs (no multipliers).
    pub(crate) fn is_plain(&self) -> bool {
        self.layers.is_empty()
    }

    /// Arcs excluded from every node (see `excluded`).
    pub(crate) fn excluded_arcs(&self) -> usize {
        self.excluded.iter().filter(|&&e| e).count()
    }

    /// Reduced-cost fixing: an assignment that uses arc `i -> j` costs at least the optimal
    /// one plus the arc's reduced cost, so where that bound reaches `upper` on some layer, no
    /// tour cheaper than the incumbent uses the arc; it is forbidden in every layer and
    /// recorded in `excluded` for the plain costs.
    fn exclude_arcs(&mut self, n: usize, upper: i64, forbidden: i64, scratch: &mut LapScratch) {
        let mut excluded = vec![false; n * n];
        for layer in &self.layers {
            let lap = Lap::solve(n, &layer.costs, scratch);
            let value = lap.value(n, &layer.costs);
            for (k, out) in excluded.iter_mut().enumerate() {
                let (i, j) = (k / n, k % n);
                *out |= i != j && layer.bound(value + lap.reduced(n, &layer.costs, i, j)) >= upper;
            }
        }
        for layer in &mut self.layers {
            for (cost, _) in layer.costs.iter_mut().zip(&excluded).filter(|(_, &e)| e) {
                *cost = forbidden;
            }
        }
        self.excluded = excluded;
    }
}

/// `units / scale`, rounded up (tour costs are integers).
fn round_up(units: i64, scale: i64) -> i64 {
    units.div_euclid(scale) + i64::from(units.rem_euclid(scale) != 0)
}

/// One cut moved into the costs, with its multiplier (in units).
struct Cut {
    kind: CutKind,
    lambda: f64,
}

/// The inequalities the ascent relaxes.
enum CutKind {
    /// `x(out(S)) >= 1`: the cities of S, as flags and as a list.
    Subtour {
        inside: Vec<bool>,
        members: Vec<usize>,
    },
    /// A 2-matching inequality on the symmetrised arcs (see `blossom`).
    Blossom(Blossom),
}

impl Cut {
    /// `rhs - lhs` at the assignment `succ`: the subgradient of the cut's multiplier.
    fn slack_deficit(&self, succ: &[usize]) -> i64 {
        match &self.kind {
            CutKind::Subtour { inside, members } => {
                1 - members.iter().filter(|&&i| !inside[succ[i]]).count() as i64
            }
            CutKind::Blossom(blossom) => blossom.rhs() - blossom.lhs(succ),
        }
    }

    /// Moves the cut into `costs` at multiplier `lambda`; returns what it adds to the bound.
    fn relax(&self, lambda: i64, costs: &mut [i64]) -> i64 {
        match &self.kind {
            CutKind::Subtour { inside, members } => {
                let n = inside.len();
                for &i in members {
                    let row = &mut costs[i * n..(i + 1) * n];
                    for (j, relaxed) in row.iter_mut().enumerate() {
                        if !inside[j] {
                            *relaxed -= lambda;
                        }
                    }
                }
                lambda
            }
            CutKind::Blossom(blossom) => {
                blossom.lower_costs(lambda, costs);
                lambda * blossom.rhs()
            }
        }
    }

    fn is_blossom(&self) -> bool {
        matches!(self.kind, CutKind::Blossom(_))
    }
}

/// Multipliers for `inst`'s subtour cuts (and, with `blossoms`, 2-matching inequalities) by
/// subgradient ascent from zero, aiming at the incumbent's cost `upper`; stops early once the
/// bound reaches `upper` (the incumbent is then optimal) or at `deadline`. Falls back to the
/// plain costs where scaled costs could overflow the search's forbidden-arc cost.
///
/// The first phase takes subtour cuts from the cycles of the assignments met. The second
/// (with `blossoms`) goes on from its multipliers and also separates blossoms on the running
/// average of the assignments (which nears the LP's optimum as the multipliers converge):
/// at its start and each time the bound stalls (a round that adds some keeps the step
/// instead of halving it). Each phase's best multipliers become a layer.
pub(crate) fn ascend(
    inst: &Instance,
    upper: i64,
    forbidden: i64,
    deadline: Option<Instant>,
    blossoms: bool,
) -> Relaxed {
    let n = inst.n;
    let largest = inst.cost.iter().copied().max().unwrap_or(0).max(upper);
    // The relaxed costs and any assignment's sum of them must stay far below `forbidden`.
    if n < 3 || (largest as i128) * (SCALE as i128) * (n as i128) * 16 >= forbidden as i128 {
        return Relaxed::plain();
    }
    let mut ascent = Ascent {
        inst,
        upper,
        forbidden,
        deadline,
        cuts: Vec::new(),
        known: HashSet::new(),
        known_blossoms: HashSet::new(),
        average: vec![0.0; n * n],
        costs: vec![0; n * n],
        scratch: LapScratch::default(),
        steps: 0,
    };
    let mut relaxed = Relaxed::plain();
    if let Some(layer) = ascent.run(ITERATIONS, 1.0, 0) {
        relaxed.cuts = ascent.positive(false);
        relaxed.root_bound = layer.root_bound;
        relaxed.layers.push(layer);
    }
    if blossoms && relaxed.root_bound < upper && !ascent.expired() {
        if let Some(layer) = ascent.run(BLOSSOM_ITERATIONS, BLOSSOM_STEP, BLOSSOM_ROUNDS) {
            relaxed.blossoms = ascent.positive(true);
            relaxed.root_bound = relaxed.root_bound.max(layer.root_bound);
            relaxed.layers.push(layer);
        }
    }
    relaxed.steps = ascent.steps;
    if !relaxed.is_plain() && relaxed.root_bound < upper {
        relaxed.exclude_arcs(n, upper, forbidden, &mut ascent.scratch);
    }
    relaxed
}

/// The subgradient ascent's state, kept from one phase to the next.
struct Ascent<'a> {
    inst: &'a Instance,
    upper: i64,
    forbidden: i64,
    deadline: Option<Instant>,
    cuts: Vec<Cut>,
    /// The subtour cuts met, as sorted city lists.
    known: HashSet<Vec<usize>>,
    known_blossoms: HashSet<Blossom>,
    /// The running average of the assignments, row-major `n * n`.
    average: Vec<f64>,
    costs: Vec<i64>,
    scratch: LapScratch,
    steps: usize,
}

impl Ascent<'_> {
    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The cuts with a positive multiplier, blossoms or subtour cuts.
    fn positive(&self, blossoms: bool) -> usize {
        self.cuts
            .iter()
            .filter(|c| c.is_blossom() == blossoms && c.lambda.round() > 0.0)
            .count()
    }

    /// Adds the blossoms the running average violates; returns how many were new.
    fn separate_blossoms(&mut self) -> usize {
        let n = self.inst.n;
        let deadline = self.deadline;
        let expired = move || deadline.is_some_and(|d| Instant::now() >= d);
        let mut added = 0;
        for blossom in blossom::separate(n, &self.average, BLOSSOM_MARGIN, &expired) {
            if self.known_blossoms.insert(blossom.clone()) {
                self.cuts.push(Cut {
                    kind: CutKind::Blossom(blossom),
                    lambda: 0.0,
                });
                added += 1;
            }
        }
        added
    }

    /// Up to `iterations` subgradient steps from the current multipliers, the step factor
    /// from `step`, with up to `blossom_rounds` blossom separations (the first at once);
    /// the best multipliers met, as a layer.
    fn run(&mut self, iterations: usize, mut step: f64, blossom_rounds: usize) -> Option<Layer> {
        let n = self.inst.n;
        let mut rounds = 0;
        if blossom_rounds > 0 {
            rounds += 1;
            self.separate_blossoms();
        }
        let mut best: Option<Layer> = None;
        let mut stale = 0;
        for _ in 0..iterations {
            if self.expired() {
                break;
            }
            self.steps += 1;
            let offset = relax(self.inst, &self.cuts, self.forbidden, &mut self.costs);
            let lap = Lap::solve(n, &self.costs, &mut self.scratch);
            let value = lap.value(n, &self.costs);
            let relaxed_bound = (value + offset) as f64 / SCALE as f64;
            let bound = round_up(value + offset, SCALE);
            let succ: Vec<usize> = (0..n).map(|i| lap.col_of(i)).collect();
            for (k, share) in self.average.iter_mut().enumerate() {
                *share *= 1.0 - AVERAGE_WEIGHT;
                if succ[k / n] == k % n {
                    *share += AVERAGE_WEIGHT;
                }
            }
            if best.as_ref().is_none_or(|b| bound > b.root_bound) {
                best = Some(Layer {
                    costs: self.costs.clone(),
                    offset,
                    root_bound: bound,
                });
                stale = 0;
            } else {
                stale += 1;
                if stale >= PATIENCE {
                    stale = 0;
                    let added = if rounds < blossom_rounds {
                        rounds += 1;
                        self.separate_blossoms()
                    } else {
                        0
                    };
                    if added == 0 {
                        step /= 2.0;
                    }
                }
            }
            if bound >= self.upper || step < MIN_STEP {
                break;
            }
            self.add_subtours(&succ);
            // The subgradient of a cut `a x >= b` is `b - a x` at the assignment x.
            let gradient: Vec<f64> = self
                .cuts
                .iter()
                .map(|cut| cut.slack_deficit(&succ) as f64)
                .collect();
            let norm: f64 = gradient
                .iter()
                .zip(&self.cuts)
                .filter(|(g, c)| **g > 0.0 || c.lambda > 0.0)
                .map(|(g, _)| g * g)
                .sum();
            if norm == 0.0 {
                // The assignment is a tour meeting every cut: the bound is its cost.
                break;
            }
            let gap = (self.upper as f64 - relaxed_bound).max(1.0);
            let move_by = step * gap * SCALE as f64 / norm;
            for (cut, g) in self.cuts.iter_mut().zip(&gradient) {
                cut.lambda = (cut.lambda + move_by * g).max(0.0);
            }
        }
        best
    }

    /// Adds the cycles of the assignment `succ` as subtour cuts (those not met before).
    fn add_subtours(&mut self, succ: &[usize]) {
        let n = self.inst.n;
        let cycles = super::subtour_search::cycles(succ);
        if cycles.len() < 2 {
            return;
        }
        for cycle in cycles {
            let mut key = cycle.clone();
            key.sort_unstable();
            if self.known.insert(key) {
                let mut inside = vec![false; n];
                for &c in &cycle {
                    inside[c] = true;
                }
                self.cuts.push(Cut {
                    kind: CutKind::Subtour {
                        inside,
                        members: cycle,
                    },
                    lambda: 0.0,
                });
            }
        }
    }
}

/// Fills `costs` with the relaxed costs under `cuts` (the diagonal `forbidden`) and returns
/// what the multipliers add back, all in units.
fn relax(inst: &Instance, cuts: &[Cut], forbidden: i64, costs: &mut [i64]) -> i64 {
    let n = inst.n;
    for (relaxed, &cost) in costs.iter_mut().zip(&inst.cost) {
        *relaxed = cost * SCALE;
    }
    let mut offset = 0;
    for cut in cuts {
        let lambda = cut.lambda.round() as i64;
        if lambda != 0 {
            offset += cut.relax(lambda, costs);
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

    /// Every tour of `inst` from city 0, with its cost.
    fn every_tour(inst: &Instance) -> Vec<(i64, Vec<usize>)> {
        fn extend(inst: &Instance, tour: &mut Vec<usize>, found: &mut Vec<(i64, Vec<usize>)>) {
            if tour.len() == inst.n {
                found.push((crate::tour_cost(inst, tour), tour.clone()));
                return;
            }
            for city in 1..inst.n {
                if !tour.contains(&city) {
                    tour.push(city);
                    extend(inst, tour, found);
                    tour.pop();
                }
            }
        }
        let mut found = Vec::new();
        extend(inst, &mut vec![0], &mut found);
        found
    }

    /// With and without blossoms: the root bound lies between the assignment bound and the
    /// optimum, and every tour cheaper than the incumbent avoids the excluded arcs and costs
    /// at least its bound on every layer.
    #[test]
    fn the_relaxed_bound_is_between_the_assignment_bound_and_the_optimum() {
        let forbidden = 4 * crate::MAX_COST * crate::MAX_N as i64;
        for seed in 0..60u64 {
            let blossoms = seed % 2 == 1;
            let n = 4 + seed as usize % 5;
            let mut x = seed + 11;
            let cost = (0..n * n).map(|_| lcg_below(&mut x, 50) as i64).collect();
            let inst = Instance::new("lagr", n, cost).unwrap();
            let optimum = cheapest_completion(&inst, 0, &(1..n).collect::<Vec<_>>());
            let mut plain = inst.cost.clone();
            for i in 0..n {
                plain[i * n + i] = forbidden;
            }
            let assignment = Lap::solve(n, &plain, &mut LapScratch::default()).value(n, &plain);
            let upper = optimum + 10;
            let relaxed = ascend(&inst, upper, forbidden, None, blossoms);
            assert!(relaxed.root_bound >= assignment, "seed {seed}");
            assert!(relaxed.root_bound <= optimum, "seed {seed}");
            for (cost, tour) in every_tour(&inst).into_iter().filter(|t| t.0 < upper) {
                let arcs = || (0..n).map(|k| tour[k] * n + tour[(k + 1) % n]);
                assert!(arcs().all(|a| !relaxed.excluded.get(a).copied().unwrap_or(false)));
                for layer in &relaxed.layers {
                    let value: i64 = arcs().map(|a| layer.costs[a]).sum();
                    assert!(layer.bound(value) <= cost, "seed {seed}");
                }
            }
        }
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
        let relaxed = ascend(&inst, cost, forbidden, None, true);
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
            let relaxed = ascend(&inst, cost, forbidden, None, false);
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
