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

use std::borrow::Cow;
use std::time::Instant;

use super::heuristic::{nearest_neighbour, tour_cost};
use super::instance::{Instance, MAX_COST, MAX_N};
use super::lap::{Lap, LapScratch};
use super::local_search::descended;
use super::patching::patch_quickly;
use super::search::Bound;
use super::subtour_search::{patched_tour, tour_from};

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

/// How the root polishes the tour patched from its assignment's cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Polish {
    /// Segment insertion to a local optimum, first improvement over every segment and place
    /// (the exact search's first incumbent; O(n^2) a move at n above 120, O(n^3) below, which
    /// took 1.1 s of a 1.9 s limit at n = 1,000).
    Insertion,
    /// Patching in O(n^2) in all ([`patch_quickly`]; Karp's as the exact search patches is
    /// O(n^2) a merge, 1 s on a tilted-drilling instance at n = 1,000), then one descent of
    /// the local search's moves over its neighbour lists (a time-limited run: milliseconds at
    /// n = 1,000, and a tour as good or better).
    Descent,
}

/// What the root says about an instance, and the search it leads to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RootBounds {
    /// The cost of the tour patched from the assignment's cycles.
    pub(crate) upper: i64,
    /// The assignment bound (its duals' where the solve was stopped).
    pub(crate) assignment: i64,
    /// Whether the assignment was solved, not stopped by the deadline.
    pub(crate) solved: bool,
}

impl RootBounds {
    /// The assignment bound at the root of `inst`, and the tour patched from its cycles as
    /// `(cost, tour)` (Karp's patching and local search: a first incumbent as good as the
    /// nearest-neighbour heuristic's on most instances, at a fraction of its O(n^3) cost).
    pub(crate) fn of(inst: &Instance) -> (RootBounds, (i64, Vec<usize>)) {
        let (root, patched, _) = RootBounds::with_duals(inst, Polish::Insertion, None);
        (root, patched)
    }

    /// [`RootBounds::of`], its patched tour polished by `polish`, and the root's assignment
    /// with its duals (whose reduced costs the local search ranks its neighbour lists by, so
    /// that it need not solve it again), solved until `deadline`: where that comes first,
    /// the bound is the duals' (see [`Lap::solve_until`]) and the tour the nearest
    /// neighbour's from city 0 (an assignment stopped part way is far from a tour: at
    /// n = 10,000 the tour patched from it cost 2.5 times the complete one's).
    pub(crate) fn with_duals(
        inst: &Instance,
        polish: Polish,
        deadline: Option<Instant>,
    ) -> (RootBounds, (i64, Vec<usize>), Lap) {
        let n = inst.n;
        let (lap, solved) = assignment_until(inst, deadline);
        let succ: Vec<usize> = (0..n).map(|i| lap.col_of(i)).collect();
        let (upper, tour) = match polish {
            Polish::Insertion => patched_tour(inst, &succ),
            Polish::Descent => {
                let mut tour = match solved {
                    true => descended(inst, &tour_from(&patch_quickly(inst, &succ)), &lap),
                    // Its first descent takes seconds where the assignment did not finish:
                    // the local search makes it, under the limit.
                    false => nearest_neighbour(inst, 0),
                };
                let zero = tour
                    .iter()
                    .position(|&c| c == 0)
                    .expect("a tour visits city 0");
                tour.rotate_left(zero);
                (tour_cost(inst, &tour), tour)
            }
        };
        let root = RootBounds {
            upper,
            // The duals' objective is the assignment's cost where it is optimal (no assigned
            // arc is then a loop, so the diagonal's stand-in never counts), and a lower bound
            // on it where the deadline stopped the solve (then possibly below 0, which no
            // tour costs less than).
            assignment: lap.dual_value().clamp(0, upper),
            solved,
        };
        (root, (upper, tour), lap)
    }

    /// No tour costs less.
    pub(crate) fn lower_bound(&self) -> i64 {
        self.assignment
    }

    /// The share of the patched tour's cost that the assignment bound leaves open.
    pub(crate) fn open_share(&self) -> f64 {
        open_share(self.upper, self.assignment)
    }

    /// The search these bounds call for: where the root's assignment was stopped, its bound
    /// says nothing of the instance and the subtour search (whose nodes' solves stop at the
    /// deadline) runs, not the path search (whose first tour alone is O(n^3)).
    pub(crate) fn choice(&self) -> (Bound, Branching) {
        if !self.solved || self.open_share() <= ASSIGNMENT_GAP_LIMIT {
            (Bound::Assignment, Branching::Subtour)
        } else {
            (Bound::HeldKarp, Branching::Path)
        }
    }

    /// Why, in one line for the run's notes.
    pub(crate) fn note(&self) -> String {
        let (bound, branching) = self.choice();
        let stopped = match self.solved {
            true => "",
            false => " (the root's assignment stopped at half the time limit: its duals' bound)",
        };
        format!(
            "chose the {} bound with {} branching: the assignment bound {} leaves {:.1}% of the patched tour's {} open (the subtour search runs up to {:.0}%){stopped}",
            crate::strategy::bound_name(bound),
            branching.name(),
            self.assignment,
            100.0 * self.open_share(),
            self.upper,
            100.0 * ASSIGNMENT_GAP_LIMIT
        )
    }
}

/// The share of a tour's `cost` that a lower `bound` leaves open (0 for a tour of cost 0).
pub(crate) fn open_share(cost: i64, bound: i64) -> f64 {
    cost.saturating_sub(bound) as f64 / cost.max(1) as f64
}

/// `duals` where the caller has them, else [`assignment`] solved here: the duals that rank
/// the local searches' neighbour lists.
pub(crate) fn assignment_or<'a>(inst: &Instance, duals: Option<&'a Lap>) -> Cow<'a, Lap> {
    match duals {
        Some(lap) => Cow::Borrowed(lap),
        None => Cow::Owned(assignment(inst)),
    }
}

/// An optimal assignment of `inst` with no city assigned to itself, with its duals.
pub(crate) fn assignment(inst: &Instance) -> Lap {
    assignment_until(inst, None).0
}

/// [`assignment`] solved until `deadline` ([`Lap::solve_until`]), and whether it was solved.
fn assignment_until(inst: &Instance, deadline: Option<Instant>) -> (Lap, bool) {
    let n = inst.n;
    let mut costs = inst.cost.clone();
    for i in 0..n {
        // No city may be assigned to itself: above any tour's cost.
        costs[i * n + i] = 4 * MAX_COST * MAX_N as i64;
    }
    let lap = Lap::solve_until(n, &costs, &mut LapScratch::default(), deadline);
    let solved = lap.is_optimal(n, &costs);
    (lap, solved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patching::cycles;

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

    #[test]
    fn quick_patching_leaves_one_cycle_and_a_checked_tour() {
        for spec in [
            "stilt:60:1",
            "coin:50:2",
            "tsmat:40:3",
            "super:30:4",
            "amat:5:5",
        ] {
            let inst = crate::generate::parse_generator_spec(spec)
                .unwrap()
                .generate()
                .unwrap();
            let lap = assignment(&inst);
            let succ: Vec<usize> = (0..inst.n).map(|i| lap.col_of(i)).collect();
            let next = patch_quickly(&inst, &succ);
            assert_eq!(cycles(&next).len(), 1, "{spec}");
            let (root, (cost, tour), _) = RootBounds::with_duals(&inst, Polish::Descent, None);
            crate::verify(&inst, &tour, cost).unwrap();
            assert!(root.assignment <= cost, "{spec}");
        }
    }
}
