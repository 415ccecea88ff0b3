//! The moves of the local search and where it looks for them.
//!
//! A move cuts the tour after `a`, after `b` and after `c` (in tour order, `b` at offset
//! `ob` after `a`, `c` at `oc`), into `S1 = a'..b`, `S2 = b'..c` and the rest, and puts
//! `S1` and `S2` back between `a` and `c'` in another order or orientation (`x'` is the
//! city after `x`):
//!
//! | kind | after `a` | new arcs | reversed |
//! |---|---|---|---|
//! | `Swap` (or-3opt) | `S2 S1` | `a->b'`, `c->a'`, `b->c'` | none |
//! | `SwapFlipFirst` | `S2 ~S1` | `a->b'`, `c->b`, `a'->c'` | `S1` |
//! | `FlipSecond` | `~S2 S1` | `a->c`, `b'->a'`, `b->c'` | `S2` |
//! | `FlipBoth` | `~S1 ~S2` | `a->b`, `a'->c`, `b'->c'` | both |
//! | `TwoOpt` (no `S2`) | `~S1` | `a->b`, `a'->b'` | `S1` |
//!
//! A reversed segment's arcs change cost with asymmetric costs, which the tour prices in
//! O(log n) ([`Tour::reversal`]); on symmetric or nearly symmetric instances the reversing
//! moves are what 2-opt and 3-opt are, and on strongly asymmetric ones they are rarely
//! taken. The first new arc leaves `a` for one of its listed successors, and must be
//! cheaper than the arc it replaces; the next is drawn from a neighbour list of a city the
//! first fixes, so that a city's neighbourhood is searched in O(K^2). A city without such a
//! move is searched for a chain of pure sequential 5-opt moves ([`pure`]).

mod pure;

use std::time::Instant;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::super::instance::Instance;
use super::tour::Tour;
use pure::Direction;

/// The longest stretch of the tour a reversing move rewrites: longer reversals are skipped,
/// which keeps a move's cost bounded at large n (the orientation of a reversed stretch
/// cannot be flipped by rewriting the shorter rest, as with symmetric costs).
const MAX_REWRITE: usize = 1_000;

/// The longest segment a kick moves (10, 25 and 50 were tried; 25 was as good as the best
/// on every class).
const KICK_SEGMENT: usize = 25;

/// Double bridges a kick makes, each at its own random place. On the 2-core machine
/// (2026-12-04, LKH-3 beside, each build given LKH-3's time), 1, 3 and 5 on 34 instances of
/// every class at n = 100 and 316: geometric mean of the ratio 1.0026, 1.0016, 1.0014; on 22
/// fresh ones (stilt, crane, rtilt, coin, tsmat, amat): 1.0044, 1.0023, 1.0031, the worst
/// 1.0257, 1.0114, 1.0153; at a tenth of LKH-3's time on all 47: 1.0148 and 1.0106 (1 and 3).
/// One bridge left stilt tours in a basin that three leave (stilt:100:304 1.0195 against
/// 1.0020).
const BRIDGES_PER_KICK: usize = 3;

/// The cities a descent looks for moves from between two looks at its deadline (a look costs
/// tens of nanoseconds, a city's search at least a microsecond; 256 left a first descent on
/// rtilt:100 milliseconds past a 20 ms limit).
const CITIES_PER_LOOK: usize = 16;

/// How a move puts `S1` and `S2` back (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Swap,
    SwapFlipFirst,
    FlipSecond,
    FlipBoth,
    TwoOpt,
}

/// A move from `a`: its kind and the offsets of `b` and `c` after `a`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Move {
    kind: Kind,
    ob: usize,
    oc: usize,
}

