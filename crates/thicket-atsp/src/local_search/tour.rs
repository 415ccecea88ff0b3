//! The tour a local search rewrites: cities in an array, where each city sits, the cost kept
//! up to date, what a segment's reversal would cost (in O(1) where the costs are symmetric up
//! to a potential, else a Fenwick tree over the arcs), and a journal of rewritten positions so
//! that a rejected kick is undone in the time it took.

use super::super::heuristic::tour_cost;
use super::super::instance::Instance;

/// A tour under local search (a clone is a chain's restart from another chain's tour).
#[derive(Clone)]
pub(super) struct Tour<'a> {
    inst: &'a Instance,
    /// Cities.
    pub(super) n: usize,
    /// Cities in tour order.
    order: Vec<usize>,
    /// Where each city is in `order`.
    pos: Vec<usize>,
    /// The tour's cost, kept up to date by every move.
    pub(super) cost: i64,
    /// Every tour arc by its tail: `arcs[x]` the arc from `x` to the city after it, its cost
    /// and its flip (see [`Reversals::Summed`]), kept up to date by every write. A move that
    /// keeps its segments' arcs (every pure move, most of a swap's cities) rewrites positions
    /// whose arcs are unchanged, found here instead of in the matrix, and the moves read the
    /// tour's arcs here in order where the matrix would be read at random (at n = 3,000 both
    /// missed the cache; the kicks it saves are in docs/benchmarks.md, twentieth round).
    arcs: Vec<Arc>,
    /// How a segment's reversal is priced.
    reversals: Reversals,
    /// `(position, city it held)` for every write since the last [`Tour::commit`], while
    /// journaling.
    journal: Vec<(usize, usize)>,
    journaling: bool,
    /// The cost at the last commit.
    committed_cost: i64,
}

/// How [`Tour::reversal`] prices a segment's reversal.
#[derive(Clone)]
enum Reversals {
    /// Costs symmetric up to the potential `q`, `c(j, i) - c(i, j) = q(i) - q(j)` for every
    /// pair (`tsmat`, whose `q` is 0, and `rtilt`, whose climb is the potential): the arcs'
    /// changes telescope, so a path's reversal changes its cost by `q(first) - q(last)`, in
    /// O(1) and with nothing to keep up to date as the tour changes (kicks 10-18% faster on
    /// these classes than with the tree below).
    Potential(Vec<i64>),
    /// Any costs: `flip[p]` what reversing the arc from position `p` to the next one
    /// changes, `c(next, this) - c(this, next)`, and a Fenwick tree over `flip`, so that a
    /// reversal is priced in O(log n).
    Summed { flip: Vec<i64>, fenwick: Vec<i64> },
}

/// A tour arc from its tail: the city after it, the arc's cost and its flip (0 where the
/// reversals are priced by a potential).
#[derive(Clone, Copy)]
struct Arc {
    next: usize,
    cost: i64,
    flip: i64,
}

/// Position `p` taken modulo `n` by subtraction: the moves' positions are below 3n, and a
/// division in every lookup was a large part of pricing a move.
fn wrap(mut p: usize, n: usize) -> usize {
    while p >= n {
        p -= n;
    }
    p
}

/// Rewrites of at least `n / REBUILD` positions rebuild the Fenwick tree in O(n) instead of
/// updating it position by position in O(log n) each.
const REBUILD: usize = 8;

/// The potential `q` (with `q(0) = 0`) that makes the costs of `inst` symmetric, where one
/// does: `c(j, i) - c(i, j) = q(i) - q(j)` for every pair. O(n^2) where it exists; on
/// asymmetric costs the check fails within the first rows.
fn potential(inst: &Instance) -> Option<Vec<i64>> {
    let n = inst.n;
    let q: Vec<i64> = (0..n).map(|i| inst.cost(0, i) - inst.cost(i, 0)).collect();
    let explains = |i: usize, j: usize| inst.cost(j, i) - inst.cost(i, j) == q[i] - q[j];
    (1..n)
        .all(|i| (i + 1..n).all(|j| explains(i, j)))
        .then_some(q)
}

