//! Anytime tour improvement: an iterated local search that never reverses a segment.
//!
//! With asymmetric costs a reversed segment changes cost unpredictably, so every move here
//! keeps each segment's orientation. The one move is the orientation-preserving 3-opt
//! ("or-3opt"): three arcs `a -> a'`, `b -> b'`, `c -> c'`, in tour order, are replaced by
//! `a -> b'`, `c -> a'`, `b -> c'`, which swaps the segments `a'..b` and `b'..c`. Or-opt
//! (moving a short segment elsewhere) is the case of a short segment. The move is the same
//! whichever of its three arcs is called the first, so searching each city as `a` with two
//! of the three new arcs drawn from neighbour lists (the `K` cheapest successors of a city,
//! the `K` cheapest predecessors) finds every improving move two of whose new arcs are in
//! those lists, at O(K^2) a city. Cities whose neighbourhood held no improving move are
//! skipped until a move touches them (don't-look bits, kept as a queue of active cities).
//!
//! Local optima are left by a kick, the double bridge: two adjacent segments of random
//! lengths (at most `KICK_SEGMENT` cities, so that the kick is local and the repair cheap)
//! are swapped, which in an asymmetric tour is itself an orientation-preserving 3-opt move
//! the neighbour lists rarely undo. The kicked tour is kept when its local optimum costs no
//! more than the best, else the best is restored. The search stops at its deadline, at the
//! caller's stop request, or after `stale` kicks without a better tour.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thicket_core::{Progress, Result};

use super::heuristic::tour_cost;
use super::instance::Instance;
use super::verify::verify;

/// Neighbour-list length: the 10 cheapest successors and predecessors of every city (5, 8,
/// 10 and 12 were within noise of each other on generated instances at n = 100 and 316,
/// 2026-12-02; 5 was the worst).
const K: usize = 10;

/// The longest segment a kick moves (10, 25 and 50 were tried; 25 was as good as the best
/// on every class).
const KICK_SEGMENT: usize = 25;

/// Kicks between two looks at the clock and the stop flag (a kick takes microseconds).
const CHECK_EVERY: u64 = 16;

/// Where the search stops besides its deadline.
pub(crate) struct Limits {
    /// Stop at this instant.
    pub(crate) deadline: Instant,
    /// Stop after this many kicks in a row that found no cheaper tour.
    pub(crate) stale: u64,
    /// The seed of the kicks (fixed, so that a run is repeatable up to the clock).
    pub(crate) seed: u64,
}

/// What the search did, for the run's notes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Improved {
    /// The cost of the tour it started from.
    pub(crate) from: i64,
    /// The cost of the best tour it found.
    pub(crate) to: i64,
    /// Kicks made.
    pub(crate) kicks: u64,
}

impl Improved {
    /// One line for the run's notes.
    pub(crate) fn note(&self) -> String {
        format!(
            "local search (or-3opt, double-bridge kicks) improved the tour from {} to {} in {} kicks",
            self.from, self.to, self.kicks
        )
    }
}

/// Improves `start` (a tour of `inst`) until `limits` or the caller's stop; returns the best
/// tour from city 0, its cost (recomputed and checked by [`verify`]) and what it did.
pub(crate) fn improve_tour(
    inst: &Instance,
    start: &[usize],
    limits: &Limits,
    progress: &Progress,
) -> Result<(i64, Vec<usize>, Improved)> {
    let from = tour_cost(inst, start);
    let mut search = Search::new(inst, start);
    let mut kicks = 0;
    if inst.n >= 5 {
        search.descend_all();
        let mut best = search.tour.clone();
        let mut best_cost = search.cost;
        let mut rng = ChaCha8Rng::seed_from_u64(limits.seed);
        let mut stale = 0;
        while stale < limits.stale {
            if kicks % CHECK_EVERY == 0
                && (Instant::now() >= limits.deadline || progress.stop_requested())
            {
                break;
            }
            kicks += 1;
            search.kick(&mut rng);
            search.descend();
            if search.cost < best_cost {
                stale = 0;
            } else {
                stale += 1;
            }
            if search.cost <= best_cost {
                best.clone_from(&search.tour);
                best_cost = search.cost;
            } else {
                search.restore(&best, best_cost);
            }
        }
    }
    let mut tour = search.tour;
    let zero = tour
        .iter()
        .position(|&c| c == 0)
        .expect("a tour visits city 0");
    tour.rotate_left(zero);
    // The incremental cost is checked against the tour itself.
    verify(inst, &tour, search.cost)?;
    let to = search.cost;
    Ok((to, tour, Improved { from, to, kicks }))
}

