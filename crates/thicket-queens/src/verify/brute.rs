//! An independent verifier for small boards: enumerate every solution with a plain
//! array-based backtracker and count the classes by putting each solution into canonical form
//! under all eight symmetries. Slow, simple, and sharing nothing with the fast solvers.

use std::collections::HashSet;

use crate::symmetry::Symmetry;

/// Every solution of `n` queens, the queen's column in each row, in lexicographic order.
pub fn all_solutions(n: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut board = Vec::with_capacity(n);
    extend(n, &mut board, &mut out);
    out
}

fn extend(n: usize, board: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
    let row = board.len();
    if row == n {
        out.push(board.clone());
        return;
    }
    for col in 0..n {
        let safe = board.iter().enumerate().all(|(r, &c)| {
            let c = usize::from(c);
            c != col && row - r != c.abs_diff(col)
        });
        if safe {
            board.push(col as u8);
            extend(n, board, out);
            board.pop();
        }
    }
}

/// `(total, unique)` for `n` queens by brute force.
pub fn brute_force_counts(n: usize) -> (u128, u128) {
    let solutions = all_solutions(n);
    let classes: HashSet<Vec<u8>> = solutions
        .iter()
        .map(|s| {
            Symmetry::ALL
                .iter()
                .map(|g| g.apply_to_solution(s))
                .min()
                .expect("eight images")
        })
        .collect();
    (solutions.len() as u128, classes.len() as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::known_counts;

    #[test]
    fn brute_force_matches_oeis_on_small_boards() {
        for n in 1..=9 {
            assert_eq!(Some(brute_force_counts(n)), known_counts(n), "n={n}");
        }
    }
}
