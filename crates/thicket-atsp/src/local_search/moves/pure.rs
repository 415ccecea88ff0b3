//! Pure sequential 5-opt moves: deeper than the 3-opt ones, every segment kept in its
//! orientation (the kind of move LKH-3 makes on an asymmetric instance).
//!
//! From `t1` the arc `t1 -> t2` is removed; then, level by level, an arc from the last tail
//! `x` to one of its listed successors `y` is added and the arc into `y` removed, its tail
//! `prev(y)` the next level's `x`, while the removed arcs outweigh the added ones (Lin and
//! Kernighan's gain criterion). The move closes with the arc from the last tail to `t2`
//! where that leaves the tour one cycle and cheaper: after two added arcs (the or-3opt
//! segment swap, reached here from other lists than the 3-opt search's) or after four (a
//! 5-opt). A pure 4-opt that changes four arcs is never sequential (its only reconnection,
//! `S1 S4 S3 S2`, is two 2-exchanges), so the third level does not close.
//!
//! Where no move from `t1` improves the tour, the least dear closed one is made and the
//! levels start again from the tail of its closing arc, `t2` kept, the gain counted from
//! where the chain began: a chain of up to [`CHAIN`] moves (a 15-opt at most), undone where
//! it ends no cheaper. On generated stilt instances at n = 100 the single moves stalled 1-4%
//! above LKH-3's tour where the chains reach it (measurements in docs/benchmarks.md).

use super::Search;

/// New arcs a move adds before its closing one: the deepest move is a 5-opt.
const DEPTH: usize = 4;

/// How many of a tail's listed successors each level tries.
const BREADTH: [usize; DEPTH] = [12, 8, 5, 3];

/// Moves in the longest chain [`Search::improve_by_pure_chain`] makes.
const CHAIN: usize = 3;

/// A pure move: the arc out of each of `tails[..m]` is replaced by the arc to the same
/// index of `heads`; the tour gets `gain` cheaper.
#[derive(Debug, Clone, Copy)]
pub(super) struct PureMove {
    tails: [usize; DEPTH + 1],
    heads: [usize; DEPTH + 1],
    m: usize,
    gain: i64,
}

