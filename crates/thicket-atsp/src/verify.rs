//! The independent verifier: [`verify`] checks that a tour visits every city once from city 0
//! and costs what the search reported, recomputing the cost from the matrix alone; and the
//! proven optimal tour lengths of the TSPLIB ATSP instances (TSPLIB95, G. Reinelt), used to
//! check a solve's optimality and to start a search at the optimum as the thesis's
//! experiments do.

use thicket_core::{Error, Result};

use crate::heuristic::tour_cost;
use crate::instance::Instance;

/// Checks that `tour` visits every city of `instance` once, starting at city 0, and costs
/// `cost`; [`Error::Verification`] says what is wrong otherwise.
pub fn verify(instance: &Instance, tour: &[usize], cost: i64) -> Result<()> {
    let n = instance.n;
    let wrong = |why: String| {
        Err(Error::Verification(format!(
            "{tour:?} is not a tour: {why}"
        )))
    };
    if tour.len() != n {
        return wrong(format!("{} cities where the instance has {n}", tour.len()));
    }
    if tour.first() != Some(&0) {
        return wrong("it does not start at city 0".into());
    }
    let mut seen = vec![false; n];
    for &city in tour {
        if city >= n {
            return wrong(format!("city {city} is not below {n}"));
        }
        if std::mem::replace(&mut seen[city], true) {
            return wrong(format!("city {city} comes twice"));
        }
    }
    let recomputed = tour_cost(instance, tour);
    if recomputed != cost {
        return Err(Error::Verification(format!(
            "the tour {tour:?} costs {recomputed}, not the {cost} reported"
        )));
    }
    Ok(())
}

/// `(name, optimal tour length)`; the ftv90..ftv160 instances are the first N+1 cities of
/// ftv170.
pub const TSPLIB_ATSP_OPTIMA: [(&str, i64); 27] = [
    ("br17", 39),
    ("ft53", 6905),
    ("ft70", 38673),
    ("ftv33", 1286),
    ("ftv35", 1473),
    ("ftv38", 1530),
    ("ftv44", 1613),
    ("ftv47", 1776),
    ("ftv55", 1608),
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
    ("kro124p", 36230),
    ("p43", 5620),
    ("rbg323", 1326),
    ("rbg358", 1163),
    ("rbg403", 2465),
    ("rbg443", 2720),
    ("ry48p", 14422),
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
    fn tours_are_checked() {
        let inst = Instance::new("t", 3, vec![0, 1, 5, 5, 0, 1, 1, 5, 0]).unwrap();
        assert!(verify(&inst, &[0, 1, 2], 3).is_ok());
        for (tour, cost, why) in [
            (&[0, 1, 2][..], 4, "costs 3, not the 4"),
            (&[0, 1, 1], 3, "city 1 comes twice"),
            (&[1, 0, 2], 11, "start at city 0"),
            (&[0, 1], 1, "2 cities"),
            (&[0, 1, 3], 3, "city 3 is not below 3"),
        ] {
            let error = verify(&inst, tour, cost).unwrap_err();
            assert!(matches!(error, Error::Verification(_)));
            assert!(error.to_string().contains(why), "{error}");
        }
    }

    #[test]
    fn optima_are_found_by_name() {
        assert_eq!(known_optimum("ftv44"), Some(1613));
        assert_eq!(known_optimum("br17.atsp"), Some(39));
        assert_eq!(known_optimum("nope"), None);
    }
}
