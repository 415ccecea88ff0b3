//! Pure sequential moves, every segment kept in its orientation (the moves LKH-3 makes on an
//! asymmetric instance), chained in Lin and Kernighan's way.
//!
//! A step removes the arc `t1 -> t2` and runs one of two ways ([`Direction`]). Forward, the
//! tail `x = t1` takes one of its listed successors `y` and the arc into `y` is removed, its
//! tail `prev(y)` the next level's `x`; backward, the head `x = t2` takes one of its listed
//! predecessors `y` and the arc out of `y` is removed, its head `next(y)` the next level's
//! `x`. Each level needs the removed arcs to outweigh the added ones (Lin and Kernighan's
//! gain criterion). The step closes with the arc from the last `x` to `t2` (forward) or from
//! `t1` to it (backward) where that leaves the tour one cycle: after two added arcs (the
//! or-3opt segment swap) or after four (a 5-opt). A pure 4-opt that changes four arcs is
//! never sequential (its only reconnection, `S1 S4 S3 S2`, is two 2-exchanges), so the third
//! level does not close.
//!
//! A step that closes cheaper than where the chain began is made and ends the chain. Where
//! none does, the closed step whose open gain (removed arcs less added ones, before the
//! closing arc) is largest is made, and the next step removes its closing arc: `t2` kept
//! forward, `t1` backward. The chain ends at the first improving step, or where no step has
//! a positive gain, after [`STEPS`] steps, and is undone where it ends no cheaper. An arc a
//! step of the chain removed is never added back, nor an arc it added removed again (a city
//! loses its original successor once a chain), so that a chain cannot circle back.
//!
//! The costs are the search's (see the local search: reduced costs at the assignment's
//! duals, which shift every tour's cost alike but make the gain criterion follow the arcs
//! good tours use).

use super::Search;

/// New arcs a step adds before its closing one: the deepest step is a 5-opt.
const DEPTH: usize = 4;

/// How many of a city's listed neighbours each level tries. 8 reached a better first local
/// optimum on stilt:316:631 (13,034,761 against 13,111,126), but over 30 relabelled runs of
/// stilt at n = 316 against LKH-3 both gave 1.0028 at LKH-3's time, 1.0067 and 1.0065 at a
/// tenth (2026-12-05, 2 cores).
const BREADTH: usize = 5;

/// Steps in the longest chain (as many as 200 reached the same first local optimum of
/// stilt:316:631; most chains end within a few steps, where no step has a positive gain).
const STEPS: usize = 50;

/// Which end of the removed arc a step moves (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    /// The tail takes a new successor; the step runs over tails.
    Forward,
    /// The head takes a new predecessor; the step runs over heads.
    Backward,
}

/// A pure move: the arc out of each of `tails[..m]` is replaced by the arc to the same
/// index of `heads`; the tour gets `gain` cheaper.
#[derive(Debug, Clone, Copy)]
pub(super) struct PureMove {
    tails: [usize; DEPTH + 1],
    heads: [usize; DEPTH + 1],
    m: usize,
    gain: i64,
}

/// The cities whose original successor the chain under way removed, and that successor:
/// `stamp[x] == chain` marks city x (a counter, so that a chain starts in O(1)).
#[derive(Default)]
pub(super) struct Marks {
    stamp: Vec<u32>,
    successor: Vec<usize>,
    chain: u32,
}

impl Marks {
    /// Forgets every mark: a new chain on a tour of `n` cities.
    fn next_chain(&mut self, n: usize) {
        if self.stamp.len() != n || self.chain == u32::MAX {
            self.stamp = vec![0; n];
            self.successor = vec![0; n];
            self.chain = 0;
        }
        self.chain += 1;
    }

    /// Whether city x lost its original successor in this chain.
    fn marked(&self, x: usize) -> bool {
        self.stamp[x] == self.chain
    }

    /// Marks x as having lost `successor` (its first, original one is kept).
    fn mark(&mut self, x: usize, successor: usize) {
        if !self.marked(x) {
            self.stamp[x] = self.chain;
            self.successor[x] = successor;
        }
    }

