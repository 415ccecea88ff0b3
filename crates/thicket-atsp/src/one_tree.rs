//! A lower bound for instances whose two directions cost alike, or alike up to a potential:
//! the Held–Karp 1-tree bound (Held and Karp 1970) of the symmetric costs
//! `min(c'(i, j), c'(j, i))`, where `c'(i, j) = c(i, j) + p(i) - p(j)` takes off the part of
//! the asymmetry that a potential `p` explains.
//!
//! Why it bounds every tour: a tour leaves and enters each city once, so a potential changes
//! no tour's cost, and each arc costs at least its edge's symmetric cost. The tour's edges
//! form a Hamiltonian cycle, which is a 1-tree (a spanning tree of cities 1..n-1 and two
//! edges at city 0), and under any city multipliers `pi` the cycle costs as much less
//! `2 sum(pi)`: the cheapest 1-tree under `pi`, less `2 sum(pi)`, costs no more than any
//! tour. A subgradient ascent on `pi` (each city's degree in the 1-tree less 2) raises it.
//!
//! Where it pays: the assignment bound lets subtours stand in for the tour, which on a
//! symmetric matrix (`tsmat`) or on a symmetric one plus a potential (`rtilt`, whose climb
//! costs `|dy| + dy`: the height is the potential) leaves it 15-18% below the tours; there the
//! 1-tree comes within 0.1-2% (docs/atsp.md). On strongly asymmetric matrices it stays below
//! the other bounds: there it gives up after its first steps ([`GIVE_UP_AFTER`]), and the run
//! keeps the largest.
//!
//! Everything is in integers (costs scaled by [`SCALE`], the potential rounded, integer
//! multipliers), so the bound is exact, rounded up to the next whole cost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::instance::Instance;

/// Costs are multiplied by this, so that the potential and the multipliers move in steps of
/// a sixteenth of a cost unit (instances with small costs, such as `coin`, need the finer steps).
const SCALE: i64 = 16;

/// Subgradient steps at most.
const MAX_STEPS: usize = 1_500;

/// Steps after which an ascent still below the bound the run holds gives up: on the strongly
/// asymmetric classes (stilt, crane, coin) it stays 3-25% below the plain assignment bound to
/// its end, while where it pays (tsmat and rtilt at n = 316 and 1,000) it passed that bound
/// within 25-100 steps (2026-12-04).
const GIVE_UP_AFTER: usize = 150;

/// Steps without a better bound after which the step size is halved.
const PATIENCE: usize = 30;

/// The step size's factor starts here and the ascent stops once it falls below
/// [`LAMBDA_END`].
const LAMBDA_START: f64 = 2.0;
const LAMBDA_END: f64 = 1e-3;

/// What the ascent reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OneTree {
    /// No tour costs less.
    pub(crate) bound: i64,
    /// Subgradient steps taken.
    pub(crate) steps: usize,
}

/// Prices on the cities from the best 1-tree's potential and multipliers: an arc from `i` to
/// `j` is priced `c(i, j) + out(i) + into(j)`, which changes every tour's cost by the same
/// sum, while the arcs of the 1-tree (and of the good tours, which are nearly 1-trees
/// where the bound is close) cost least. LKH-3 ranks and prices its candidate edges by
/// such multipliers; the local search does the same once an ascent beside it ends at or
/// above the assignment bound ([`crate::local_search`], [`crate::bound_beside`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodePrices {
    /// What every arc out of a city costs more, in whole cost units.
    pub(crate) out: Vec<i64>,
    /// What every arc into a city costs more.
    pub(crate) into: Vec<i64>,
}

