//! The column-cut join: the total count of N = 10..20 on the CPU from pairs of half boards.
//!
//! The board is cut down the middle into a west and an east half of `h = n / 2` columns each
//! (odd `n`: the middle column between them holds one queen, in row `m`, and the halves share
//! the other `n - 1` rows). Every solution puts exactly `h` queens in the east half, in some
//! set `R` of rows, and the other `h` in the west, in the other rows. For a fixed `R`, an east
//! half (one queen in each row of `R`, each east column once, no two on a line) and a west half
//! (the same on the other rows and columns) always fit on rows and columns: they form a
//! solution exactly when they share no diagonal. So the count of `R` is the number of
//! disjoint pairs of diagonal keys, one key per half (the `n - 1` diagonals of each direction
//! that cross the cut, 2n - 2 bits), counted 512 pairs at a time ([`matcher`]), long lists
//! first split by the diagonals both hold most often ([`classes`]).
//!
//! Symmetry: a solution's mirror image top-to-bottom has east rows `R` reversed, its mirror
//! left-to-right has the complement of `R`. Both keep the number of solutions of a row set, so
//! only the smallest `R` of each orbit is counted, weighted by the orbit's size (about 4x less
//! work). For odd `n` the top-to-bottom mirror moves the middle queen from row `m` to row
//! `n - 1 - m`, so only `m <= n / 2` is counted, the rows above the centre twice.
//!
//! The halves of each `R` are joined from one table of quarter-board placements ([`quarters`])
//! and kept only while their `R` is counted: memory is the quarter table, shared (`(n - 1) / 2`
//! rows by `h` columns: the one or two middle rows are joined to a south quarter per thread,
//! [`middle_rows`]), and per thread two key lists and their copies sorted into classes, one
//! block's tables and two middle-rows tables; the row sets are listed one middle queen's row at a time. The join gives the total only; the fundamental count
//! comes from Burnside's lemma and the rotation-symmetric solutions ([`crate::rotations`]),
//! about 1.5% of the time at n = 16.

mod classes;
mod matcher;
mod middle_rows;
mod quarters;

use rayon::prelude::*;
use thicket_core::Progress;

use crate::count::board_mask;
use matcher::{disjoint_pairs, MatchScratch};
use middle_rows::MiddleRowsTable;
use quarters::{on_board, QuarterTable};

/// The board sizes the column join counts: below, the halves are too small to gain; above, the
/// quarter table outgrows memory (its `(n - 1) / 2 x n / 2` placements, 8 bytes each: n = 18
/// 2.5 MB, n = 19 7 MB, n = 20 20 MB, n = 21 60 MB), and the constellations' line search
/// counts.
pub const COLUMN_JOIN_SIZES: std::ops::RangeInclusive<usize> = 10..=20;

/// Queens' diagonals in board coordinates: "\\" ones (bit `c + n - 1 - r`) and "/" ones
/// (bit `c + r`).
#[derive(Debug, Clone, Copy, Default)]
struct Lines {
    falling: u64,
    rising: u64,
}

impl Lines {
    /// The diagonals of one queen at row `r`, column `c`.
    fn queen(n: u32, r: u32, c: u32) -> Lines {
        Lines {
            falling: 1u64 << (c + n - 1 - r),
            rising: 1u64 << (c + r),
        }
    }
}

/// Where the cut lies on an `n x n` board.
#[derive(Debug, Clone, Copy)]
struct Cut {
    n: u32,
    /// Columns per half.
    half: u32,
    /// The first east column: the diagonals that cross the cut are bits `first_east..` of
    /// both diagonal sets.
    first_east: u32,
    /// Diagonals of each direction that cross the cut.
    key_len: u32,
    /// Rows of the quarter table: `(n - 1) / 2`, so that a half's north quarter is rows
    /// `0..quarter_rows` and its south part the other `half + 1` rows.
    quarter_rows: u32,
    /// The rows between the north and the south quarter, joined to the south one per thread:
    /// one on odd boards, two on even ones.
    middle_rows: u32,
}

