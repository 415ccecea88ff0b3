//! Solutions fixed by a half turn or a quarter turn, and the unique count from them by
//! Burnside's lemma: the number of classes is the average number of solutions each of the eight
//! symmetries fixes. For n > 1 no solution is fixed by a reflection (a mirror-symmetric
//! solution would need two queens in one column or on one diagonal), so
//!
//! ```text
//! unique = (total + fixed(half turn) + 2 * fixed(quarter turn)) / 8
//! ```
//!
//! The GPU backend counts only totals; this gives it the unique count at the cost of a search
//! over half (or a quarter) of the board, a tiny fraction of the whole.

use rayon::prelude::*;
use thicket_core::{Error, Result};

use crate::lines::LineBoard;

/// A rotation subgroup whose fixed solutions are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// Solutions unchanged by a half turn.
    Half,
    /// Solutions unchanged by a quarter turn.
    Quarter,
}

/// The cells that the queen at `(r, c)` forces under the turn (itself included, no repeats).
fn orbit(n: u32, turn: Turn, (r, c): (u32, u32)) -> ([(u32, u32); 4], usize) {
    let last = n - 1;
    let cells = match turn {
        Turn::Half => [(r, c), (last - r, last - c), (r, c), (r, c)],
        Turn::Quarter => [(r, c), (c, last - r), (last - r, last - c), (last - c, r)],
    };
    let len = match turn {
        Turn::Half => 2,
        Turn::Quarter => 4,
    };
    let mut unique = [(0, 0); 4];
    let mut count = 0;
    for cell in &cells[..len] {
        if !unique[..count].contains(cell) {
            unique[count] = *cell;
            count += 1;
        }
    }
    (unique, count)
}

/// The board with the whole orbit of `(r, c)` placed, if every cell of it is free.
fn place_orbit(board: &LineBoard, n: u32, turn: Turn, cell: (u32, u32)) -> Option<LineBoard> {
    let (cells, count) = orbit(n, turn, cell);
    cells[..count].iter().try_fold(*board, |b, &(r, c)| {
        let open = b.open_rows() >> r & 1 == 1 && b.free_in_row(r) >> c & 1 == 1;
        open.then(|| b.place(r, c))
    })
}

/// Fixed solutions below `board`: the lowest open row decides the next orbit.
fn count_below(board: &LineBoard, n: u32, turn: Turn) -> u64 {
    let open = board.open_rows();
    if open == 0 {
        return 1;
    }
    let row = open.trailing_zeros();
    let mut free = board.free_in_row(row);
    let mut sum = 0;
    while free != 0 {
        let col = free.trailing_zeros();
        free &= free - 1;
        if let Some(next) = place_orbit(board, n, turn, (row, col)) {
            sum += count_below(&next, n, turn);
        }
    }
    sum
}

/// Solutions of `n` queens (1 <= n <= 32) that the turn leaves unchanged; the first row's
/// choices run in parallel on the current rayon pool.
pub fn count_fixed(n: usize, turn: Turn) -> u64 {
    let empty = LineBoard::empty(n);
    let n = n as u32;
    (0..n)
        .into_par_iter()
        .filter_map(|col| place_orbit(&empty, n, turn, (0, col)))
        .map(|board| count_below(&board, n, turn))
        .sum()
}

/// The number of fundamental solutions of `n` queens by Burnside's lemma, from the total and
/// the numbers of solutions fixed by a half turn and by a quarter turn ([`count_fixed`]).
pub fn unique_from_total(n: usize, total: u128, half: u64, quarter: u64) -> Result<u128> {
    if n == 1 {
        return Ok(total);
    }
    let (half, quarter) = (u128::from(half), u128::from(quarter));
    let orbits_times_8 = total
        .checked_add(half)
        .and_then(|s| s.checked_add(2 * quarter))
        .ok_or_else(|| Error::Overflow("the Burnside sum exceeds 128 bits".into()))?;
    if orbits_times_8 % 8 != 0 {
        return Err(Error::Verification(format!(
            "total {total} with {half} half-turn and {quarter} quarter-turn symmetric solutions \
             is not a whole number of classes: the total is wrong"
        )));
    }
    Ok(orbits_times_8 / 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symmetry::Symmetry;
    use crate::verify::all_solutions;
    use crate::verify::known_counts;

    #[test]
    fn fixed_solutions_match_brute_force() {
        for n in 1..=10 {
            let all = all_solutions(n);
            let fixed_by =
                |g: Symmetry| all.iter().filter(|s| g.apply_to_solution(s) == **s).count() as u64;
            assert_eq!(
                count_fixed(n, Turn::Half),
                fixed_by(Symmetry::Rotate180),
                "n={n}"
            );
            assert_eq!(
                count_fixed(n, Turn::Quarter),
                fixed_by(Symmetry::Rotate90),
                "n={n}"
            );
        }
    }

    #[test]
    fn burnside_gives_the_oeis_unique_counts() {
        for n in 1..=15 {
            let (total, unique) = known_counts(n).unwrap();
            let (half, quarter) = (count_fixed(n, Turn::Half), count_fixed(n, Turn::Quarter));
            assert_eq!(
                unique_from_total(n, total, half, quarter).unwrap(),
                unique,
                "n={n}"
            );
        }
    }

    #[test]
    fn a_wrong_total_is_caught() {
        let (total, _) = known_counts(12).unwrap();
        let (half, quarter) = (count_fixed(12, Turn::Half), count_fixed(12, Turn::Quarter));
        assert!(unique_from_total(12, total + 2, half, quarter).is_err());
    }
}