    /// Whether the arc x -> y is one the chain removed.
    fn removed(&self, x: usize, y: usize) -> bool {
        self.marked(x) && self.successor[x] == y
    }
}

/// A step's search from one arc: the levels' open cities, and the best closed step so far
/// that does not improve (by its open gain).
struct Step<'m> {
    dir: Direction,
    marks: &'m Marks,
    mv: PureMove,
    open: [usize; DEPTH + 1],
    /// How far each of `mv.tails` comes after `tails[0]` (`tails[0]` itself at n), set as
    /// each level takes its tail: the one-cycle check of every closing reads them instead
    /// of looking each tail up again (it was a seventh of a kick's time on stilt).
    offsets: [usize; DEPTH + 1],
    best: Option<(PureMove, i64, usize)>,
}

impl<'m> Step<'m> {
    /// The search of a step from the arc `t1 -> t2` in `dir` on a tour of `n` cities, under
    /// the chain's `marks`.
    fn new(dir: Direction, marks: &'m Marks, t1: usize, t2: usize, n: usize) -> Step<'m> {
        Step {
            dir,
            marks,
            mv: PureMove {
                tails: [t1; DEPTH + 1],
                heads: [t2; DEPTH + 1],
                m: 0,
                gain: 0,
            },
            open: [if dir == Direction::Forward { t1 } else { t2 }; DEPTH + 1],
            offsets: [n; DEPTH + 1],
            best: None,
        }
    }
}

/// A step made and how to undo it: the first position it wrote, the cities it overwrote,
/// and how much cheaper it made the tour (what undoing it adds back).
struct Made {
    start: usize,
    before: Vec<usize>,
    delta: i64,
}

impl Search<'_> {
    /// Looks for an improving chain from the arc `t1 -> next(t1)` in `dir` and makes it;
    /// true where it did (the cities whose arcs it changed then active), false with the tour
    /// as it was.
    pub(super) fn improve_by_chain(&mut self, t1: usize, dir: Direction) -> bool {
        let mut marks = std::mem::take(&mut self.marks);
        marks.next_chain(self.tour.n);
        marks.mark(t1, self.tour.next(t1));
        let (mut t1, mut open_gain, mut closed_before) = (t1, self.tour.out_cost(t1), 0);
        let mut made: Vec<Made> = Vec::new();
        let mut touched = Vec::new();
        let mut improved = false;
        for _ in 0..STEPS {
            let mut step = Step::new(dir, &marks, t1, self.tour.next(t1), self.tour.n);
            let found = self.deepen(&mut step, 0, open_gain);
            let Some((mut mv, open, next)) = found.map(|mv| (mv, 0, t1)).or(step.best) else {
                break;
            };
            let closed = mv.gain;
            mv.gain -= closed_before;
            touched.extend(mv.tails[..mv.m].iter().chain(&mv.heads[..mv.m]));
            if found.is_some() {
                self.write_pure_move(&mv, None);
                improved = true;
                break;
            }
            for &x in &mv.tails[..mv.m] {
                marks.mark(x, self.tour.next(x));
            }
            let mut before = Vec::new();
            let start = self.write_pure_move(&mv, Some(&mut before));
            made.push(Made {
                start,
                before,
                delta: mv.gain,
            });
            (closed_before, open_gain) = (closed, open);
            if dir == Direction::Forward {
                t1 = next;
            }
        }
        if improved {
            for city in touched {
                self.activate(city);
            }
        } else {
            for step in made.iter().rev() {
                self.tour.write(step.start, &step.before, step.delta);
            }
        }
        self.marks = marks;
        improved
    }

