//! A Held–Karp-style Lagrangian bound on completing a partial tour: the cheapest
//! 1-arborescence with out-degree penalties, improved by subgradient steps.
//!
//! The path from city 0 to `last` is contracted into one node P whose outgoing arcs are
//! those of `last` and whose incoming arcs are those into city 0; a completion is then a
//! Hamiltonian cycle through P and the unvisited cities. Every such cycle is a spanning
//! arborescence rooted at P plus one arc into P, in which every node has out-degree 1.
//! Dropping the out-degree constraints into the cost with multipliers `pi` (arc `i -> j`
//! costs `c(i, j) + pi[i]`, and `sum(pi)` is subtracted) leaves a problem solved exactly by
//! a minimum arborescence, and its value bounds the completion from below for any `pi`.
//! Subgradient ascent on `pi` (step towards out-degree 1) approaches the linear-programming
//! bound with subtour elimination, which is far stronger than the assignment bound where
//! cheap subtours abound (p43's assignment bound is 148 against an optimum of 5620, its
//! Held–Karp bound 5611).
//!
//! Should the arborescence have every out-degree equal to 1, it is a Hamiltonian cycle whose
//! Lagrangian value equals its cost: the cheapest completion itself.
//!
//! Arcs that break the order in which twins are visited (see `twins`) are given a
//! prohibitive cost, as in the assignment bound.

use std::time::Instant;

use super::arborescence::Arborescence;
use super::instance::{Instance, MAX_COST, MAX_N};
use super::twins::Twins;

/// The cost of an arc the relaxation must not use: above any tour's cost.
const FORBIDDEN: f64 = 4.0 * MAX_COST as f64 * MAX_N as f64;

/// Relative slack taken off the floating-point bound before rounding it up, far above the
/// rounding error of summing at most [`MAX_N`] terms in `f64`.
const ROUNDING_SLACK: f64 = 1e-7;

/// How hard the subgradient ascent tries at one node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    /// Arborescences computed at most.
    pub(crate) iterations: usize,
    /// The initial step factor (Polyak's step towards the target is scaled by it).
    pub(crate) step: f64,
    /// Iterations without improvement after which the step factor is halved.
    pub(crate) patience: usize,
    /// How much of the previous direction the next one keeps (deflected subgradient).
    pub(crate) deflection: f64,
    /// Stop the ascent at this instant with the best bound so far (checked every
    /// [`DEADLINE_EVERY`] iterations).
    pub(crate) deadline: Option<Instant>,
}

/// How often (in iterations) the ascent looks at the clock.
const DEADLINE_EVERY: usize = 16;

/// What the bound found out about a completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// No completion costs less than this.
    Bound(i64),
    /// The cheapest completion: the unvisited cities in tour order after `last`.
    Tour(Vec<usize>),
}

/// Work space of the bound (reused across nodes to avoid allocation).
#[derive(Debug, Clone, Default)]
pub(crate) struct HeldKarp {
    arborescence: Arborescence,
    /// Costs without multipliers, `k * k` for the `k` nodes (P first).
    base: Vec<f64>,
    parent: Vec<usize>,
    degree: Vec<i64>,
    /// The city whose multiplier each node carries (P carries `last`'s).
    owner: Vec<usize>,
    best_pi: Vec<f64>,
    /// The deflected ascent direction per node.
    dir: Vec<f64>,
    /// Reduced costs of the arcs out of P.
    reduced: Vec<f64>,
}

