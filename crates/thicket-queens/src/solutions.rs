//! Listing solutions: the first `k` in lexicographic order (by the queen's column in row 0,
//! then row 1, ...), and drawing them as boards.

/// The first `k` solutions of `n` queens in lexicographic order, as the queen's column in
/// each row. Stops as soon as `k` are found, so it is quick even where counting is not.
pub fn first_solutions(n: usize, k: usize) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    if k == 0 || n == 0 || n > 32 {
        return found;
    }
    let board = crate::count::board_mask(n);
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    let mut placed = [0u8; 32];
    let mut row = 0;
    let (mut cols, mut left, mut right) = (0u32, 0u32, 0u32);
    let mut free = board;
    loop {
        if free == 0 {
            if row == 0 {
                return found;
            }
            row -= 1;
            (free, cols, left, right) = stack[row];
            continue;
        }
        let bit = free & free.wrapping_neg();
        free ^= bit;
        placed[row] = bit.trailing_zeros() as u8;
        if row + 1 == n {
            found.push(placed[..n].to_vec());
            if found.len() == k {
                return found;
            }
            continue;
        }
        stack[row] = (free, cols, left, right);
        row += 1;
        cols |= bit;
        left = ((left | bit) << 1) & board;
        right = (right | bit) >> 1;
        free = board & !(cols | left | right);
    }
}

/// One line per solution: the columns of rows 0..n separated by spaces.
pub fn format_solution(solution: &[u8]) -> String {
    solution
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The solution drawn as a board, `Q` for a queen and `.` for an empty square.
pub fn draw_board(solution: &[u8]) -> String {
    let n = solution.len();
    let mut out = String::with_capacity(n * (2 * n + 1));
    for &col in solution {
        let line: Vec<&str> = (0..n)
            .map(|c| if c == usize::from(col) { "Q" } else { "." })
            .collect();
        out.push_str(&line.join(" "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::all_solutions;

    #[test]
    fn first_solutions_are_the_lexicographic_prefix() {
        for n in 1..=8 {
            let all = all_solutions(n);
            assert_eq!(
                first_solutions(n, 5),
                all.iter().take(5).cloned().collect::<Vec<_>>()
            );
        }
        assert_eq!(first_solutions(8, 1), vec![vec![0, 4, 7, 5, 2, 6, 1, 3]]);
    }

    #[test]
    fn the_first_solution_of_a_large_board_comes_quickly() {
        let first = &first_solutions(32, 1)[0];
        assert_eq!(first.len(), 32);
    }

    #[test]
    fn boards_are_drawn_row_by_row() {
        assert_eq!(
            draw_board(&[1, 3, 0, 2]),
            ". Q . .\n. . . Q\nQ . . .\n. . Q .\n"
        );
        assert_eq!(format_solution(&[1, 3, 0, 2]), "1 3 0 2");
    }
}