/// Each city's candidate successors and predecessors: built once per search and shared by
/// all its chains.
pub(super) struct Neighbours {
    /// `succ[i * k..]`: the `k` listed successors of city i, best first.
    succ: Vec<usize>,
    /// `pred[j * k..]`: the `k` listed predecessors of city j, best first.
    pred: Vec<usize>,
    /// `succ_cost[i * k + r]`: the cost of the arc from city i to its `r`th listed successor,
    /// read here in order where the matrix would be read at random (at n = 3,000 every such
    /// read missed the cache).
    succ_cost: Vec<i64>,
    k: usize,
}

impl Neighbours {
    /// Lists of `k` cities for every city of `inst`: the first `ranked` the arcs cheapest by
    /// `rank` (ties by cost, then city), then the cheapest arcs by cost, without repeats.
    /// O(n^2) evaluations of `rank` in all, the matrix read by rows (at n = 3,000, reading
    /// its columns one by one missed the cache at every entry and took seconds).
    pub(super) fn new(
        inst: &Instance,
        k: usize,
        ranked: usize,
        rank: &dyn Fn(usize, usize) -> i64,
    ) -> Neighbours {
        let n = inst.n;
        let k = k.min(n - 1);
        let ranked = ranked.min(k);
        let mut succ = vec![0; n * k];
        let mut pred = vec![0; n * k];
        let mut keys: Vec<Key> = Vec::with_capacity(n);
        for (i, out) in succ.chunks_mut(k).enumerate() {
            keys.clear();
            keys.extend(
                (0..n)
                    .filter(|&j| j != i)
                    .map(|j| (rank(i, j), inst.cost(i, j), j)),
            );
            choose(&mut keys, ranked, out);
        }
        // Predecessors: BLOCK columns' keys gathered at a time, row by row.
        let mut block: Vec<Vec<Key>> = (0..BLOCK.min(n)).map(|_| Vec::with_capacity(n)).collect();
        for (b, outs) in pred.chunks_mut(k * BLOCK).enumerate() {
            let columns = (b * BLOCK)..(b * BLOCK + outs.len() / k);
            for keys in &mut block {
                keys.clear();
            }
            for i in 0..n {
                for (keys, j) in block.iter_mut().zip(columns.clone()) {
                    if i != j {
                        keys.push((rank(i, j), inst.cost(i, j), i));
                    }
                }
            }
            for (keys, out) in block.iter_mut().zip(outs.chunks_mut(k)) {
                choose(keys, ranked, out);
            }
        }
        Neighbours {
            succ_cost: vec![0; succ.len()],
            succ,
            pred,
            k,
        }
        .priced_by(inst)
    }

    /// The same lists with the arcs' costs read from `inst` (the costs the search runs on).
    pub(super) fn priced_by(mut self, inst: &Instance) -> Neighbours {
        let k = self.k;
        for (at, (cost, &j)) in self.succ_cost.iter_mut().zip(&self.succ).enumerate() {
            *cost = inst.cost(at / k, j);
        }
        self
    }

    /// The successor and predecessor lists and `k` (as the fields say), for the GPU tour
    /// improver, which runs the same lists.
    pub(super) fn lists(&self) -> (&[usize], &[usize], usize) {
        (&self.succ, &self.pred, self.k)
    }
}

/// A candidate arc's rank, cost and the city at its other end.
type Key = (i64, i64, usize);

/// Columns whose predecessor lists are built together.
const BLOCK: usize = 64;

/// Fills `out` with cities of `keys`: the `ranked` least by rank (then cost, then city), then
/// the cheapest of the others by cost (then city).
fn choose(keys: &mut [Key], ranked: usize, out: &mut [usize]) {
    let more = out.len() - ranked;
    if ranked > 0 {
        keys.select_nth_unstable(ranked - 1);
        keys[..ranked].sort_unstable();
    }
    let rest = &mut keys[ranked..];
    if more > 0 {
        let by_cost = |&(_, cost, city): &Key| (cost, city);
        rest.select_nth_unstable_by_key(more - 1, by_cost);
        rest[..more].sort_unstable_by_key(by_cost);
    }
    for (slot, key) in out.iter_mut().zip(keys.iter()) {
        *slot = key.2;
    }
}