impl<'a> Tour<'a> {
    /// The tour `start` of `inst` (a permutation of its cities).
    pub(super) fn new(inst: &'a Instance, start: &[usize]) -> Tour<'a> {
        let n = inst.n;
        let mut pos = vec![0; n];
        for (p, &c) in start.iter().enumerate() {
            pos[c] = p;
        }
        let cost = tour_cost(inst, start);
        let reversals = match potential(inst) {
            Some(q) => Reversals::Potential(q),
            None => Reversals::Summed {
                flip: vec![0; n],
                fenwick: vec![0; n + 1],
            },
        };
        let mut tour = Tour {
            inst,
            n,
            order: start.to_vec(),
            pos,
            cost,
            arcs: vec![
                Arc {
                    next: usize::MAX,
                    cost: 0,
                    flip: 0
                };
                n
            ],
            reversals,
            journal: Vec::new(),
            journaling: false,
            committed_cost: cost,
        };
        tour.refresh_arcs(n, |p| p);
        tour
    }

    /// The arc cost from `i` to `j`.
    pub(super) fn c(&self, i: usize, j: usize) -> i64 {
        self.inst.cost(i, j)
    }

    /// The city at position `p` (cyclically).
    pub(super) fn at(&self, p: usize) -> usize {
        self.order[self.wrap(p)]
    }

    /// Position `p` taken modulo n (see [`wrap`]).
    fn wrap(&self, p: usize) -> usize {
        wrap(p, self.n)
    }

    /// Where `city` is.
    pub(super) fn pos(&self, city: usize) -> usize {
        self.pos[city]
    }

    pub(super) fn next(&self, city: usize) -> usize {
        self.at(self.pos[city] + 1)
    }

    pub(super) fn prev(&self, city: usize) -> usize {
        self.at(self.pos[city] + self.n - 1)
    }

    /// How far after `a` city `x` comes along the tour (0 for `a` itself).
    pub(super) fn offset(&self, a: usize, x: usize) -> usize {
        self.wrap(self.pos[x] + self.n - self.pos[a])
    }

    /// The cities in tour order.
    pub(super) fn cities(&self) -> &[usize] {
        &self.order
    }

    /// What reversing the `arcs` arcs from position `from` on changes (0 for none).
    pub(super) fn reversal(&self, from: usize, arcs: usize) -> i64 {
        let fenwick = match &self.reversals {
            Reversals::Potential(q) => return q[self.at(from)] - q[self.at(from + arcs)],
            Reversals::Summed { fenwick, .. } => fenwick,
        };
        let prefix = |end: usize| {
            let (mut sum, mut i) = (0, end);
            while i > 0 {
                sum += fenwick[i];
                i &= i - 1;
            }
            sum
        };
        let from = self.wrap(from);
        let end = from + arcs;
        if end <= self.n {
            prefix(end) - prefix(from)
        } else {
            prefix(self.n) - prefix(from) + prefix(end - self.n)
        }
    }

    /// The cost of the tour's arc out of `city` (to the city after it).
    pub(super) fn out_cost(&self, city: usize) -> i64 {
        self.arcs[city].cost
    }

    /// Brings the arc from position `p` to the next up to date in `arcs` (reading the matrix
    /// only where the arc is not the one kept for its tail); returns its flip.
    fn refresh_arc(&mut self, p: usize) -> i64 {
        let inst = self.inst;
        let (x, y) = (self.order[p], self.at(p + 1));
        let arc = &mut self.arcs[x];
        if arc.next != y {
            let cost = inst.cost(x, y);
            let flip = match self.reversals {
                Reversals::Summed { .. } => inst.cost(y, x) - cost,
                Reversals::Potential(_) => 0,
            };
            *arc = Arc {
                next: y,
                cost,
                flip,
            };
        }
        arc.flip
    }

    /// Refreshes the arcs from `position(i)` for `i` in `0..count` (positions whose arc's
    /// cities may have changed), with their flips and the tree: one by one where they are
    /// few, else each flip and then the whole tree in O(n).
    fn refresh_arcs(&mut self, count: usize, position: impl Fn(usize) -> usize) {
        let n = self.n;
        let one_by_one = count < n / REBUILD;
        for i in 0..count {
            let p = position(i);
            let value = self.refresh_arc(p);
            if let Reversals::Summed { flip, fenwick } = &mut self.reversals {
                let change = value - std::mem::replace(&mut flip[p], value);
                if one_by_one && change != 0 {
                    let mut i = p + 1;
                    while i <= n {
                        fenwick[i] += change;
                        i += i & i.wrapping_neg();
                    }
                }
            }
        }
        if let (false, Reversals::Summed { flip, fenwick }) = (one_by_one, &mut self.reversals) {
            fenwick[1..].copy_from_slice(flip);
            fenwick[0] = 0;
            for i in 1..=n {
                let parent = i + (i & i.wrapping_neg());
                if parent <= n {
                    fenwick[parent] += fenwick[i];
                }
            }
        }
    }

    /// Writes `cities` from position `start` on (cyclically) and adds `delta` to the cost.
    pub(super) fn write(&mut self, start: usize, cities: &[usize], delta: i64) {
        let n = self.n;
        for (i, &city) in cities.iter().enumerate() {
            let p = self.wrap(start + i);
            if self.journaling {
                self.journal.push((p, self.order[p]));
            }
            self.order[p] = city;
            self.pos[city] = p;
        }
        // The arcs from the position before the first written one to the last written one.
        let (first, arcs) = (self.wrap(start + n - 1), (cities.len() + 1).min(n));
        self.refresh_arcs(arcs, |i| wrap(first + i, n));
        self.cost += delta;
    }

    /// Starts (or stops) recording writes for [`Tour::undo`], from the tour as it is.
    pub(super) fn journal(&mut self, on: bool) {
        self.journaling = on;
        self.commit();
    }

    /// Keeps the tour as it is: later undos come back to it.
    pub(super) fn commit(&mut self) {
        self.journal.clear();
        self.committed_cost = self.cost;
    }

    /// Comes back to the tour of the last commit.
    pub(super) fn undo(&mut self) {
        let n = self.n;
        for &(p, city) in self.journal.iter().rev() {
            self.order[p] = city;
            self.pos[city] = p;
        }
        // Each rewritten position's arc and the arc into it.
        let journal = std::mem::take(&mut self.journal);
        self.refresh_arcs(2 * journal.len(), |i| {
            let p = journal[i / 2].0;
            wrap(p + (i % 2) * (n - 1), n)
        });
        self.journal = journal;
        self.journal.clear();
        self.cost = self.committed_cost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::parse_generator_spec;

    /// The classes symmetric up to a potential have one (tsmat's is 0), the others none;
    /// the potential explains every pair's difference.
    #[test]
    fn a_potential_is_found_where_it_explains_the_asymmetry() {
        for (spec, expected) in [
            ("tsmat:40:1", true),
            ("rtilt:40:2", true),
            ("stilt:40:3", false),
            ("crane:40:4", false),
            ("amat:40:5", false),
        ] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let q = potential(&inst);
            assert_eq!(q.is_some(), expected, "{spec}");
            if let Some(q) = q {
                for i in 0..inst.n {
                    for j in 0..inst.n {
                        if i != j {
                            assert_eq!(inst.cost(j, i) - inst.cost(i, j), q[i] - q[j], "{spec}");
                        }
                    }
                }
                assert_eq!(
                    q.iter().all(|&x| x == 0),
                    spec.starts_with("tsmat"),
                    "{spec}"
                );
            }
        }
    }

    /// After short and long rewrites (the tree updated position by position, or rebuilt)
    /// and undos, every arc kept by its tail and every reversal's price agree with the
    /// matrix, on asymmetric costs and on costs symmetric up to a potential.
    #[test]
    fn arcs_and_reversal_prices_follow_writes_and_undos() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        for spec in ["stilt:40:1", "rtilt:33:2"] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let n = inst.n;
            let start: Vec<usize> = (0..n).collect();
            let mut tour = Tour::new(&inst, &start);
            tour.journal(true);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            for round in 0..60 {
                let len = if round % 2 == 0 {
                    2
                } else {
                    rng.random_range(n / 2..n)
                };
                let from = rng.random_range(0..2 * n);
                let mut cities: Vec<usize> = (0..len).map(|i| tour.at(from + i)).collect();
                cities.shuffle(&mut rng);
                let before = tour.cities().to_vec();
                let mut after = before.clone();
                for (i, &city) in cities.iter().enumerate() {
                    after[(from + i) % n] = city;
                }
                let delta = tour_cost(&inst, &after) - tour_cost(&inst, &before);
                tour.write(from, &cities, delta);
                if round % 3 == 2 {
                    tour.undo();
                } else {
                    tour.commit();
                }
                let order = tour.cities().to_vec();
                assert_eq!(tour.cost, tour_cost(&inst, &order), "{spec} {round}");
                for p in 0..n {
                    let (x, y) = (order[p], order[(p + 1) % n]);
                    assert_eq!(tour.out_cost(x), inst.cost(x, y), "{spec} {round} {p}");
                    for arcs in [0, 1, 5, n - 1] {
                        let change: i64 = (0..arcs)
                            .map(|i| (order[(p + i) % n], order[(p + i + 1) % n]))
                            .map(|(x, y)| inst.cost(y, x) - inst.cost(x, y))
                            .sum();
                        assert_eq!(tour.reversal(p, arcs), change, "{spec} {round} {p}");
                    }
                }
            }
        }
    }
}