impl Cut {
    fn new(n: usize) -> Cut {
        let n = n as u32;
        let half = n / 2;
        let first_east = n - half;
        let quarter_rows = (n - 1) / 2;
        Cut {
            n,
            half,
            first_east,
            key_len: half + n - 1 - first_east,
            quarter_rows,
            middle_rows: n - 2 * quarter_rows,
        }
    }

    /// The diagonals that cross the cut, as one key: "\" ones in the low `key_len` bits, "/"
    /// ones above.
    #[inline(always)]
    fn key(&self, falling: u64, rising: u64) -> u64 {
        let mask = (1u64 << self.key_len) - 1;
        (falling >> self.first_east & mask) | (rising >> self.first_east & mask) << self.key_len
    }

    /// The middle column's queen of odd boards.
    fn start(&self, middle_queen_row: Option<u32>) -> Lines {
        match middle_queen_row {
            Some(m) => Lines::queen(self.n, m, self.half),
            None => Lines::default(),
        }
    }

    /// The rows whose queens lie in the halves: all but the middle queen's.
    fn half_rows(&self, middle_queen_row: Option<u32>) -> u32 {
        board_mask(self.n as usize) & !middle_queen_row.map_or(0, |m| 1 << m)
    }

    /// `rows` mirrored top to bottom.
    fn reversed(&self, rows: u32) -> u32 {
        rows.reverse_bits() >> (32 - self.n)
    }
}

/// The next larger set with as many bits as `x` (non-zero): Gosper's hack.
#[inline(always)]
fn next_combination(x: u32) -> u32 {
    let lowest = x & x.wrapping_neg();
    let carry = x + lowest;
    carry | (((x ^ carry) >> 2) / lowest)
}

/// Appends the keys of every half on `rows` (a board row mask) and the `cut.half` columns
/// from `first_col`: each pair of a north quarter placement and a south one on complementary
/// columns that share no diagonal and leave the middle queen's lines free. A half with a queen
/// on a middle row takes its south placements, one or two rows taller, from the thread's
/// `middle_rows` table. `south` is scratch space. Written once and compiled for each
/// CPU path.
macro_rules! each_half {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        fn $name(
            cut: &Cut,
            (table, middle_rows): (&QuarterTable, &mut MiddleRowsTable),
            (rows, first_col): (u32, u32),
            middle: &Lines,
            south: &mut Vec<(u64, u64, u64)>,
            keys: &mut Vec<u64>,
        ) {
            let (n, half) = (cut.n, cut.half);
            let all_cols = board_mask(half as usize);
            let quarter = cut.quarter_rows;
            let north_rows = rows & ((1 << quarter) - 1);
            // The rows of the south part: the middle rows (low bits), then the south quarter.
            let south_rows = rows >> quarter & ((1 << (half + 1)) - 1);
            let below = south_rows >> cut.middle_rows;
            let holds_middle_rows = south_rows & ((1 << cut.middle_rows) - 1) != 0;
            let (south_corner, south_height) = if holds_middle_rows {
                middle_rows.hold(table, cut.middle_rows, south_rows);
                ((quarter, first_col), half + 1)
            } else {
                ((quarter + cut.middle_rows, first_col), quarter)
            };
            let middle_rows = &*middle_rows;
            let mut cols: u32 = (1 << north_rows.count_ones()) - 1;
            while cols <= all_cols {
                let north = table.placements(north_rows, cols);
                south.clear();
                if !north.is_empty() {
                    let south_cols = all_cols ^ cols;
                    let placed = if holds_middle_rows {
                        middle_rows.placements(south_cols)
                    } else {
                        table.placements(below, south_cols)
                    };
                    for &placement in placed {
                        let lines = on_board(n, south_height, south_corner, placement);
                        if lines.falling & middle.falling | lines.rising & middle.rising == 0 {
                            south.push((lines.falling, lines.rising, cut.key(lines.falling, lines.rising)));
                        }
                    }
                }
                if !south.is_empty() {
                    // Branch-free: every pair writes its key, only those that fit keep it
                    // (about half fail, unpredictably); the room for all is made once.
                    let mut end = keys.len();
                    keys.resize(end + north.len() * south.len(), 0);
                    for &placement in north {
                        let above = table.on_board(n, (0, first_col), placement);
                        if above.falling & middle.falling | above.rising & middle.rising != 0 {
                            continue;
                        }
                        let key = cut.key(above.falling, above.rising);
                        for &(falling, rising, south_key) in south.iter() {
                            keys[end] = key | south_key;
                            end += usize::from(falling & above.falling | rising & above.rising == 0);
                        }
                    }
                    keys.truncate(end);
                }
                if cols == 0 {
                    break;
                }
                cols = next_combination(cols);
            }
        }
    };
}

