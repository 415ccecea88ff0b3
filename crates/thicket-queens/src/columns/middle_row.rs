//! The middle row of odd boards, joined to the quarter below it for one set of rows at a time.
//!
//! On a board of `n = 2h + 1` the half that holds the middle row (row `h`) has its south
//! quarter one row taller: the middle row's queen and an `h x h` quarter below it. Storing every
//! such `(h + 1) x h` placement for every set of rows would take three times the `h x h`
//! table's memory (n = 19: 20 MB against 7 MB). Instead a thread keeps the placements of the
//! one set of rows it is joining: consecutive row sets of the count mostly share their rows
//! below the middle (they are enumerated in numeric order, those rows in the high bits), so a
//! table is built about once per few dozen row sets, from the `h x h` table, by putting the
//! middle row's queen on each column in turn beside every quarter placement it does not attack.

use super::quarters::QuarterTable;

/// The placements of the middle row and the quarter below it, on a given set of rows below
/// the middle, by columns used: those of the `(h + 1) x h` rectangle whose first row is the
/// middle row, in the same coordinates as a [`QuarterTable`] of that rectangle.
#[derive(Debug, Default)]
pub struct MiddleRowTable {
    /// The rows below the middle (quarter rows) this table holds, once built.
    below: Option<u32>,
    /// The placements on columns `C` are `placements[starts[C]..starts[C + 1]]`.
    starts: Vec<u32>,
    /// As [`QuarterTable`]'s: "\" diagonals (bit `c - r + h`) in the low word, "/" ones (bit
    /// `c + r`) in the high word, the middle row being row 0.
    placements: Vec<u64>,
}

impl MiddleRowTable {
    /// Makes this the table of quarter rows `below` (a mask of the `h` rows under the middle
    /// row), unless it is already.
    pub fn hold(&mut self, quarters: &QuarterTable, below: u32) {
        if self.below == Some(below) {
            return;
        }
        let h = quarters.cols();
        let queens = below.count_ones() + 1;
        self.starts.clear();
        self.placements.clear();
        for cols in 0u32..1 << h {
            self.starts.push(self.placements.len() as u32);
            if cols.count_ones() != queens {
                continue;
            }
            let mut queen_cols = cols;
            while queen_cols != 0 {
                let c = queen_cols.trailing_zeros();
                queen_cols &= queen_cols - 1;
                let queen = 1u64 << (c + h) | 1u64 << (32 + c);
                for &placement in quarters.placements(below, cols & !(1 << c)) {
                    // One row down: a quarter row `r` is row `r + 1` here, which keeps the
                    // "\" bits and moves the "/" ones up by one.
                    let moved = (placement & u64::from(u32::MAX)) | (placement >> 32) << 33;
                    if moved & queen == 0 {
                        self.placements.push(moved | queen);
                    }
                }
            }
        }
        self.starts.push(self.placements.len() as u32);
        self.below = Some(below);
    }

    /// The placements on columns `cols`, the middle row's queen and one on each row held.
    #[inline(always)]
    pub fn placements(&self, cols: u32) -> &[u64] {
        let c = cols as usize;
        &self.placements[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every list is the one of the `(h + 1) x h` quarter table (itself checked by brute force)
    /// on the middle row and the rows held, as a set.
    #[test]
    fn the_lists_are_those_of_the_taller_quarter() {
        for h in [3, 4, 5] {
            let quarters = QuarterTable::new(h, h);
            let taller = QuarterTable::new(h + 1, h);
            let mut table = MiddleRowTable::default();
            for below in (0..1 << h).rev() {
                table.hold(&quarters, below);
                for cols in 0..1 << h {
                    let mut ours = table.placements(cols).to_vec();
                    let mut theirs = taller.placements(below << 1 | 1, cols).to_vec();
                    ours.sort_unstable();
                    theirs.sort_unstable();
                    assert_eq!(ours, theirs, "h={h} below={below:b} cols={cols:b}");
                }
            }
        }
    }
}
