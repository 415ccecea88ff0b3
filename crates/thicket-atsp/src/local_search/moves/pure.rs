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

use super::Search;

/// New arcs a move adds before its closing one: the deepest move is a 5-opt.
const DEPTH: usize = 4;

/// How many of a tail's listed successors each level tries.
const BREADTH: [usize; DEPTH] = [12, 8, 5, 3];

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
    /// An improving pure move from `t1`, if the levels find one.
    pub(super) fn improving_pure_move(&self, t1: usize) -> Option<PureMove> {
        let t2 = self.tour.next(t1);
        let mut mv = PureMove {
            tails: [t1; DEPTH + 1],
            heads: [t2; DEPTH + 1],
            m: 0,
            gain: 0,
        };
        self.deepen(&mut mv, 0, self.tour.c(t1, t2))
    }

    /// Tries the arcs out of `mv.tails[level]`, `gain` the removed arcs' cost less the added
    /// ones' so far.
    fn deepen(&self, mv: &mut PureMove, level: usize, gain: i64) -> Option<PureMove> {
        let t = &self.tour;
        let x = mv.tails[level];
        let t2 = t.next(mv.tails[0]);
        for &y in self.succ(x).iter().take(BREADTH[level]) {
            let added = gain - t.c(x, y);
            let x_next = t.prev(y);
            // The arc into y must still be the tour's (its tail no earlier level's).
            if added <= 0 || mv.tails[..=level].contains(&x_next) {
                continue;
            }
            let g = added + t.c(x_next, y);
            mv.heads[level] = y;
            mv.tails[level + 1] = x_next;
            if level == 1 || level == 3 {
                let closed = g - t.c(x_next, t2);
                if closed > 0 {
                    mv.heads[level + 1] = t2;
                    mv.m = level + 2;
                    mv.gain = closed;
                    if self.one_cycle(mv) {
                        return Some(*mv);
                    }
                }
            }
            if level + 1 < DEPTH {
                if let Some(found) = self.deepen(mv, level + 1, g) {
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

    /// Applies `mv` (one cycle, improving): the longest segment stays where it is and the
    /// others are written after it in their new order.
    pub(super) fn apply_pure_move(&mut self, mv: &PureMove) {
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
        let cities = std::mem::take(&mut self.buffer);
        self.tour.write(pa + offsets[anchor] + 1, &cities, -mv.gain);
        self.buffer = cities;
        for &city in mv.tails[..mv.m].iter().chain(&mv.heads[..mv.m]) {
            self.activate(city);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tour::Tour;
    use super::super::{Neighbours, Search};
    use crate::generate::parse_generator_spec;
    use crate::heuristic::tour_cost;
    use crate::policy::assignment;

    /// Every pure move found from a city of a random tour leaves one cycle (a permutation)
    /// whose recomputed cost is the old one less the move's gain; both 3-opt and 5-opt moves
    /// are found.
    #[test]
    fn pure_moves_keep_one_cycle_and_their_price() {
        let mut found = [0; 6];
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
                    let Some(mv) = search.improving_pure_move(a) else {
                        continue;
                    };
                    let before = search.tour.cost;
                    search.apply_pure_move(&mv);
                    let t = &search.tour;
                    let mut sorted = t.cities().to_vec();
                    sorted.sort_unstable();
                    assert!(sorted.iter().copied().eq(0..inst.n), "{spec} {round} {a}");
                    assert_eq!(t.cost, before - mv.gain, "{spec} {round} {a}");
                    assert_eq!(t.cost, tour_cost(&inst, t.cities()), "{spec} {round} {a}");
                    assert!(mv.gain > 0, "{mv:?}");
                    found[mv.m] += 1;
                }
            }
        }
        assert_eq!(found[4], 0);
        assert!(found[3] > 20 && found[5] > 20, "{found:?}");
    }
}
