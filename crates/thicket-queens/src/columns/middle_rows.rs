//! The middle rows of the board, joined to the quarter below them for one set of rows at a
//! time.
//!
//! The quarter table is `q x h` with `q = (n - 1) / 2` rows: `h x h` on odd boards
//! (`n = 2h + 1`), `(h - 1) x h` on even ones (`n = 2h`). A half's north part is a quarter on
//! rows `0..q`; its south part is the `h + 1` rows below: the `n - 2q` middle rows (one on odd
//! boards, row `h`; two on even ones, rows `h - 1` and `h`) and a quarter under them. Storing
//! every such `(h + 1) x h` placement for every set of rows would take three times the `h x h`
//! table's memory (n = 19: 20 MB against 7 MB), and the even board's `h x h` table is itself
//! three times its `(h - 1) x h` one (n = 20: 60 MB against 20 MB). Instead a thread keeps the
//! south placements of the one set of rows it is joining: consecutive row sets of the count
//! mostly share their south rows (they are enumerated in numeric order, those rows in the high
//! bits), so a table is built about once per few dozen row sets, from the quarter table, by
//! putting the middle rows' queens on each set of columns in turn beside every quarter
//! placement they do not attack.

use super::quarters::QuarterTable;

/// The placements of the middle rows and the quarter below them, on a given set of those rows,
/// by columns used: those of the `(m + q) x h` rectangle whose first `m` rows are the middle
/// rows, in the same coordinates as a [`QuarterTable`] of that rectangle.
#[derive(Debug, Default)]
pub struct MiddleRowsTable {
    /// The rectangle's rows (bit 0 the first middle row) this table holds, once built.
    rows: Option<u32>,
    /// The middle rows' own placements on one set of columns, one queen on each of their rows
    /// held: the columns they use and their diagonals (in the layout of `placements`).
    middle: Vec<(u32, u64)>,
    /// The placements on columns `C` are `placements[starts[C]..starts[C + 1]]`.
    starts: Vec<u32>,
    /// As [`QuarterTable`]'s: "\" diagonals (bit `c - r + m + q - 1`) in the low word, "/"
    /// ones (bit `c + r`) in the high word, the first middle row being row 0.
    placements: Vec<u64>,
}

impl MiddleRowsTable {
    /// Makes this the table of the rectangle's rows `rows`: the low `middle_rows` bits are the
    /// middle rows, the bits above them the quarter's rows (`quarters.rows()` of them); unless
    /// it is already.
    pub fn hold(&mut self, quarters: &QuarterTable, middle_rows: u32, rows: u32) {
        if self.rows == Some(rows) {
            return;
        }
        let (h, height) = (quarters.cols(), middle_rows + quarters.rows());
        let middle = rows & ((1 << middle_rows) - 1);
        let below = rows >> middle_rows;
        let queens = rows.count_ones();
        self.starts.clear();
        self.placements.clear();
        for cols in 0u32..1 << h {
            self.starts.push(self.placements.len() as u32);
            if cols.count_ones() != queens {
                continue;
            }
            // Only the middle queens that fit these columns.
            self.middle.clear();
            place_middle_queens(height, middle, cols, (0, 0), &mut self.middle);
            for &(used, queen_lines) in &self.middle {
                for &placement in quarters.placements(below, cols & !used) {
                    // Down by `middle_rows`: a quarter row `r` is row `r + middle_rows` here,
                    // which keeps the "\" bits (the rectangle is as much taller) and moves the
                    // "/" ones up.
                    let moved =
                        (placement & u64::from(u32::MAX)) | (placement >> 32) << (32 + middle_rows);
                    if moved & queen_lines == 0 {
                        self.placements.push(moved | queen_lines);
                    }
                }
            }
        }
        self.starts.push(self.placements.len() as u32);
        self.rows = Some(rows);
    }

    /// The placements on columns `cols`, one queen on each row held.
    #[inline(always)]
    pub fn placements(&self, cols: u32) -> &[u64] {
        let c = cols as usize;
        &self.placements[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

/// Appends to `out` every placement of one queen on each of the middle rows `rows` (from the
/// lowest) on the columns `allowed` of a rectangle of `height` rows, no two on a column or
/// diagonal, beside the queens already placed (`used` columns, `lines` diagonals).
fn place_middle_queens(
    height: u32,
    rows: u32,
    allowed: u32,
    (used, lines): (u32, u64),
    out: &mut Vec<(u32, u64)>,
) {
    if rows == 0 {
        out.push((used, lines));
        return;
    }
    let r = rows.trailing_zeros();
    let mut free = allowed & !used;
    while free != 0 {
        let c = free.trailing_zeros();
        free &= free - 1;
        let queen = 1u64 << (c + height - 1 - r) | 1u64 << (32 + c + r);
        if lines & queen == 0 {
            let placed = (used | 1 << c, lines | queen);
            place_middle_queens(height, rows & (rows - 1), allowed, placed, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every list is the one of the `(m + q) x h` quarter table (itself checked by brute
    /// force) on the same rows, as a set: one middle row above an `h x h` quarter (odd boards)
    /// and two above an `(h - 1) x h` one (even boards).
    #[test]
    fn the_lists_are_those_of_the_taller_quarter() {
        for (middle_rows, h) in [(1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 5)] {
            let q = h + 1 - middle_rows;
            let quarters = QuarterTable::new(q, h);
            let taller = QuarterTable::new(h + 1, h);
            let mut table = MiddleRowsTable::default();
            for rows in (0..1 << (h + 1)).rev() {
                table.hold(&quarters, middle_rows, rows);
                for cols in 0..1 << h {
                    let mut ours = table.placements(cols).to_vec();
                    let mut theirs = taller.placements(rows, cols).to_vec();
                    ours.sort_unstable();
                    theirs.sort_unstable();
                    assert_eq!(ours, theirs, "h={h} rows={rows:b} cols={cols:b}");
                }
            }
        }
    }
}
