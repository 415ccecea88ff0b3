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
            reversals,
            journal: Vec::new(),
            journaling: false,
            committed_cost: cost,
        };
        for p in 0..n {
            tour.refresh_flip(p);
        }
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

    /// Position `p` taken modulo n by subtraction: the moves' positions are below 3n, and a
    /// division in every lookup was a large part of pricing a move.
    fn wrap(&self, mut p: usize) -> usize {
        while p >= self.n {
            p -= self.n;
        }
        p
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

    /// Recomputes `flip[p]` (and the tree) after the cities at `p` or `p + 1` changed.
    fn refresh_flip(&mut self, p: usize) {
        let (inst, n) = (self.inst, self.n);
        let (x, y) = (self.order[p], self.at(p + 1));
        if let Reversals::Summed { flip, fenwick } = &mut self.reversals {
            let value = inst.cost(y, x) - inst.cost(x, y);
            let change = value - std::mem::replace(&mut flip[p], value);
            if change != 0 {
                let mut i = p + 1;
                while i <= n {
                    fenwick[i] += change;
                    i += i & i.wrapping_neg();
                }
            }
        }
    }

    /// Writes `cities` from position `start` on (cyclically) and adds `delta` to the cost.
    pub(super) fn write(&mut self, start: usize, cities: &[usize], delta: i64) {
        let n = self.n;
        for (i, &city) in cities.iter().enumerate() {
            let p = (start + i) % n;
            if self.journaling {
                self.journal.push((p, self.order[p]));
            }
            self.order[p] = city;
            self.pos[city] = p;
        }
        for i in 0..(cities.len() + 1).min(n) {
            self.refresh_flip((start + n - 1 + i) % n);
        }
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
        while let Some((p, city)) = self.journal.pop() {
            self.order[p] = city;
            self.pos[city] = p;
            self.refresh_flip(p);
            self.refresh_flip((p + n - 1) % n);
        }
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
}