impl NodePrices {
    /// The prices of the potential `potential` and the multipliers `pi` (both scaled by
    /// [`SCALE`]): the edge `{i, j}` of the symmetric costs stands for `c(i, j) + p(i) -
    /// p(j)`, and the multipliers add `pi(i) + pi(j)`.
    fn of(potential: &[i64], pi: &[i64]) -> NodePrices {
        let unscaled = |x: i64| (x as f64 / SCALE as f64).round() as i64;
        NodePrices {
            out: (0..pi.len())
                .map(|i| unscaled(potential[i] + pi[i]))
                .collect(),
            into: (0..pi.len())
                .map(|j| unscaled(pi[j] - potential[j]))
                .collect(),
        }
    }

    /// The price of the arc from `i` to `j` of `inst`.
    pub(crate) fn price(&self, inst: &Instance, i: usize, j: usize) -> i64 {
        inst.cost(i, j) + self.out[i] + self.into[j]
    }
}

impl OneTree {
    /// One line for the run's notes; `kept` the run's lower bound where the 1-tree's is
    /// below it (on strongly asymmetric matrices it can even be negative: the symmetric costs
    /// less a potential go below zero), so that the note says it was not used.
    pub(crate) fn note(&self, kept: i64) -> String {
        let used = match self.bound >= kept {
            true => String::new(),
            false => format!(" (below the bound kept, {kept}: not used)"),
        };
        format!(
            "Held-Karp 1-tree bound (symmetric costs less a potential): {} after {} steps{used}",
            self.bound, self.steps
        )
    }
}

/// The 1-tree bound of `inst` (see the module) and the prices of its best multipliers,
/// ascending until `deadline`, `stop`, [`MAX_STEPS`] or the bound reaches `upper` (a tour's
/// cost), or from [`GIVE_UP_AFTER`] steps on while it is below `floor` (a bound the run
/// holds); `None` where `inst` has fewer than 3 cities, the matrix of symmetric costs does
/// not fit in memory, or no step was taken before `deadline` or `stop`.
pub(crate) fn ascend(
    inst: &Instance,
    upper: i64,
    floor: Option<i64>,
    deadline: Instant,
    stop: Option<&AtomicBool>,
) -> Option<(OneTree, NodePrices)> {
    let n = inst.n;
    if n < 3 {
        return None;
    }
    let bytes = (n as u64 * n as u64).checked_mul(8);
    thicket_core::check_fits("the 1-tree bound's symmetric costs", bytes).ok()?;
    let mut edge = Vec::new();
    edge.try_reserve_exact(n * n).ok()?;
    let cost = |i: usize, j: usize| inst.cost(i, j);
    // The potential that takes the most of the asymmetry off: p(i) = -(1/n) sum_j a(i, j),
    // a(i, j) = (c(i, j) - c(j, i)) / 2, the least-squares fit of a(i, j) by p(j) - p(i)
    // (for the tilted classes, the height). Scaled and rounded: any integer potential leaves
    // every tour's cost as it is.
    let potential: Vec<i64> = (0..n)
        .map(|i| {
            let asymmetry: i64 = (0..n).map(|j| cost(i, j) - cost(j, i)).sum();
            (-(SCALE as f64) * asymmetry as f64 / (2.0 * n as f64)).round() as i64
        })
        .collect();
    for i in 0..n {
        for j in 0..n {
            let there = SCALE * cost(i, j) + potential[i] - potential[j];
            let back = SCALE * cost(j, i) + potential[j] - potential[i];
            edge.push(there.min(back));
        }
    }
    let target = SCALE.saturating_mul(upper);
    let floor = floor.map_or(i64::MIN, |floor| SCALE.saturating_mul(floor));
    let mut tree = Prim::new(n);
    let mut pi = vec![0i64; n];
    let mut best_pi = pi.clone();
    let mut best = i64::MIN;
    let (mut lambda, mut since_better, mut steps) = (LAMBDA_START, 0, 0);
    while steps < MAX_STEPS
        && lambda >= LAMBDA_END
        && Instant::now() < deadline
        && !stop.is_some_and(|s| s.load(Ordering::Relaxed))
    {
        let value = tree.solve(&edge, &pi);
        steps += 1;
        if value > best {
            best = value;
            best_pi.copy_from_slice(&pi);
            since_better = 0;
        } else {
            since_better += 1;
            if since_better >= PATIENCE {
                lambda /= 2.0;
                since_better = 0;
            }
        }
        let norm: i64 = tree.degree.iter().map(|&d| (d - 2) * (d - 2)).sum();
        if norm == 0 || best >= target {
            // A 1-tree whose every degree is 2 is a tour: nothing cheaper exists.
            break;
        }
        if steps >= GIVE_UP_AFTER && best < floor {
            // It will not pass the run's bound: its thread is worth more to another bound.
            break;
        }
        let step = lambda * (target - value).max(SCALE) as f64 / norm as f64;
        for (p, &d) in pi.iter_mut().zip(&tree.degree) {
            *p += (step * (d - 2) as f64).round() as i64;
        }
    }
    // Tours cost whole units: the scaled bound rounds up. No step (the deadline had passed):
    // no bound.
    let bound = (best + SCALE - 1).div_euclid(SCALE);
    let prices = NodePrices::of(&potential, &best_pi);
    (steps > 0).then_some((OneTree { bound, steps }, prices))
}

