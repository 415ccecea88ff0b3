//! Half boards from quarter boards: every placement of a quarter is enumerated once, and a
//! half's placements are the pairs of a north and a south quarter placement that use
//! complementary columns and share no diagonal.
//!
//! One table serves all four quarters: a quarter's placements do not depend on where the
//! quarter lies, and its diagonals move to board coordinates with one shift each. It holds,
//! for every set of rows `S` and columns `C` of a `rows x cols` rectangle, the placements of
//! one queen in each row of `S` on the columns of `C`, one each, no two on a diagonal. The
//! rectangle is `(n - 1) / 2` rows by `n / 2` columns: the rows between a north and a south
//! quarter (one on odd boards, two on even ones) are joined to the south quarter as the count
//! goes ([`super::middle_rows`]). n = 19: 0.9 million placements of the 9 x 9 quarter, 7 MB;
//! n = 20: 2.4 million of the 9 x 10 one, 20 MB.

use super::Lines;

/// Every placement of queens on a `rows x cols` rectangle, at most one a row and a column, by
/// rows and columns used.
#[derive(Debug)]
pub struct QuarterTable {
    rows: u32,
    cols: u32,
    /// The placements of rows `S` and columns `C` are `placements[starts[i]..starts[i + 1]]`,
    /// `i = S << cols | C`.
    starts: Vec<u32>,
    /// A placement's "\" diagonals (bit `c - r + rows - 1`) in the low word, its "/" ones
    /// (bit `c + r`) in the high word, in the rectangle's coordinates.
    placements: Vec<u64>,
}

/// Calls `leaf(rows, cols, diagonals)` for every placement at or below row `r`.
fn each_placement(
    table: (u32, u32),
    r: u32,
    used: (u32, u32),
    diagonals: (u32, u32),
    leaf: &mut impl FnMut(u32, u32, u64),
) {
    let (rows, cols) = table;
    if r == rows {
        leaf(
            used.0,
            used.1,
            u64::from(diagonals.0) | u64::from(diagonals.1) << 32,
        );
        return;
    }
    each_placement(table, r + 1, used, diagonals, leaf);
    for c in 0..cols {
        let (falling, rising) = (1 << (c + rows - 1 - r), 1 << (c + r));
        if used.1 >> c & 1 == 0 && diagonals.0 & falling == 0 && diagonals.1 & rising == 0 {
            let used = (used.0 | 1 << r, used.1 | 1 << c);
            let diagonals = (diagonals.0 | falling, diagonals.1 | rising);
            each_placement(table, r + 1, used, diagonals, leaf);
        }
    }
}

impl QuarterTable {
    /// The table of a `rows x cols` rectangle (two passes: sizes, then placements).
    pub fn new(rows: u32, cols: u32) -> QuarterTable {
        let index = |s: u32, c: u32| ((s << cols) | c) as usize;
        let mut starts = vec![0u32; (1 << (rows + cols)) + 1];
        each_placement((rows, cols), 0, (0, 0), (0, 0), &mut |s, c, _| {
            starts[index(s, c) + 1] += 1;
        });
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut placements = vec![0u64; starts[starts.len() - 1] as usize];
        each_placement((rows, cols), 0, (0, 0), (0, 0), &mut |s, c, d| {
            let slot = &mut next[index(s, c)];
            placements[*slot as usize] = d;
            *slot += 1;
        });
        QuarterTable {
            rows,
            cols,
            starts,
            placements,
        }
    }

    /// The placements on rows `rows` and columns `cols` (rectangle coordinates).
    #[inline(always)]
    pub fn placements(&self, rows: u32, cols: u32) -> &[u64] {
        let i = ((rows << self.cols) | cols) as usize;
        &self.placements[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The rows of the rectangle.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// The columns of the rectangle.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// The diagonals, on an `n x n` board, of a placement of this rectangle put with its
    /// corner at row `row`, column `col`.
    #[inline(always)]
    pub fn on_board(&self, n: u32, corner: (u32, u32), placement: u64) -> Lines {
        on_board(n, self.rows, corner, placement)
    }
}

/// The diagonals, on an `n x n` board, of a placement of a rectangle of `rows` rows (in its
/// coordinates, as a [`QuarterTable`] holds them) put with its corner at row `row`, column
/// `col`.
#[inline(always)]
pub fn on_board(n: u32, rows: u32, (row, col): (u32, u32), placement: u64) -> Lines {
    Lines {
        falling: (placement & u64::from(u32::MAX)) << (col + n - row - rows),
        rising: (placement >> 32) << (col + row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's sizes are the numbers of placements of queens on a rectangle, at most one a
    /// row and a column (counted here by brute force over all cell subsets).
    #[test]
    fn the_table_holds_every_placement_once() {
        for (rows, cols) in [(3, 3), (4, 3), (4, 4), (5, 4)] {
            let table = QuarterTable::new(rows, cols);
            let cells = rows * cols;
            let mut expected = vec![0u32; 1 << (rows + cols)];
            for subset in 0u32..1 << cells {
                let queens: Vec<(i32, i32)> = (0..cells)
                    .filter(|i| subset >> i & 1 == 1)
                    .map(|i| ((i / cols) as i32, (i % cols) as i32))
                    .collect();
                let attack = |a: &(i32, i32), b: &(i32, i32)| {
                    a.0 == b.0 || a.1 == b.1 || a.0 - a.1 == b.0 - b.1 || a.0 + a.1 == b.0 + b.1
                };
                let free = queens
                    .iter()
                    .enumerate()
                    .all(|(i, a)| queens[i + 1..].iter().all(|b| !attack(a, b)));
                if free {
                    let s = queens.iter().fold(0, |m, q| m | 1 << q.0);
                    let c = queens.iter().fold(0, |m, q| m | 1 << q.1);
                    expected[((s << cols) | c) as usize] += 1;
                }
            }
            for s in 0..1 << rows {
                for c in 0..1 << cols {
                    let found = table.placements(s, c).len() as u32;
                    assert_eq!(found, expected[((s << cols) | c) as usize], "{rows}x{cols}");
                }
            }
        }
    }
}