impl Search<'_> {
    /// The levels from `t1` with the tour `dearer` than where a chain of moves began: an
    /// improving move (its gain against the chain's start), and in `closest` the least dear
    /// of the closed moves that do not improve (for the chain's next step).
    fn pure_moves_from(
        &self,
        t1: usize,
        dearer: i64,
        closest: &mut Option<PureMove>,
    ) -> Option<PureMove> {
        let t2 = self.tour.next(t1);
        let mut mv = PureMove {
            tails: [t1; DEPTH + 1],
            heads: [t2; DEPTH + 1],
            m: 0,
            gain: 0,
        };
        self.deepen(&mut mv, 0, self.tour.out_cost(t1) - dearer, closest)
    }

    /// Looks for an improving chain of up to [`CHAIN`] pure moves from `t1` and applies it:
    /// where no move from `t1` improves, the least dear closed one is made and the search
    /// goes on from the tail of its closing arc (Lin and Kernighan's step, deeper). Returns
    /// the moves it made, 0 where it found no improving chain (the tour as it was); the
    /// cities whose arcs the moves changed are active.
    pub(super) fn improve_by_pure_chain(&mut self, t1: usize) -> usize {
        let t2 = self.tour.next(t1);
        let mut made = Vec::new();
        if !self.chain_from(t2, 0, &mut made) {
            return 0;
        }
        for mv in &made {
            for &city in mv.tails[..mv.m].iter().chain(&mv.heads[..mv.m]) {
                self.activate(city);
            }
        }
        made.len()
    }

    /// One step of the chain into `t2` (fixed), the tour `dearer` than at its start and
    /// `made` the moves made so far; true where the chain improved the tour (its moves left
    /// made), false with the tour as it was.
    fn chain_from(&mut self, t2: usize, dearer: i64, made: &mut Vec<PureMove>) -> bool {
        let t1 = self.tour.prev(t2);
        let mut closest = None;
        if let Some(mut mv) = self.pure_moves_from(t1, dearer, &mut closest) {
            mv.gain += dearer;
            self.write_pure_move(&mv, None);
            made.push(mv);
            return true;
        }
        let Some(mut mv) = closest.filter(|_| made.len() + 1 < CHAIN) else {
            return false;
        };
        let closed = mv.gain;
        mv.gain += dearer;
        let mut before = Vec::new();
        let start = self.write_pure_move(&mv, Some(&mut before));
        made.push(mv);
        if self.chain_from(t2, -closed, made) {
            return true;
        }
        made.pop();
        self.tour.write(start, &before, mv.gain);
        false
    }

    /// Tries the arcs out of `mv.tails[level]`, `gain` the removed arcs' cost less the added
    /// ones' so far.
    fn deepen(
        &self,
        mv: &mut PureMove,
        level: usize,
        gain: i64,
        closest: &mut Option<PureMove>,
    ) -> Option<PureMove> {
        let t = &self.tour;
        let x = mv.tails[level];
        let t2 = t.next(mv.tails[0]);
        let listed = self.succ(x).iter().zip(self.succ_cost(x));
        for (&y, &cost) in listed.take(BREADTH[level]) {
            let added = gain - cost;
            let x_next = t.prev(y);
            // The arc into y must still be the tour's (its tail no earlier level's).
            if added <= 0 || mv.tails[..=level].contains(&x_next) {
                continue;
            }
            let g = added + t.out_cost(x_next);
            mv.heads[level] = y;
            mv.tails[level + 1] = x_next;
            if level == 1 || level == 3 {
                let closed = g - t.c(x_next, t2);
                let closer = closest.is_none_or(|c| closed > c.gain);
                if closed > 0 || closer {
                    mv.heads[level + 1] = t2;
                    mv.m = level + 2;
                    mv.gain = closed;
                    if self.one_cycle(mv) {
                        if closed > 0 {
                            return Some(*mv);
                        }
                        *closest = Some(*mv);
                    }
                }
            }
            if level + 1 < DEPTH {
                if let Some(found) = self.deepen(mv, level + 1, g, closest) {
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
    /// segment before they come back.
    fn one_cycle(&self, mv: &PureMove) -> bool {
        let offsets = self.tail_offsets(mv);
        let mut j = 0;
        for step in 1..=mv.m {
            j = self.segment_end(mv, &offsets, mv.heads[j]);
            if j == 0 {
                return step == mv.m;
            }
        }
        false
    }

    /// Rewrites the tour by `mv` (one cycle; the tour gets `mv.gain` cheaper): the longest
    /// segment stays where it is and the others are written after it in their new order.
    /// Returns the first position written, the cities it overwrote in `before` where given.
    fn write_pure_move(&mut self, mv: &PureMove, before: Option<&mut Vec<usize>>) -> usize {
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
    use super::{CHAIN, DEPTH};
    use crate::generate::parse_generator_spec;
    use crate::heuristic::tour_cost;
    use crate::policy::assignment;

    /// Every chain of pure moves found from a city of a random tour leaves one cycle (a
    /// permutation) whose recomputed cost is the one the tour keeps, and cheaper; where none
    /// is found the tour is as it was; chains of one move and of several are found, and
    /// single improving moves are 3-opt and 5-opt ones, never 4-opt.
    #[test]
    fn pure_chains_keep_one_cycle_and_their_price() {
        let mut found = [0; CHAIN + 1];
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
                    if let Some(mv) = search.pure_moves_from(a, 0, &mut None) {
                        assert!(mv.gain > 0, "{mv:?}");
                        changed[mv.m] += 1;
                    }
                    let (before, cost) = (search.tour.cities().to_vec(), search.tour.cost);
                    let made = search.improve_by_pure_chain(a);
                    found[made] += 1;
                    let t = &search.tour;
                    assert_eq!(t.cost, tour_cost(&inst, t.cities()), "{spec} {round} {a}");
                    if made == 0 {
                        assert_eq!(t.cities(), before, "{spec} {round} {a}");
                        continue;
                    }
                    let mut sorted = t.cities().to_vec();
                    sorted.sort_unstable();
                    assert!(sorted.iter().copied().eq(0..inst.n), "{spec} {round} {a}");
                    assert!(t.cost < cost, "{spec} {round} {a}");
                }
            }
        }
        assert!(
            found[1] > 20 && found[2..].iter().sum::<usize>() > 5,
            "{found:?}"
        );
        assert_eq!(changed[4], 0);
        assert!(changed[3] > 20 && changed[5] > 20, "{changed:?}");
    }
}