/// Prim's algorithm on the dense symmetric costs, with its work arrays.
struct Prim {
    key: Vec<i64>,
    parent: Vec<usize>,
    in_tree: Vec<bool>,
    /// Each city's degree in the last 1-tree.
    degree: Vec<i64>,
}

impl Prim {
    fn new(n: usize) -> Prim {
        Prim {
            key: vec![0; n],
            parent: vec![0; n],
            in_tree: vec![false; n],
            degree: vec![0; n],
        }
    }

    /// The cost of the cheapest 1-tree under `pi` less `2 sum(pi)` (scaled), its degrees
    /// left in `self.degree`: a spanning tree of cities 1..n-1 and city 0's two cheapest
    /// edges.
    fn solve(&mut self, edge: &[i64], pi: &[i64]) -> i64 {
        let n = pi.len();
        let cost = |i: usize, j: usize| edge[i * n + j] + pi[i] + pi[j];
        self.degree.fill(0);
        self.in_tree.fill(false);
        self.in_tree[0] = true;
        self.in_tree[1] = true;
        let mut total = 0;
        for j in 2..n {
            self.key[j] = cost(1, j);
            self.parent[j] = 1;
        }
        for _ in 2..n {
            let mut next = usize::MAX;
            let mut least = i64::MAX;
            for j in 2..n {
                if !self.in_tree[j] && self.key[j] < least {
                    (least, next) = (self.key[j], j);
                }
            }
            self.in_tree[next] = true;
            total += least;
            self.degree[next] += 1;
            self.degree[self.parent[next]] += 1;
            let row = &edge[next * n..(next + 1) * n];
            let pn = pi[next];
            for j in 2..n {
                let through = row[j] + pn + pi[j];
                if !self.in_tree[j] && through < self.key[j] {
                    self.key[j] = through;
                    self.parent[j] = next;
                }
            }
        }
        // City 0's two cheapest edges.
        let (mut first, mut second) = ((i64::MAX, 0), (i64::MAX, 0));
        for j in 1..n {
            let c = cost(0, j);
            if c < first.0 {
                second = first;
                first = (c, j);
            } else if c < second.0 {
                second = (c, j);
            }
        }
        total += first.0 + second.0;
        self.degree[0] = 2;
        self.degree[first.1] += 1;
        self.degree[second.1] += 1;
        total - 2 * pi.iter().sum::<i64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::parse_generator_spec;
    use crate::policy::assignment;
    use crate::test_support::ring;
    use std::time::Duration;

    /// The cheapest tour, by enumeration.
    fn brute_force(inst: &Instance) -> i64 {
        let others: Vec<usize> = (1..inst.n).collect();
        crate::test_support::cheapest_completion(inst, 0, &others)
    }

    fn bound(inst: &Instance, upper: i64) -> OneTree {
        let deadline = Instant::now() + Duration::from_secs(60);
        ascend(inst, upper, None, deadline, None).unwrap().0
    }

    /// Below a floor it cannot pass, the ascent stops after its first steps; without one it
    /// goes on.
    #[test]
    fn an_ascent_below_the_floor_gives_up_after_its_first_steps() {
        let inst = parse_generator_spec("crane:60:1")
            .unwrap()
            .generate()
            .unwrap();
        let (_, upper) = crate::heuristic::heuristic_tour(&inst);
        let deadline = Instant::now() + Duration::from_secs(60);
        let (floored, _) = ascend(&inst, upper, Some(upper), deadline, None).unwrap();
        assert_eq!(floored.steps, GIVE_UP_AFTER, "{floored:?}");
        assert!(bound(&inst, upper).steps > GIVE_UP_AFTER);
    }

    #[test]
    fn the_bound_never_passes_the_optimum() {
        for class in ["tsmat", "stilt", "rtilt", "coin", "crane", "amat", "shop"] {
            for seed in 1..=4 {
                let spec = format!("{class}:8:{seed}");
                let inst = parse_generator_spec(&spec).unwrap().generate().unwrap();
                let optimum = brute_force(&inst);
                let found = bound(&inst, optimum);
                assert!(found.bound <= optimum, "{spec}: {found:?} > {optimum}");
                // An upper bound far above the optimum only changes the steps, never validity.
                let loose = bound(&inst, 2 * optimum + 1000);
                assert!(loose.bound <= optimum, "{spec}: {loose:?} > {optimum}");
            }
        }
    }

    /// The prices change every tour's cost by one constant.
    #[test]
    fn prices_shift_every_tour_alike() {
        use crate::heuristic::tour_cost;
        for spec in ["tsmat:30:1", "rtilt:30:2", "stilt:30:3"] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let deadline = Instant::now() + Duration::from_secs(60);
            let (_, upper) = crate::heuristic::heuristic_tour(&inst);
            let (_, prices) = ascend(&inst, upper, None, deadline, None).unwrap();
            let priced = |tour: &[usize]| -> i64 {
                (0..tour.len())
                    .map(|p| prices.price(&inst, tour[p], tour[(p + 1) % tour.len()]))
                    .sum()
            };
            let forward: Vec<usize> = (0..inst.n).collect();
            let shuffled: Vec<usize> = (0..inst.n).map(|i| (i * 7) % inst.n).collect();
            let shift = priced(&forward) - tour_cost(&inst, &forward);
            assert_eq!(
                priced(&shuffled) - tour_cost(&inst, &shuffled),
                shift,
                "{spec}"
            );
        }
    }