each_half!(each_half_portable);
thicket_core::fast_path!(each_half!(each_half_fast));

/// One row set to count: the east rows, and how many row sets of the whole count it stands
/// for (the middle queen's row, on odd boards, is its list's).
#[derive(Debug, Clone, Copy)]
struct RowSet {
    east_rows: u32,
    weight: u32,
}

/// The middle queen's rows to count: none on even boards, else the rows down to the centre.
fn middle_queen_rows(cut: &Cut) -> Vec<Option<u32>> {
    if cut.n.is_multiple_of(2) {
        vec![None]
    } else {
        (0..=cut.n / 2).map(Some).collect()
    }
}

/// The row sets to count with the middle queen in `middle_queen_row`, one per symmetry orbit, each
/// weighted by its orbit's size.
fn row_sets(cut: &Cut, middle_queen_row: Option<u32>) -> Vec<RowSet> {
    let n = cut.n;
    let rows = cut.half_rows(middle_queen_row);
    // Top-to-bottom mirroring maps this middle row to itself only at the centre (and for even
    // boards); elsewhere it maps to the row counted twice.
    let (mirrored_here, weight) = match middle_queen_row {
        Some(m) if m != n / 2 => (false, 2),
        _ => (true, 1),
    };
    let spread = |x: u32| match middle_queen_row {
        Some(m) => (x & ((1 << m) - 1)) | (x >> m) << (m + 1),
        None => x,
    };
    let mut sets = Vec::new();
    // Every subset of `half` of the `2 * half` rows.
    let mut x: u32 = (1 << cut.half) - 1;
    let end = 1u32 << (2 * cut.half);
    while x < end {
        let east_rows = spread(x);
        let mut orbit = [east_rows, rows & !east_rows, east_rows, east_rows];
        if mirrored_here {
            orbit[2] = cut.reversed(orbit[0]);
            orbit[3] = cut.reversed(orbit[1]);
        }
        if orbit.iter().all(|&o| east_rows <= o) {
            let mut distinct = orbit;
            distinct.sort_unstable();
            let size = 1 + distinct.windows(2).filter(|w| w[0] != w[1]).count() as u32;
            sets.push(RowSet {
                east_rows,
                weight: weight * size,
            });
        }
        x = next_combination(x);
    }
    sets
}

/// A thread's buffers, kept from one row set to the next.
#[derive(Debug, Default)]
struct Scratch {
    east: Vec<u64>,
    west: Vec<u64>,
    /// Each side's middle-rows table, kept while the next row sets share its rows.
    east_middle_rows: MiddleRowsTable,
    west_middle_rows: MiddleRowsTable,
    south: Vec<(u64, u64, u64)>,
    matcher: MatchScratch,
}

/// The solutions of one row set: its east and west halves' keys, then their disjoint pairs.
fn count_row_set(
    cut: &Cut,
    table: &QuarterTable,
    (middle_queen_row, set): (Option<u32>, &RowSet),
    scratch: &mut Scratch,
) -> u64 {
    let middle = cut.start(middle_queen_row);
    let west_rows = cut.half_rows(middle_queen_row) & !set.east_rows;
    for (side, keys, middle_rows) in [
        (
            (set.east_rows, cut.first_east),
            &mut scratch.east,
            &mut scratch.east_middle_rows,
        ),
        (
            (west_rows, 0),
            &mut scratch.west,
            &mut scratch.west_middle_rows,
        ),
    ] {
        keys.clear();
        let tables = (table, middle_rows);
        #[cfg(target_arch = "x86_64")]
        if thicket_core::cpu_path() == thicket_core::CpuPath::Fast {
            // SAFETY: the fast path is taken only where the CPU has its features.
            unsafe { each_half_fast(cut, tables, side, &middle, &mut scratch.south, keys) };
            continue;
        }
        each_half_portable(cut, tables, side, &middle, &mut scratch.south, keys);
    }
    disjoint_pairs(
        &scratch.east,
        &scratch.west,
        2 * cut.key_len,
        &mut scratch.matcher,
    )
}

