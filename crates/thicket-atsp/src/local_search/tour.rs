//! The tour a local search rewrites: cities in an array, where each city sits, the cost kept
//! up to date, what a segment's reversal would cost (a Fenwick tree over the arcs), and a
//! journal of rewritten positions so that a rejected kick is undone in the time it took.

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
    /// `flip[p]`: what reversing the arc from position `p` to the next one changes,
    /// `c(next, this) - c(this, next)`.
    flip: Vec<i64>,
    /// A Fenwick tree over `flip`, so that a segment's reversal is priced in O(log n).
    fenwick: Vec<i64>,
    /// `(position, city it held)` for every write since the last [`Tour::commit`], while
    /// journaling.
    journal: Vec<(usize, usize)>,
    journaling: bool,
    /// The cost at the last commit.
    committed_cost: i64,
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
        let mut tour = Tour {
            inst,
            n,
            order: start.to_vec(),
            pos,
            cost,
            flip: vec![0; n],
            fenwick: vec![0; n + 1],
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
        let from = self.wrap(from);
        let end = from + arcs;
        if end <= self.n {
            self.prefix(end) - self.prefix(from)
        } else {
            self.prefix(self.n) - self.prefix(from) + self.prefix(end - self.n)
        }
    }

    /// The sum of `flip[..end]`.
    fn prefix(&self, end: usize) -> i64 {
        let mut sum = 0;
        let mut i = end;
        while i > 0 {
            sum += self.fenwick[i];
            i &= i - 1;
        }
        sum
    }

    /// Recomputes `flip[p]` (and the tree) after the cities at `p` or `p + 1` changed.
    fn refresh_flip(&mut self, p: usize) {
        let (x, y) = (self.order[p], self.at(p + 1));
        let value = self.c(y, x) - self.c(x, y);
        let change = value - std::mem::replace(&mut self.flip[p], value);
        if change != 0 {
            let mut i = p + 1;
            while i <= self.n {
                self.fenwick[i] += change;
                i += i & i.wrapping_neg();
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
