//! The hot path: an iterative bitboard DFS over the inner rows of one constellation
//! (Richards/Somers masks, lowest free square by `x & -x`, an explicit stack, no recursion),
//! the last row counted with one popcount.
//!
//! Every diagonal is a line; the border queens' lines are loaded into the masks before the
//! search starts, so rows that a side queen already fills are simply skipped by shifting the
//! diagonal masks two or three places. Lines running down-right (column minus row constant)
//! shift left by one bit a row and are stored 32 bits up, so that lines entering the board
//! from the left at a lower row (those of the bottom and side queens) fit in the word.

use crate::constellation::Constellation;

/// Bit offset of column 0 in the down-right diagonal mask.
const DOWN_RIGHT_OFFSET: u32 = 32;

/// The occupied columns and attacked diagonals seen from one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Masks {
    /// Occupied columns, bit `c` for column `c`.
    pub cols: u32,
    /// Down-right diagonals, bit `c + 32` for column `c` of this row.
    pub down_right: u64,
    /// Down-left diagonals, bit `c` for column `c` of this row.
    pub down_left: u64,
}

/// The inner search of one constellation: the rows still to fill and the masks at the first.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The border queens this plan completes.
    pub constellation: Constellation,
    n: usize,
    /// Rows to fill, in ascending order (rows 1..n-1 without those of the side queens).
    rows: Vec<usize>,
    /// `gaps[d]` = `rows[d + 1] - rows[d]`: how far the diagonals move between depths.
    gaps: [u32; 32],
    /// The `n` board columns.
    board: u32,
    /// Masks at `rows[0]`.
    start: Masks,
}

/// Receives the complete solutions that a search finds.
pub trait SolutionSink {
    /// One complete solution; `placed[d]` is the single bit of the column chosen at depth `d`.
    fn complete(&mut self, placed: &[u32]);

    /// The search reached the last row with the free columns `free` (at most one bit, since
    /// every other column is taken) after choosing `placed` above it.
    #[inline(always)]
    fn last_row(&mut self, free: u32, placed: &mut [u32; 32], depth: usize) {
        if free != 0 {
            placed[depth] = free;
            self.complete(&placed[..=depth]);
        }
    }
}

/// Counts solutions only: the last row is one popcount.
#[derive(Debug, Default)]
pub struct CountSink {
    /// Solutions found so far.
    pub solutions: u64,
}

impl SolutionSink for CountSink {
    fn complete(&mut self, _placed: &[u32]) {
        self.solutions += 1;
    }

    #[inline(always)]
    fn last_row(&mut self, free: u32, _placed: &mut [u32; 32], _depth: usize) {
        self.solutions += u64::from(free.count_ones());
    }
}