/// All solutions of `n` queens (`n` in [`COLUMN_JOIN_SIZES`]) on the current rayon pool;
/// progress counts row sets.
pub fn count_total(n: usize, progress: &Progress) -> u128 {
    debug_assert!(COLUMN_JOIN_SIZES.contains(&n));
    let cut = Cut::new(n);
    let table = QuarterTable::new(cut.quarter_rows, cut.half);
    // One middle row's sets at a time, listed twice (the first time only to count them for
    // the progress total, a few ms) rather than all kept: n = 19 has 231 073.
    let middles = middle_queen_rows(&cut);
    let sets_in_all = middles.iter().map(|&m| row_sets(&cut, m).len() as u64);
    progress.set_total(sets_in_all.sum());
    middles
        .iter()
        .map(|&middle_queen_row| {
            row_sets(&cut, middle_queen_row)
                .par_iter()
                .map_init(Scratch::default, |scratch, set| {
                    if progress.stop_requested() {
                        return 0;
                    }
                    let solutions = count_row_set(&cut, &table, (middle_queen_row, set), scratch);
                    progress.inc(1);
                    u128::from(set.weight) * u128::from(solutions)
                })
                .sum::<u128>()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::known_counts;

    /// The weights of the counted row sets add up to every row set there is.
    #[test]
    fn the_orbits_cover_every_row_set() {
        fn binomial(n: u64, k: u64) -> u64 {
            (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
        }
        for n in [10, 11, 12, 13, 16, 17] {
            let cut = Cut::new(n);
            let covered: u64 = middle_queen_rows(&cut)
                .into_iter()
                .flat_map(|m| row_sets(&cut, m))
                .map(|s| u64::from(s.weight))
                .sum();
            let middles = if n % 2 == 0 { 1 } else { n as u64 };
            let half = u64::from(cut.half);
            assert_eq!(covered, middles * binomial(2 * half, half), "n={n}");
        }
    }

    /// Both CPU paths enumerate the same halves (where this CPU has the fast one).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn both_cpu_paths_make_the_same_halves() {
        if !thicket_core::cpu::fast_path_supported() {
            println!("NOTE: this CPU has no fast path, so only the portable one was tested");
            return;
        }
        for n in [11, 12] {
            let cut = Cut::new(n);
            let table = QuarterTable::new(cut.quarter_rows, cut.half);
            let mut middle_rows_table = MiddleRowsTable::default();
            for (middle_queen_row, set) in middle_queen_rows(&cut)
                .into_iter()
                .flat_map(|m| row_sets(&cut, m).into_iter().map(move |set| (m, set)))
            {
                let middle = cut.start(middle_queen_row);
                let (mut portable, mut fast, mut south) = (Vec::new(), Vec::new(), Vec::new());
                let side = (set.east_rows, cut.first_east);
                let tables = (&table, &mut middle_rows_table);
                each_half_portable(&cut, tables, side, &middle, &mut south, &mut portable);
                let tables = (&table, &mut middle_rows_table);
                // SAFETY: the CPU has the fast path's features (checked above).
                unsafe { each_half_fast(&cut, tables, side, &middle, &mut south, &mut fast) };
                assert_eq!(fast, portable, "n={n}");
            }
        }
    }

    /// The join's totals are OEIS's (the unique counts, by Burnside, are checked through
    /// `count_cpu` in the crate's tests).
    #[test]
    fn the_join_gives_the_oeis_totals() {
        for n in COLUMN_JOIN_SIZES.take_while(|&n| n <= 13) {
            let total = count_total(n, &Progress::hidden());
            assert_eq!(total, known_counts(n).unwrap().0, "n={n}");
        }
    }
}