    /// Tries the arcs at `step.open[level]`, `gain` the removed arcs' cost less the added
    /// ones' so far; returns an improving closed step, or keeps the best other in `step`.
    fn deepen(&self, step: &mut Step<'_>, level: usize, gain: i64) -> Option<PureMove> {
        let t = &self.tour;
        let x = step.open[level];
        let (t1, t2) = (step.mv.tails[0], t.next(step.mv.tails[0]));
        let forward = step.dir == Direction::Forward;
        let listed = if forward { self.succ(x) } else { self.pred(x) };
        for (rank, &y) in listed.iter().enumerate().take(BREADTH) {
            let cost = match forward {
                true => self.succ_cost(x)[rank],
                false => t.c(y, x),
            };
            let added = gain - cost;
            // Forward: x -> y added, prev(y) -> y removed; backward: y -> x added, y ->
            // next(y) removed. The removed arc's tail must keep its original successor.
            let (tail, next) = match forward {
                true => {
                    let p = t.prev(y);
                    (p, p)
                }
                false => (y, t.next(y)),
            };
            let (from, to) = if forward { (x, y) } else { (y, x) };
            if added <= 0
                || step.mv.tails[..=level].contains(&tail)
                || step.marks.marked(tail)
                || step.marks.removed(from, to)
            {
                continue;
            }
            let g = added + t.out_cost(tail);
            if forward {
                step.mv.heads[level] = y;
            } else {
                step.mv.heads[level + 1] = x;
            }
            step.mv.tails[level + 1] = tail;
            step.offsets[level + 1] = t.offset(t1, tail);
            step.open[level + 1] = next;
            if level == 1 || level == 3 {
                // Forward the last tail closes to t2; backward t1 closes to the last head.
                let (slot, head, closing) = match forward {
                    true => (level + 1, t2, t.c(next, t2)),
                    false => (0, next, t.c(t1, next)),
                };
                let (mv, offsets) = (&mut step.mv, &step.offsets);
                mv.heads[slot] = head;
                mv.m = level + 2;
                mv.gain = g - closing;
                let better = step.best.is_none_or(|(_, open, _)| g > open);
                if (mv.gain > 0 || better) && self.one_cycle(mv, offsets) {
                    if mv.gain > 0 {
                        return Some(*mv);
                    }
                    step.best = Some((*mv, g, next));
                }
            }
            if level + 1 < DEPTH {
                if let Some(found) = self.deepen(step, level + 1, g) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// How far each tail of `mv` comes after `tails[0]` along the tour, `tails[0]` itself
    /// at n (it ends the last segment).
    fn tail_offsets(&self, mv: &PureMove) -> [usize; DEPTH + 1] {
        let t = &self.tour;
        let mut offsets = [t.n; DEPTH + 1];
        for (offset, &tail) in offsets.iter_mut().zip(&mv.tails).take(mv.m).skip(1) {
            *offset = t.offset(mv.tails[0], tail);
        }
        offsets
    }

    /// The index of the tail that ends the segment starting at `head` (the first tail at or
    /// after it along the tour).
    fn segment_end(&self, mv: &PureMove, offsets: &[usize; DEPTH + 1], head: usize) -> usize {
        let t = &self.tour;
        let at = match t.offset(mv.tails[0], head) {
            0 => t.n,
            o => o,
        };
        (0..mv.m)
            .filter(|&j| offsets[j] >= at)
            .min_by_key(|&j| offsets[j])
            .expect("tails[0] ends the last segment")
    }

    /// Whether `mv` leaves the tour one cycle: from `tails[0]`, the new arcs visit every
    /// segment before they come back; `offsets` those of its tails ([`Search::tail_offsets`]).
    fn one_cycle(&self, mv: &PureMove, offsets: &[usize; DEPTH + 1]) -> bool {
        debug_assert_eq!(offsets[..mv.m], self.tail_offsets(mv)[..mv.m]);
        let mut j = 0;
        for step in 1..=mv.m {
            j = self.segment_end(mv, offsets, mv.heads[j]);
            if j == 0 {
                return step == mv.m;
            }
        }
        false
    }

    /// Rewrites the tour by `mv` (one cycle; the tour gets `mv.gain` cheaper): the longest
    /// segment stays where it is and the others are written after it in their new order.
    /// Returns the first position written, the cities it overwrote in `before` where given.
    pub(super) fn write_pure_move(
        &mut self,
        mv: &PureMove,
        before: Option<&mut Vec<usize>>,
    ) -> usize {
        let offsets = self.tail_offsets(mv);
        let t = &self.tour;
        let pa = t.pos(mv.tails[0]);
        // The segment ending at tail j starts after the tail before it (tails[0] at 0).
        let start = |j: usize| {
            (0..mv.m)
                .map(|i| offsets[i] % t.n)
                .filter(|&o| o < offsets[j])
                .max()
                .unwrap_or(0)
                + 1
        };
        let anchor = (0..mv.m)
            .max_by_key(|&j| offsets[j] + 1 - start(j))
            .expect("a segment");
        self.buffer.clear();
        let mut j = anchor;
        loop {
            j = self.segment_end(mv, &offsets, mv.heads[j]);
            if j == anchor {
                break;
            }
            self.buffer
                .extend((start(j)..=offsets[j]).map(|o| t.at(pa + o)));
        }
        let from = pa + offsets[anchor] + 1;
        if let Some(before) = before {
            before.clear();
            before.extend((from..from + self.buffer.len()).map(|p| t.at(p)));
        }
        let cities = std::mem::take(&mut self.buffer);
        self.tour.write(from, &cities, -mv.gain);
        self.buffer = cities;
        from
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tour::Tour;
    use super::super::{Neighbours, Search};
    use super::{Direction, Marks, PureMove, Step, DEPTH};
    use crate::generate::parse_generator_spec;
    use crate::heuristic::tour_cost;
    use crate::policy::assignment;

    /// The first step from `t1` in `dir` on a fresh chain: an improving closed move, if any.
    fn improving_step(search: &Search<'_>, t1: usize, dir: Direction) -> Option<PureMove> {
        let mut marks = Marks::default();
        marks.next_chain(search.tour.n);
        let t2 = search.tour.next(t1);
        marks.mark(t1, t2);
        let mut step = Step::new(dir, &marks, t1, t2, search.tour.n);
        search.deepen(&mut step, 0, search.tour.out_cost(t1))
    }

    /// Every chain from a city of a random tour, either way, leaves one cycle (a permutation)
    /// whose recomputed cost is the one the tour keeps, and cheaper; where it finds none the
    /// tour is as it was. Both ways improve tours, chains of several steps improve where no
    /// first step does, and single improving steps are 3-opt and 5-opt moves, never 4-opt.
    #[test]
    fn chains_keep_one_cycle_and_their_price() {
        let (mut improved, mut chained) = ([0; 2], 0);
        let mut changed = [0; DEPTH + 2];
        for spec in [
            "stilt:60:1",
            "crane:50:2",
            "coin:40:3",
            "amat:30:4",
            "rtilt:45:5",
            "tsmat:35:6",
            "coin:7:7",
        ] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let lap = assignment(&inst);
            let reduced = |i: usize, j: usize| lap.reduced(inst.n, &inst.cost, i, j);
            let near = Neighbours::new(&inst, 12, 8, &reduced);
            let start: Vec<usize> = (0..inst.n).collect();
            let mut search = Search::new(Tour::new(&inst, &start), &near);
            for round in 0..3 {
                for a in 0..inst.n {
                    for (way, dir) in [Direction::Forward, Direction::Backward]
                        .into_iter()
                        .enumerate()
                    {
                        let first = improving_step(&search, a, dir);
                        if let Some(mv) = first {
                            assert!(mv.gain > 0, "{mv:?}");
                            changed[mv.m] += 1;
                        }
                        let (before, cost) = (search.tour.cities().to_vec(), search.tour.cost);
                        let made = search.improve_by_chain(a, dir);
                        let t = &search.tour;
                        let at = format!("{spec} {round} {a} {dir:?}");
                        assert_eq!(t.cost, tour_cost(&inst, t.cities()), "{at}");
                        if !made {
                            assert_eq!(t.cities(), before, "{at}");
                            continue;
                        }
                        improved[way] += 1;
                        chained += usize::from(first.is_none());
                        let mut sorted = t.cities().to_vec();
                        sorted.sort_unstable();
                        assert!(sorted.iter().copied().eq(0..inst.n), "{at}");
                        assert!(t.cost < cost, "{at}");
                    }
                }
            }
        }
        assert!(improved.iter().all(|&i| i > 20), "{improved:?}");
        assert!(chained > 5, "{chained}");
        assert_eq!(changed[4], 0);
        assert!(changed[3] > 20 && changed[5] > 20, "{changed:?}");
    }
}
