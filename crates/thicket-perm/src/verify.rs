//! The independent verifier: a count of the permutation N-Queens search checked against the
//! thesis's Table 1 (nodes) and OEIS A000170 (solutions), [`perm_queens`].

use thicket_core::{Error, Result};

use crate::cpu::queens::PermQueensCount;

/// Nodes (every feasible node at depths 1..=N, solutions included: the thesis's Table 1
/// definition) and solutions (OEIS A000170) of the permutation N-Queens search, N = 1..=18.
/// N <= 16 were counted by an independent recursive bitboard counter; N = 17 and 18 are the
/// thesis's Table 1 values, which the GPU strategies reproduce.
pub(crate) const PERM_QUEENS: [(usize, u64, u64); 18] = [
    (1, 1, 1),
    (2, 2, 0),
    (3, 5, 0),
    (4, 16, 2),
    (5, 53, 10),
    (6, 152, 4),
    (7, 551, 40),
    (8, 2056, 92),
    (9, 8393, 352),
    (10, 35538, 724),
    (11, 166925, 2680),
    (12, 856188, 14200),
    (13, 4674889, 73712),
    (14, 27358552, 365596),
    (15, 171129071, 2279184),
    (16, 1141190302, 14772512),
    (17, 8017021931, 95815104),
    (18, 59365844490, 666090624),
];

/// The nodes and solutions of the permutation N-Queens search for `n`, if tabulated.
pub fn perm_queens(n: usize) -> Option<(u64, u64)> {
    PERM_QUEENS
        .iter()
        .find(|&&(m, _, _)| m == n)
        .map(|&(_, nodes, solutions)| (nodes, solutions))
}

/// Checks `count` against Table 1 and OEIS: `Ok(true)` when its nodes and solutions are the
/// tabulated ones; a wrong count is an [`Error::Verification`], a board the table does not
/// list (N > 18) an [`Error::InvalidInput`].
///
/// ```
/// use thicket_perm::{verify, PermQueensCount};
///
/// let eight = PermQueensCount { n: 8, nodes: 2056, solutions: 92 };
/// assert!(verify(&eight).unwrap());
/// assert!(verify(&PermQueensCount { nodes: 2057, ..eight }).is_err());
/// ```
pub fn verify(count: &PermQueensCount) -> Result<bool> {
    match perm_queens(count.n) {
        Some(known) if known == (count.nodes, count.solutions) => Ok(true),
        Some(_) => Err(Error::Verification(format!(
            "perm-queens {}: the counts differ from Table 1",
            count.n
        ))),
        None => Err(Error::InvalidInput(format!(
            "perm-queens {}: Table 1 lists no counts to verify against",
            count.n
        ))),
    }
}

#[cfg(test)]
mod perm_queens_tests {
    use super::*;
    use crate::cpu::queens::count;
    use crate::strategy::Strategy;
    use thicket_core::Progress;

    #[test]
    fn the_table_matches_the_serial_search_for_small_boards() {
        for n in 1..=11 {
            let found = count(n, Strategy::Serial, 0, 1, &Progress::hidden()).unwrap();
            assert_eq!(
                perm_queens(n),
                Some((found.nodes, found.solutions)),
                "n = {n}"
            );
        }
        assert_eq!(perm_queens(19), None);
    }
}
