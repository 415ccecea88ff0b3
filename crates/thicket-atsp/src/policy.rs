//! The default search, chosen per instance from the root's assignment bound.
//!
//! The assignment bound with subtour-elimination branching (see `subtour_search`) costs
//! O(n^2) per node, but it can only close a gap that cheap subtours do not dominate; the
//! Held–Karp bound with path extension (see `held_karp_search`) costs many 1-arborescences per
//! node and is far stronger where they do. The root's assignment bound (O(n^3), a small part
//! of any proof) says which case an instance is: where it leaves at most
//! [`ASSIGNMENT_GAP_LIMIT`] of the cost of the tour patched from its cycles open, the subtour search runs (every
//! ftv, ft and rbg instance of TSPLIB: their bounds are 0-10% below the optimum); otherwise
//! the Held–Karp search does (br17 and p43, whose assignment bounds are 0 and 148 against
//! optima of 39 and 5620). A Held–Karp ascent to compare with would cost more than many whole
//! proofs on the large instances (39 s for 300 steps on rbg323, which the subtour search
//! proves in under a second).

use super::instance::{Instance, MAX_COST, MAX_N};
use super::lap::{Lap, LapScratch};
use super::search::Bound;
use super::subtour_search::patched_tour;

/// The largest share of the heuristic tour's cost that the assignment bound may leave open
/// for the subtour search to be chosen.
const ASSIGNMENT_GAP_LIMIT: f64 = 1.0 / 3.0;

/// How the search branches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Branching {
    /// Depth-first path extension from city 0 (Carneiro 2017), with any bound.
    Path,
    /// Subtour elimination on the assignment relaxation, cheapest bound first (Carpaneto,
    /// Dell'Amico and Toth 1995), with the assignment bound only.
    Subtour,
}

impl Branching {
    /// The name the command line spells.
    pub fn name(self) -> &'static str {
        match self {
            Branching::Path => "path",
            Branching::Subtour => "subtour",
        }
    }
}

/// What the root says about an instance, and the search it leads to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RootBounds {
    /// The cost of the tour patched from the assignment's cycles.
    pub(crate) upper: i64,
    /// The assignment bound.
    pub(crate) assignment: i64,
}

impl RootBounds {
    /// The assignment bound at the root of `inst`, and the tour patched from its cycles as
    /// `(cost, tour)` (Karp's patching and local search: a first incumbent as good as the
    /// nearest-neighbour heuristic's on most instances, at a fraction of its O(n^3) cost).
    pub(crate) fn of(inst: &Instance) -> (RootBounds, (i64, Vec<usize>)) {
        let n = inst.n;
        let mut costs = inst.cost.clone();
        for i in 0..n {
            // No city may be assigned to itself: above any tour's cost.
            costs[i * n + i] = 4 * MAX_COST * MAX_N as i64;
        }
        let lap = Lap::solve(n, &costs, &mut LapScratch::default());
        let succ: Vec<usize> = (0..n).map(|i| lap.col_of(i)).collect();
        let (upper, tour) = patched_tour(inst, &succ);
        let root = RootBounds {
            upper,
            assignment: lap.value(n, &costs).min(upper),
        };
        (root, (upper, tour))
    }

    /// No tour costs less.
    pub(crate) fn lower_bound(&self) -> i64 {
        self.assignment
    }

    /// The search these bounds call for.
    pub(crate) fn choice(&self) -> (Bound, Branching) {
        let open = (self.upper - self.assignment) as f64;
        if open <= ASSIGNMENT_GAP_LIMIT * self.upper as f64 {
            (Bound::Assignment, Branching::Subtour)
        } else {
            (Bound::HeldKarp, Branching::Path)
        }
    }

    /// Why, in one line for the run's notes.
    pub(crate) fn note(&self) -> String {
        let (bound, branching) = self.choice();
        format!(
            "chose the {} bound with {} branching: the assignment bound {} leaves {:.1}% of the patched tour's {} open (the subtour search runs up to {:.0}%)",
            super::run::bound_name(bound),
            branching.name(),
            self.assignment,
            100.0 * (self.upper - self.assignment) as f64 / self.upper.max(1) as f64,
            self.upper,
            100.0 * ASSIGNMENT_GAP_LIMIT
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weak_assignment_bound_calls_for_held_karp() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data");
        for (name, expected) in [
            ("br17", Bound::HeldKarp),
            ("p43", Bound::HeldKarp),
            ("ftv33", Bound::Assignment),
            ("ft70", Bound::Assignment),
        ] {
            let inst = crate::read_tsplib(format!("{data}/{name}.atsp")).unwrap();
            let (root, (cost, tour)) = RootBounds::of(&inst);
            let optimum = crate::known_optimum(name).unwrap();
            assert!(root.assignment <= optimum && optimum <= cost);
            crate::verify(&inst, &tour, cost).unwrap();
            assert_eq!(root.choice().0, expected, "{name}: {root:?}");
        }
    }
}