    #[test]
    fn a_symmetric_ring_is_bounded_at_its_cost() {
        // The ring 0 - 1 - ... - 9 - 0 costs 1 an edge, every other edge 100: the path
        // 1 - ... - 9 and city 0's edges to 1 and 9 are a 1-tree of cost 10, the ring's.
        assert_eq!(bound(&ring(10, true), 10).bound, 10);
    }

    #[test]
    fn it_closes_most_of_the_assignment_gap_on_a_symmetric_matrix() {
        let inst = parse_generator_spec("tsmat:60:3")
            .unwrap()
            .generate()
            .unwrap();
        let lap = assignment(&inst);
        let assignment_bound = lap.value(inst.n, &inst.cost);
        let (_, upper) = crate::heuristic::heuristic_tour(&inst);
        let found = bound(&inst, upper);
        assert!(found.bound <= upper);
        assert!(
            found.bound > assignment_bound,
            "{found:?} against the assignment's {assignment_bound}"
        );
    }

    #[test]
    fn a_bound_below_the_one_kept_is_noted_as_unused() {
        let weak = OneTree {
            bound: -40,
            steps: 7,
        };
        assert!(weak
            .note(1_000)
            .ends_with("after 7 steps (below the bound kept, 1000: not used)"));
        assert!(weak.note(-40).ends_with("after 7 steps"));
    }
}
