//! Proven optimal tour lengths of the TSPLIB ATSP instances (TSPLIB95, G. Reinelt), used to
//! check results and to start a search at the optimum as the thesis's experiments do.

/// `(name, optimal tour length)`; the ftv90..ftv160 instances are the first N+1 cities of
/// ftv170.
pub const TSPLIB_ATSP_OPTIMA: [(&str, i64); 22] = [
    ("br17", 39),
    ("ft70", 38673),
    ("ftv33", 1286),
    ("ftv35", 1473),
    ("ftv38", 1530),
    ("ftv44", 1613),
    ("ftv64", 1839),
    ("ftv70", 1950),
    ("ftv90", 1579),
    ("ftv100", 1788),
    ("ftv110", 1958),
    ("ftv120", 2166),
    ("ftv130", 2307),
    ("ftv140", 2420),
    ("ftv150", 2611),
    ("ftv160", 2683),
    ("ftv170", 2755),
    ("p43", 5620),
    ("rbg323", 1326),
    ("rbg358", 1163),
    ("rbg403", 2465),
    ("rbg443", 2720),
];

/// The proven optimum of the TSPLIB instance `name` (as in its NAME field), if known.
pub fn known_optimum(name: &str) -> Option<i64> {
    let name = name.trim().trim_end_matches(".atsp");
    TSPLIB_ATSP_OPTIMA
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, cost)| cost)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optima_are_found_by_name() {
        assert_eq!(known_optimum("ftv44"), Some(1613));
        assert_eq!(known_optimum("br17.atsp"), Some(39));
        assert_eq!(known_optimum("nope"), None);
    }
}

/// Nodes (every feasible node at depths 1..=N, solutions included: the thesis's Table 1
/// definition) and solutions (OEIS A000170) of the permutation N-Queens search, N = 1..=18.
/// N <= 16 were counted by an independent recursive bitboard counter; N = 17 and 18 are the
/// thesis's Table 1 values, which the GPU strategies reproduce.
pub const PERM_QUEENS: [(usize, u64, u64); 18] = [
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

#[cfg(test)]
mod perm_queens_tests {
    use super::*;
    use crate::queens::count;
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