impl HeldKarp {
    /// Bounds from below the cheapest path from `last` through every city of `cities` to
    /// city 0. `pi` (indexed by city) is the starting point of the ascent and returns the
    /// best multipliers found; the ascent stops early once the bound reaches `target`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bound(
        &mut self,
        inst: &Instance,
        twins: &Twins,
        last: usize,
        cities: &[usize],
        pi: &mut [f64],
        target: i64,
        schedule: &Schedule,
    ) -> Outcome {
        let k = cities.len() + 1;
        self.prepare(inst, twins, last, cities);
        self.best_pi.clear();
        self.best_pi.extend_from_slice(pi);
        let mut best = f64::NEG_INFINITY;
        let mut step = schedule.step;
        let mut stale = 0;
        self.dir.clear();
        self.dir.resize(k, 0.0);
        for iteration in 0..schedule.iterations {
            let late = |d: Instant| iteration % DEADLINE_EVERY == 0 && Instant::now() >= d;
            if iteration > 0 && schedule.deadline.is_some_and(late) {
                break;
            }
            let value = self.evaluate(k, pi);
            let scale = value.abs() + self.owner.iter().map(|&c| pi[c].abs()).sum::<f64>() + 1.0;
            let rounded = (value - ROUNDING_SLACK * scale).ceil() as i64;
            if value > best {
                best = value;
                self.best_pi.copy_from_slice(pi);
                stale = 0;
            } else {
                stale += 1;
                if stale >= schedule.patience {
                    step /= 2.0;
                    stale = 0;
                }
            }
            if rounded >= target {
                return Outcome::Bound(rounded);
            }
            if self.degree[..k].iter().all(|&d| d == 1) {
                return Outcome::Tour(self.cycle(k, cities));
            }
            // Keeping part of the last direction damps the zig-zag of plain subgradient
            // steps, which otherwise crawl on instances like p43.
            for a in 0..k {
                self.dir[a] = (self.degree[a] - 1) as f64 + schedule.deflection * self.dir[a];
            }
            let dnorm: f64 = self.dir[..k].iter().map(|d| d * d).sum();
            let t = step * (target as f64 - value) / dnorm.max(1e-9);
            for a in 0..k {
                pi[self.owner[a]] += t * self.dir[a];
            }
        }
        pi.copy_from_slice(&self.best_pi);
        let scale = best.abs() + self.owner.iter().map(|&c| pi[c].abs()).sum::<f64>() + 1.0;
        Outcome::Bound((best - ROUNDING_SLACK * scale).ceil() as i64)
    }

    /// Lower bounds on the completion after each first step from `last`, from one
    /// 1-arborescence at `pi`: `out[i]` bounds the cheapest path from `last` through
    /// `cities[i]` first and then all other `cities` to city 0 (its Lagrangian value plus the
    /// reduced cost of that first arc), less the cost of that first arc.
    pub(crate) fn first_step_bounds(
        &mut self,
        inst: &Instance,
        twins: &Twins,
        last: usize,
        cities: &[usize],
        pi: &[f64],
        out: &mut Vec<i64>,
    ) {
        let k = cities.len() + 1;
        self.prepare(inst, twins, last, cities);
        let value = self.evaluate(k, pi);
        self.arborescence.reduced_costs_from_root(&mut self.reduced);
        let scale = value.abs() + self.owner.iter().map(|&c| pi[c].abs()).sum::<f64>() + 1.0;
        out.clear();
        out.extend(cities.iter().enumerate().map(|(i, &city)| {
            let total = value + self.reduced[i + 1] - inst.cost(last, city) as f64;
            (total - ROUNDING_SLACK * (scale + total.abs())).ceil() as i64
        }));
    }

    /// Fills the multiplier-free costs of the contracted problem.
    fn prepare(&mut self, inst: &Instance, twins: &Twins, last: usize, cities: &[usize]) {
        let k = cities.len() + 1;
        self.owner.clear();
        self.owner.push(last);
        self.owner.extend_from_slice(cities);
        self.base.clear();
        for a in 0..k {
            let from = self.owner[a];
            for b in 0..k {
                let to = if b == 0 { 0 } else { cities[b - 1] };
                let cost = if a == b || !twins.arc_allowed(from, to) {
                    FORBIDDEN
                } else {
                    inst.cost(from, to) as f64
                };
                self.base.push(cost);
            }
        }
        self.parent.resize(k, 0);
        self.degree.resize(k, 0);
    }

    /// The Lagrangian value at `pi`, leaving the 1-arborescence's out-degrees in `degree`
    /// and its arcs in `parent` (the arc into P is the one from `parent[0]`).
    fn evaluate(&mut self, k: usize, pi: &[f64]) -> f64 {
        let weights = self.arborescence.weights(k);
        for a in 0..k {
            let p = pi[self.owner[a]];
            for b in 0..k {
                weights[a * k + b] = self.base[a * k + b] + p;
            }
        }
        self.arborescence.solve(k, 0, &mut self.parent);
        let back = (1..k)
            .min_by(|&x, &y| {
                let into_p = |a: usize| self.base[a * k] + pi[self.owner[a]];
                into_p(x).total_cmp(&into_p(y))
            })
            .expect("a contracted problem has at least two nodes");
        self.parent[0] = back;
        self.degree[..k].fill(0);
        let mut value = 0.0;
        for v in 0..k {
            let u = self.parent[v];
            self.degree[u] += 1;
            value += self.base[u * k + v] + pi[self.owner[u]] - pi[self.owner[v]];
        }
        value
    }

    /// The Hamiltonian cycle that an arborescence of out-degrees 1 forms, as the cities after
    /// P in order.
    fn cycle(&self, k: usize, cities: &[usize]) -> Vec<usize> {
        let mut next = vec![0; k];
        for v in 0..k {
            next[self.parent[v]] = v;
        }
        let mut order = Vec::with_capacity(k - 1);
        let mut at = next[0];
        while at != 0 {
            order.push(cities[at - 1]);
            at = next[at];
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heuristic::tour_cost;
    use crate::test_support::{cheapest_completion, lcg_below};

    fn sample(n: usize, seed: u64, top: u64) -> Instance {
        let mut x = seed;
        let cost = (0..n * n).map(|_| lcg_below(&mut x, top) as i64).collect();
        Instance::new("hk", n, cost).unwrap()
    }

    #[test]
    fn the_bound_never_exceeds_the_cheapest_completion_and_tours_are_cheapest() {
        let schedule = Schedule {
            iterations: 200,
            step: 1.0,
            patience: 10,
            deflection: 0.7,
            deadline: None,
        };
        let mut hk = HeldKarp::default();
        for seed in 0..60 {
            let n = 3 + seed as usize % 5;
            let inst = sample(n, seed, if seed % 2 == 0 { 5 } else { 90 });
            let none = Twins::none(n);
            // The path 0 -> 1 (or city 0 alone) leaves the other cities to complete.
            for (last, cities) in [(0, (1..n).collect::<Vec<_>>()), (1, (2..n).collect())] {
                let best = cheapest_completion(&inst, last, &cities);
                for target in [best, best + 1, i64::from(u16::MAX)] {
                    let mut pi = vec![0.0; n];
                    match hk.bound(&inst, &none, last, &cities, &mut pi, target, &schedule) {
                        Outcome::Bound(b) => assert!(b <= best, "seed {seed}: {b} > {best}"),
                        Outcome::Tour(order) => {
                            let mut tour: Vec<usize> = (0..=last).collect();
                            tour.extend(&order);
                            let path_cost: i64 = (0..last).map(|c| inst.cost(c, c + 1)).sum();
                            assert_eq!(tour_cost(&inst, &tour) - path_cost, best, "seed {seed}");
                        }
                    }
                }
            }
        }
    }
}
