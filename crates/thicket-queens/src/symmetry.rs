//! The eight symmetries of the square board (the dihedral group D4) acting on cells and on
//! complete solutions.

/// One of the eight rotations and reflections of an `n x n` board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetry {
    /// Leaves every cell in place.
    Identity,
    /// Quarter turn clockwise.
    Rotate90,
    /// Half turn.
    Rotate180,
    /// Quarter turn anticlockwise.
    Rotate270,
    /// Mirror left-right.
    MirrorColumns,
    /// Mirror top-bottom.
    MirrorRows,
    /// Reflection in the main diagonal.
    Transpose,
    /// Reflection in the anti-diagonal.
    AntiTranspose,
}

impl Symmetry {
    /// All eight symmetries, the identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::MirrorColumns,
        Symmetry::MirrorRows,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// Where the cell `(row, col)` of an `n x n` board goes.
    pub fn apply(self, n: usize, (row, col): (usize, usize)) -> (usize, usize) {
        let last = n - 1;
        match self {
            Symmetry::Identity => (row, col),
            Symmetry::Rotate90 => (col, last - row),
            Symmetry::Rotate180 => (last - row, last - col),
            Symmetry::Rotate270 => (last - col, row),
            Symmetry::MirrorColumns => (row, last - col),
            Symmetry::MirrorRows => (last - row, col),
            Symmetry::Transpose => (col, row),
            Symmetry::AntiTranspose => (last - col, last - row),
        }
    }

    /// The image of a complete solution given as the queen's column in each row.
    pub fn apply_to_solution(self, solution: &[u8]) -> Vec<u8> {
        let n = solution.len();
        let mut image = vec![0u8; n];
        for (row, &col) in solution.iter().enumerate() {
            let (r, c) = self.apply(n, (row, usize::from(col)));
            image[r] = c as u8;
        }
        image
    }
}

/// True when `solution` is the lexicographically smallest of its images under `group`.
pub fn is_smallest_image(solution: &[u8], group: &[Symmetry]) -> bool {
    group
        .iter()
        .all(|g| solution <= g.apply_to_solution(solution).as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symmetry_is_a_permutation_of_the_cells() {
        let n = 5;
        for g in Symmetry::ALL {
            let mut seen = vec![false; n * n];
            for r in 0..n {
                for c in 0..n {
                    let (r2, c2) = g.apply(n, (r, c));
                    assert!(!seen[r2 * n + c2]);
                    seen[r2 * n + c2] = true;
                }
            }
        }
    }

    #[test]
    fn quarter_turn_four_times_is_identity() {
        let n = 7;
        let mut cell = (1, 4);
        for _ in 0..4 {
            cell = Symmetry::Rotate90.apply(n, cell);
        }
        assert_eq!(cell, (1, 4));
    }

    #[test]
    fn the_four_queens_solution_is_symmetric_under_a_quarter_turn() {
        let solution = [1u8, 3, 0, 2];
        assert_eq!(Symmetry::Rotate90.apply_to_solution(&solution), solution);
        assert_ne!(
            Symmetry::MirrorColumns.apply_to_solution(&solution),
            solution
        );
    }
}