/// The price of the moves from `a` that share `b` (at offset `ob`) and vary `c`: the swaps
/// and the double reversals the search tries for every third cut, with what does not depend
/// on `c` (the first two cuts' cities and arcs, the first segment's reversal) computed once
/// (a third of the search's time went to pricing them anew). [`Search::delta`] prices these
/// kinds through it too.
struct SwapPricer {
    a: usize,
    pa: usize,
    ob: usize,
    a1: usize,
    b: usize,
    b1: usize,
    /// The arcs out of `a` and `b`, the ones every move of the family removes.
    removed: i64,
    /// What reversing the first segment changes, where the family reverses it.
    r1: std::cell::OnceCell<i64>,
}

impl SwapPricer {
    fn new(t: &Tour<'_>, a: usize, ob: usize) -> SwapPricer {
        let pa = t.pos(a);
        let (a1, b, b1) = (t.at(pa + 1), t.at(pa + ob), t.at(pa + ob + 1));
        SwapPricer {
            a,
            pa,
            ob,
            a1,
            b,
            b1,
            removed: t.out_cost(a) + t.out_cost(b),
            r1: std::cell::OnceCell::new(),
        }
    }

    /// `delta` of the move of `kind` (`Swap`, `SwapFlipFirst` or `FlipBoth`) from `a` with
    /// `b` at `ob` and `c` at `oc`.
    fn delta(&self, t: &Tour<'_>, kind: Kind, oc: usize) -> Option<i64> {
        let (pa, ob) = (self.pa, self.ob);
        if ob == 0 || oc >= t.n || oc <= ob || (kind != Kind::Swap && oc > MAX_REWRITE) {
            return None;
        }
        let (a, a1, b, b1) = (self.a, self.a1, self.b, self.b1);
        let (cc, c1) = (t.at(pa + oc), t.at(pa + oc + 1));
        let c = |i, j| t.c(i, j);
        let r1 = || *self.r1.get_or_init(|| t.reversal(pa + 1, ob - 1));
        let removed = self.removed + t.out_cost(cc);
        let added = match kind {
            Kind::Swap => c(a, b1) + c(cc, a1) + c(b, c1),
            Kind::SwapFlipFirst => c(a, b1) + c(cc, b) + c(a1, c1) + r1(),
            Kind::FlipBoth => {
                c(a, b) + c(a1, cc) + c(b1, c1) + r1() + t.reversal(pa + ob + 1, oc - ob - 1)
            }
            Kind::FlipSecond | Kind::TwoOpt => unreachable!("priced by Search::delta alone"),
        };
        Some(added - removed)
    }
}

/// The tour under search, the neighbour lists it draws from and its active cities.
pub(super) struct Search<'a> {
    pub(super) tour: Tour<'a>,
    near: &'a Neighbours,
    /// Cities whose neighbourhood may hold an improving move, and whether each is queued.
    queue: Vec<usize>,
    queued: Vec<bool>,
    /// Room for the cities a move rewrites.
    buffer: Vec<usize>,
    /// The marks of the chain of pure moves under way.
    marks: pure::Marks,
}