impl Plan {
    /// The plan for the inner rows of a valid constellation on an `n x n` board.
    pub fn new(n: usize, constellation: Constellation) -> Plan {
        let queens = constellation.queens(n);
        let rows: Vec<usize> = (1..n.saturating_sub(1))
            .filter(|&r| {
                r != usize::from(constellation.left) && r != usize::from(constellation.right)
            })
            .collect();
        let mut gaps = [0u32; 32];
        for (d, pair) in rows.windows(2).enumerate() {
            gaps[d] = (pair[1] - pair[0]) as u32;
        }
        let board = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut start = Masks::default();
        let first_row = rows.first().copied().unwrap_or(0) as i64;
        for &(r, c) in &queens {
            start.cols |= 1 << c;
            let down_right_bit = c as i64 - r as i64 + first_row + i64::from(DOWN_RIGHT_OFFSET);
            if (0..64).contains(&down_right_bit) {
                start.down_right |= 1 << down_right_bit;
            }
            let down_left_bit = c as i64 + r as i64 - first_row;
            if (0..64).contains(&down_left_bit) {
                start.down_left |= 1 << down_left_bit;
            }
        }
        Plan {
            constellation,
            n,
            rows,
            gaps,
            board,
            start,
        }
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of rows the search fills.
    pub fn depth(&self) -> usize {
        self.rows.len()
    }

    /// The board row filled at search depth `d`.
    pub fn row(&self, d: usize) -> usize {
        self.rows[d]
    }

    /// Masks at the first row to fill.
    pub fn start(&self) -> Masks {
        self.start
    }

    /// The free columns of the row at depth `d` given its masks.
    #[inline(always)]
    pub fn free(&self, m: &Masks) -> u32 {
        let attacked = u64::from(m.cols) | (m.down_right >> DOWN_RIGHT_OFFSET) | m.down_left;
        !(attacked as u32) & self.board
    }

    /// The masks of depth `d + 1` after placing the queen `bit` at depth `d`.
    #[inline(always)]
    pub fn child(&self, d: usize, m: &Masks, bit: u32) -> Masks {
        let gap = self.gaps[d];
        Masks {
            cols: m.cols | bit,
            down_right: (m.down_right | (u64::from(bit) << DOWN_RIGHT_OFFSET)) << gap,
            down_left: (m.down_left | u64::from(bit)) >> gap,
        }
    }

    /// Look-ahead: whether the row after depth `d` still has a free square when no queen is
    /// placed at depth `d`. If not, no completion exists, and the dead end is cut one level
    /// earlier (about 30% fewer nodes).
    #[inline(always)]
    fn row_after_has_room(&self, d: usize, m: &Masks) -> bool {
        let gap = self.gaps[d];
        let attacked =
            u64::from(m.cols) | ((m.down_right << gap) >> DOWN_RIGHT_OFFSET) | (m.down_left >> gap);
        !(attacked as u32) & self.board != 0
    }

    /// The complete board (queen column per row) from the queens placed at each depth.
    pub fn solution(&self, placed: &[u32]) -> Vec<u8> {
        let mut board = vec![0u8; self.n];
        for (r, c) in self.constellation.queens(self.n) {
            board[r] = c as u8;
        }
        for (d, bit) in placed.iter().enumerate() {
            board[self.rows[d]] = bit.trailing_zeros() as u8;
        }
        board
    }

    /// Depth-first search of every completion below depth `depth` with masks `masks`, where
    /// `prefix` holds the queens already placed at depths `0..depth`.
    pub fn search<S: SolutionSink>(
        &self,
        depth: usize,
        masks: Masks,
        prefix: &[u32],
        sink: &mut S,
    ) {
        let last = self.depth();
        let mut placed = [0u32; 32];
        placed[..prefix.len()].copy_from_slice(prefix);
        if depth == last {
            sink.complete(&placed[..depth]);
            return;
        }
        if depth + 1 == last {
            sink.last_row(self.free(&masks), &mut placed, depth);
            return;
        }
        let mut stack = [(0u32, Masks::default()); 32];
        let mut d = depth;
        let mut m = masks;
        let mut free = self.free(&m);
        loop {
            if free == 0 {
                if d == depth {
                    return;
                }
                d -= 1;
                (free, m) = stack[d];
                continue;
            }
            let bit = free & free.wrapping_neg();
            free ^= bit;
            placed[d] = bit;
            let next = self.child(d, &m, bit);
            let next_free = self.free(&next);
            if d + 2 == last {
                sink.last_row(next_free, &mut placed, d + 1);
            } else if next_free != 0 && self.row_after_has_room(d + 1, &next) {
                stack[d] = (free, m);
                d += 1;
                m = next;
                free = next_free;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_border_is_already_a_solution() {
        // The 4-queens solution 1 3 0 2 has all four queens on the border.
        let c = Constellation {
            top: 1,
            bottom: 2,
            left: 2,
            right: 1,
        };
        let plan = Plan::new(4, c);
        assert_eq!(plan.depth(), 0);
        let mut sink = CountSink::default();
        plan.search(0, plan.start(), &[], &mut sink);
        assert_eq!(sink.solutions, 1);
    }

    #[test]
    fn side_queen_rows_are_skipped() {
        let c = Constellation {
            top: 2,
            bottom: 5,
            left: 3,
            right: 1,
        };
        assert!(c.is_valid(8));
        let plan = Plan::new(8, c);
        assert_eq!(
            (0..plan.depth()).map(|d| plan.row(d)).collect::<Vec<_>>(),
            vec![2, 4, 5, 6]
        );
    }
}