/// The tour being improved and its neighbour lists.
struct Search<'a> {
    inst: &'a Instance,
    n: usize,
    /// Cities in tour order.
    tour: Vec<usize>,
    /// Where each city is in `tour`.
    pos: Vec<usize>,
    /// The tour's cost, kept up to date by every move.
    cost: i64,
    /// `succ_near[i * k..]`: the `k` cheapest successors of city i, cheapest first.
    succ_near: Vec<usize>,
    /// `pred_near[j * k..]`: the `k` cheapest predecessors of city j, cheapest first.
    pred_near: Vec<usize>,
    k: usize,
    /// Cities whose neighbourhood may hold an improving move, and whether each is queued.
    queue: Vec<usize>,
    queued: Vec<bool>,
    /// Room for the segments a move rewrites.
    buffer: Vec<usize>,
}

impl<'a> Search<'a> {
    fn new(inst: &'a Instance, start: &[usize]) -> Search<'a> {
        let n = inst.n;
        let k = K.min(n - 1);
        let mut succ_near = Vec::with_capacity(n * k);
        let mut pred_near = Vec::with_capacity(n * k);
        let mut others: Vec<usize> = Vec::with_capacity(n);
        for i in 0..n {
            others.clear();
            others.extend((0..n).filter(|&j| j != i));
            others.select_nth_unstable_by_key(k - 1, |&j| inst.cost(i, j));
            let mut near = others[..k].to_vec();
            near.sort_by_key(|&j| inst.cost(i, j));
            succ_near.extend(near);
            others.clear();
            others.extend((0..n).filter(|&j| j != i));
            others.select_nth_unstable_by_key(k - 1, |&j| inst.cost(j, i));
            let mut near = others[..k].to_vec();
            near.sort_by_key(|&j| inst.cost(j, i));
            pred_near.extend(near);
        }
        let mut pos = vec![0; n];
        for (p, &c) in start.iter().enumerate() {
            pos[c] = p;
        }
        Search {
            inst,
            n,
            tour: start.to_vec(),
            pos,
            cost: tour_cost(inst, start),
            succ_near,
            pred_near,
            k,
            queue: Vec::new(),
            queued: vec![false; n],
            buffer: Vec::with_capacity(n),
        }
    }

    fn c(&self, i: usize, j: usize) -> i64 {
        self.inst.cost(i, j)
    }

    fn next(&self, city: usize) -> usize {
        self.tour[(self.pos[city] + 1) % self.n]
    }

    fn prev(&self, city: usize) -> usize {
        self.tour[(self.pos[city] + self.n - 1) % self.n]
    }

    /// How far after `a` city `x` comes along the tour (0 for `a` itself).
    fn offset(&self, a: usize, x: usize) -> usize {
        (self.pos[x] + self.n - self.pos[a]) % self.n
    }

    fn activate(&mut self, city: usize) {
        if !std::mem::replace(&mut self.queued[city], true) {
            self.queue.push(city);
        }
    }

    /// Local search from every city.
    fn descend_all(&mut self) {
        for city in 0..self.n {
            self.activate(city);
        }
        self.descend();
    }

    /// Applies improving moves until no active city has one.
    fn descend(&mut self) {
        while let Some(a) = self.queue.pop() {
            self.queued[a] = false;
            if let Some((b2, c)) = self.improving_move(a) {
                self.apply(a, b2, c);
            }
        }
    }

    /// An improving or-3opt move with `a` as its first tail, as `(b', c)` (see the module).
    fn improving_move(&self, a: usize) -> Option<(usize, usize)> {
        let k = self.k;
        let a1 = self.next(a);
        let out_a = self.c(a, a1);
        for &b2 in &self.succ_near[a * k..(a + 1) * k] {
            let g1 = out_a - self.c(a, b2);
            if g1 <= 0 {
                // Neighbours are cheapest first: no later one gains on the first arc.
                break;
            }
            let ob2 = self.offset(a, b2);
            if ob2 < 2 {
                continue;
            }
            let b = self.prev(b2);
            let g2 = g1 + self.c(b, b2);
            // The third new arc `c -> a'` from a' 's cheapest predecessors.
            for &c in &self.pred_near[a1 * k..(a1 + 1) * k] {
                if self.offset(a, c) < ob2 {
                    continue;
                }
                let c1 = self.next(c);
                if g2 + self.c(c, c1) - self.c(c, a1) - self.c(b, c1) > 0 {
                    return Some((b2, c));
                }
            }
            // The second new arc `b -> c'` from b's cheapest successors.
            for &c1 in &self.succ_near[b * k..(b + 1) * k] {
                let c = self.prev(c1);
                if self.offset(a, c) < ob2 {
                    continue;
                }
                if g2 + self.c(c, c1) - self.c(c, a1) - self.c(b, c1) > 0 {
                    return Some((b2, c));
                }
            }
        }
        None
    }

    /// Swaps the segments `a'..b` and `b'..c` (`b'` and `c` after `a` in that order), rewriting
    /// whichever two of the tour's three segments are shortest: all three swaps give the
    /// same cyclic tour.
    fn apply(&mut self, a: usize, b2: usize, c: usize) {
        let n = self.n;
        let (a1, b, c1) = (self.next(a), self.prev(b2), self.next(c));
        self.cost += self.c(a, b2) + self.c(c, a1) + self.c(b, c1)
            - self.c(a, a1)
            - self.c(b, b2)
            - self.c(c, c1);
        let (ob2, oc) = (self.offset(a, b2), self.offset(a, c));
        let (l1, l2, l3) = (ob2 - 1, oc - ob2 + 1, n - oc);
        let p = self.pos[a];
        if l1 + l2 <= l2 + l3 && l1 + l2 <= l3 + l1 {
            self.swap_adjacent(p + 1, l1, l2);
        } else if l2 + l3 <= l3 + l1 {
            self.swap_adjacent(p + ob2, l2, l3);
        } else {
            self.swap_adjacent(p + oc + 1, l3, l1);
        }
        for city in [a, a1, b, b2, c, c1] {
            self.activate(city);
        }
    }

    /// Replaces the `x` cities from position `start` (cyclically) and the `y` after them by
    /// the `y` then the `x`.
    fn swap_adjacent(&mut self, start: usize, x: usize, y: usize) {
        let n = self.n;
        self.buffer.clear();
        self.buffer
            .extend((x..x + y).chain(0..x).map(|i| self.tour[(start + i) % n]));
        for (i, &city) in self.buffer.iter().enumerate() {
            let p = (start + i) % n;
            self.tour[p] = city;
            self.pos[city] = p;
        }
    }

    /// The double bridge: swaps two adjacent segments of random lengths at a random place.
    fn kick(&mut self, rng: &mut ChaCha8Rng) {
        let n = self.n;
        let longest = KICK_SEGMENT.min((n - 2) / 2);
        let (l1, l2) = (rng.random_range(1..=longest), rng.random_range(1..=longest));
        let a = self.tour[rng.random_range(0..n)];
        let b2 = self.tour[(self.pos[a] + 1 + l1) % n];
        let c = self.tour[(self.pos[a] + l1 + l2) % n];
        self.apply(a, b2, c);
    }

    /// Makes `tour` (of cost `cost`) the current tour again, nothing queued.
    fn restore(&mut self, tour: &[usize], cost: i64) {
        self.tour.copy_from_slice(tour);
        for (p, &city) in tour.iter().enumerate() {
            self.pos[city] = p;
        }
        self.cost = cost;
        for city in self.queue.drain(..) {
            self.queued[city] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_generator_spec;
    use std::time::Duration;

    fn limits(stale: u64) -> Limits {
        Limits {
            deadline: Instant::now() + Duration::from_secs(60),
            stale,
            seed: 1,
        }
    }

    #[test]
    fn segment_swaps_find_the_ring() {
        // The cheap cycle is 0 -> 1 -> ... -> 9 -> 0; every other arc costs 100.
        let n = 10;
        let mut cost = vec![100; n * n];
        for i in 0..n {
            cost[i * n + (i + 1) % n] = 1;
        }
        let inst = Instance::new("ring", n, cost).unwrap();
        let start = [0, 5, 2, 7, 4, 9, 6, 1, 8, 3];
        let (cost, tour, improved) =
            improve_tour(&inst, &start, &limits(200), &Progress::hidden()).unwrap();
        assert_eq!((cost, tour), (10, (0..n).collect::<Vec<_>>()));
        assert_eq!(improved.from, tour_cost(&inst, &start));
    }

    #[test]
    fn every_improved_tour_is_a_checked_tour_no_dearer_than_its_start() {
        for spec in [
            "coin:60:1",
            "crane:60:2",
            "tsmat:60:3",
            "tsmat:7:4",
            "coin:5:5",
        ] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let start: Vec<usize> = (0..inst.n).rev().collect();
            let (cost, tour, improved) =
                improve_tour(&inst, &start, &limits(300), &Progress::hidden()).unwrap();
            verify(&inst, &tour, cost).unwrap();
            assert!(cost <= tour_cost(&inst, &start), "{spec}");
            assert_eq!(improved.to, cost);
        }
    }
}
