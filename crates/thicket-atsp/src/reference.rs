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