impl<'a> Search<'a> {
    /// The search from `tour` with the lists `near`.
    pub(super) fn new(tour: Tour<'a>, near: &'a Neighbours) -> Search<'a> {
        let n = tour.n;
        Search {
            tour,
            near,
            queue: Vec::new(),
            queued: vec![false; n],
            buffer: Vec::with_capacity(n),
            marks: pure::Marks::default(),
        }
    }

    fn succ(&self, city: usize) -> &'a [usize] {
        let k = self.near.k;
        &self.near.succ[city * k..(city + 1) * k]
    }

    /// The costs of the arcs to `city`'s listed successors, in the order of [`Search::succ`].
    fn succ_cost(&self, city: usize) -> &'a [i64] {
        let k = self.near.k;
        &self.near.succ_cost[city * k..(city + 1) * k]
    }

    fn pred(&self, city: usize) -> &'a [usize] {
        let k = self.near.k;
        &self.near.pred[city * k..(city + 1) * k]
    }

    fn activate(&mut self, city: usize) {
        if !std::mem::replace(&mut self.queued[city], true) {
            self.queue.push(city);
        }
    }

    /// Local search from every city, until `deadline`.
    pub(super) fn descend_all(&mut self, deadline: Option<Instant>) {
        for city in 0..self.tour.n {
            self.activate(city);
        }
        self.descend_until(deadline);
    }

    /// Applies improving moves until no active city has one.
    pub(super) fn descend(&mut self) {
        self.descend_until(None);
    }

    /// [`Search::descend`] until `deadline`, looked at every [`CITIES_PER_LOOK`] cities (a
    /// first descent from a nearest-neighbour tour took 6 s at n = 10,000 on 2 cores).
    pub(super) fn descend_until(&mut self, deadline: Option<Instant>) {
        let mut looked = 0;
        while let Some(a) = self.queue.pop() {
            looked += 1;
            if looked % CITIES_PER_LOOK == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                self.queue.push(a);
                return;
            }
            self.queued[a] = false;
            if let Some(mv) = self.improving_move(a) {
                self.apply(a, mv);
            } else {
                let _ = self.improve_by_chain(a, Direction::Forward)
                    || self.improve_by_chain(a, Direction::Backward);
            }
        }
    }

    /// What `mv` from `a` changes the tour's cost by, `None` where it is not a move.
    fn delta(&self, a: usize, mv: Move) -> Option<i64> {
        let t = &self.tour;
        let n = t.n;
        let Move { kind, ob, oc } = mv;
        if matches!(kind, Kind::Swap | Kind::SwapFlipFirst | Kind::FlipBoth) {
            return SwapPricer::new(t, a, ob).delta(t, kind, oc);
        }
        let two_opt = kind == Kind::TwoOpt;
        let end = if two_opt { ob + 1 } else { oc };
        // Both kinds left reverse a segment.
        if ob == 0 || end >= n || (!two_opt && oc <= ob) || end > MAX_REWRITE {
            return None;
        }
        let pa = t.pos(a);
        let (a1, b, b1) = (t.at(pa + 1), t.at(pa + ob), t.at(pa + ob + 1));
        let c = |i, j| t.c(i, j);
        if two_opt {
            let r1 = t.reversal(pa + 1, ob - 1);
            return Some(c(a, b) + c(a1, b1) + r1 - t.out_cost(a) - t.out_cost(b));
        }
        // FlipSecond: `~S2 S1`.
        let (cc, c1) = (t.at(pa + oc), t.at(pa + oc + 1));
        let r2 = t.reversal(pa + ob + 1, oc - ob - 1);
        let removed = t.out_cost(a) + t.out_cost(b) + t.out_cost(cc);
        Some(c(a, cc) + c(b1, a1) + c(b, c1) + r2 - removed)
    }

    /// `mv` if it improves the tour.
    fn improving(&self, a: usize, mv: Move) -> Option<Move> {
        self.delta(a, mv).filter(|&d| d < 0).map(|_| mv)
    }

    /// An improving move from `a` (see the module for where it looks).
    fn improving_move(&self, a: usize) -> Option<Move> {
        let t = &self.tour;
        let a1 = t.next(a);
        let out_a = t.out_cost(a);
        let mv = |kind, ob, oc| Move { kind, ob, oc };
        for (&x, &cost) in self.succ(a).iter().zip(self.succ_cost(a)) {
            if out_a - cost <= 0 {
                continue;
            }
            let ox = t.offset(a, x);
            if ox < 2 {
                continue;
            }
            // x = b': S2 starts at x.
            let (ob, b) = (ox - 1, t.prev(x));
            let thirds = self
                .pred(a1)
                .iter()
                .chain(self.pred(b))
                .map(|&c| t.offset(a, c));
            let thirds = thirds.chain(
                self.succ(b)
                    .iter()
                    .chain(self.succ(a1))
                    .map(|&c1| t.offset(a, t.prev(c1))),
            );
            let swaps = SwapPricer::new(t, a, ob);
            for oc in thirds {
                for kind in [Kind::Swap, Kind::SwapFlipFirst] {
                    if swaps.delta(t, kind, oc).is_some_and(|d| d < 0) {
                        return Some(mv(kind, ob, oc));
                    }
                }
            }
            // x = b: S1 reversed.
            if let Some(found) = self.improving(a, mv(Kind::TwoOpt, ox, 0)) {
                return Some(found);
            }
            let b1 = t.next(x);
            let thirds = self.succ(a1).iter().map(|&c| t.offset(a, c));
            let thirds = thirds.chain(self.succ(b1).iter().map(|&c1| t.offset(a, t.prev(c1))));
            let flips = SwapPricer::new(t, a, ox);
            for oc in thirds {
                if flips.delta(t, Kind::FlipBoth, oc).is_some_and(|d| d < 0) {
                    return Some(mv(Kind::FlipBoth, ox, oc));
                }
            }
            // x = c: S2 reversed comes first.
            let c1 = t.next(x);
            let seconds = self
                .pred(a1)
                .iter()
                .map(|&b1| t.offset(a, b1).wrapping_sub(1));
            let seconds = seconds.chain(self.pred(c1).iter().map(|&b| t.offset(a, b)));
            for ob in seconds {
                if let Some(found) = self.improving(a, mv(Kind::FlipSecond, ob, ox)) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Applies `mv` from `a` (a move [`Search::delta`] prices).
    fn apply(&mut self, a: usize, mv: Move) {
        let Some(delta) = self.delta(a, mv) else {
            return;
        };
        let t = &self.tour;
        let n = t.n;
        let pa = t.pos(a);
        let Move { kind, ob, oc } = mv;
        let end = if kind == Kind::TwoOpt { ob } else { oc };
        let touched = [
            a,
            t.at(pa + 1),
            t.at(pa + ob),
            t.at(pa + ob + 1),
            t.at(pa + end),
            t.at(pa + end + 1),
        ];
        self.buffer.clear();
        let s1 = (pa + 1)..=(pa + ob);
        let s2 = (pa + ob + 1)..=(pa + oc);
        let start = match kind {
            Kind::Swap => {
                // All three rotations give the same cyclic tour: rewrite the shortest two
                // adjacent segments.
                let (l1, l2, l3) = (ob, oc - ob, n - oc);
                let (start, x, y) = if l1 + l2 <= l2 + l3 && l1 + l2 <= l3 + l1 {
                    (pa + 1, l1, l2)
                } else if l2 + l3 <= l3 + l1 {
                    (pa + ob + 1, l2, l3)
                } else {
                    (pa + oc + 1, l3, l1)
                };
                self.buffer.extend(
                    (start + x..start + x + y)
                        .chain(start..start + x)
                        .map(|p| t.at(p)),
                );
                start
            }
            Kind::SwapFlipFirst => {
                self.buffer.extend(s2.map(|p| t.at(p)));
                self.buffer.extend(s1.rev().map(|p| t.at(p)));
                pa + 1
            }
            Kind::FlipSecond => {
                self.buffer.extend(s2.rev().map(|p| t.at(p)));
                self.buffer.extend(s1.map(|p| t.at(p)));
                pa + 1
            }
            Kind::FlipBoth => {
                self.buffer.extend(s1.rev().map(|p| t.at(p)));
                self.buffer.extend(s2.rev().map(|p| t.at(p)));
                pa + 1
            }
            Kind::TwoOpt => {
                self.buffer.extend(s1.rev().map(|p| t.at(p)));
                pa + 1
            }
        };
        let cities = std::mem::take(&mut self.buffer);
        self.tour.write(start, &cities, delta);
        self.buffer = cities;
        for city in touched {
            self.activate(city);
        }
    }

    /// [`BRIDGES_PER_KICK`] double bridges, each swapping two adjacent segments of random
    /// lengths at a random place (an or-3opt move, which the repair's own moves can take
    /// back: on stilt, crane and coin 35-70% of the kicks end on the tour they started from,
    /// but bridges that no single move undoes found no cheaper tours; docs/benchmarks.md,
    /// thirty-third round).
    pub(super) fn kick(&mut self, rng: &mut ChaCha8Rng) {
        let n = self.tour.n;
        let longest = KICK_SEGMENT.min((n - 2) / 2);
        for _ in 0..BRIDGES_PER_KICK {
            let (l1, l2) = (rng.random_range(1..=longest), rng.random_range(1..=longest));
            let a = self.tour.at(rng.random_range(0..n));
            self.apply(
                a,
                Move {
                    kind: Kind::Swap,
                    ob: l1,
                    oc: l1 + l2,
                },
            );
        }
    }

    /// Takes `cities`, a tour of cost `cost`, as the tour, committed (a later undo comes
    /// back to it).
    pub(super) fn take(&mut self, cities: &[usize], cost: i64) {
        self.settle();
        self.tour.write(0, cities, cost - self.tour.cost);
        self.tour.commit();
    }

    /// Takes `cities`, a tour of cost `cost` found elsewhere, as the tour and descends from
    /// it until `deadline`; the result is committed (a later undo comes back to it).
    pub(super) fn adopt(&mut self, cities: &[usize], cost: i64, deadline: Instant) {
        self.take(cities, cost);
        self.descend_all(Some(deadline));
        self.tour.commit();
    }

    /// Forgets the active cities (after an undo).
    pub(super) fn settle(&mut self) {
        for city in self.queue.drain(..) {
            self.queued[city] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::parse_generator_spec;

    /// Every move `Search::delta` prices (through the pricer or alone), applied to the tour,
    /// leaves a permutation whose recomputed cost is the old one plus the price.
    #[test]
    fn every_priced_move_changes_the_cost_by_its_price() {
        for spec in ["stilt:17:1", "tsmat:13:2", "coin:7:3"] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let start: Vec<usize> = (0..inst.n).rev().collect();
            let near = Neighbours::new(&inst, 4, 2, &|i, j| inst.cost(i, j));
            let tour = Tour::new(&inst, &start);
            let kinds = [
                Kind::Swap,
                Kind::SwapFlipFirst,
                Kind::FlipSecond,
                Kind::FlipBoth,
                Kind::TwoOpt,
            ];
            let mut priced = 0;
            for a in 0..inst.n {
                for ob in 0..inst.n + 1 {
                    for oc in 0..inst.n + 1 {
                        for kind in kinds {
                            let mv = Move { kind, ob, oc };
                            let mut search = Search::new(tour.clone(), &near);
                            let Some(price) = search.delta(a, mv) else {
                                continue;
                            };
                            search.apply(a, mv);
                            let after = search.tour.cities();
                            let mut sorted = after.to_vec();
                            sorted.sort_unstable();
                            assert!(sorted.iter().copied().eq(0..inst.n), "{spec} {a} {mv:?}");
                            let cost = crate::heuristic::tour_cost(&inst, after);
                            assert_eq!(cost, tour.cost + price, "{spec} {a} {mv:?}");
                            assert_eq!(search.tour.cost, cost, "{spec} {a} {mv:?}");
                            priced += 1;
                        }
                    }
                }
            }
            assert!(priced > inst.n * inst.n, "{spec}: {priced}");
        }
    }
}
