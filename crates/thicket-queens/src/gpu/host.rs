//! The part of a GPU run that stays on the CPU: the symmetric constellations, whose unique
//! count needs each solution's canonical form, and plans with no row to search.

use rayon::prelude::*;
use thicket_core::Result;

use crate::constellation::CanonicalConstellation;
use crate::count::{sum_contributions, CanonicalSink, Contribution};
use crate::search::{CountSink, Plan};

/// Searches on the CPU every constellation that `on_host` selects, split on the first inner
/// row for parallelism, and sums what they contribute.
pub fn count_on_host(
    n: usize,
    constellations: &[CanonicalConstellation],
    on_host: impl Fn(&CanonicalConstellation, &Plan) -> bool + Sync,
) -> Result<Contribution> {
    let plans: Vec<(&CanonicalConstellation, Plan)> = constellations
        .par_iter()
        .map(|c| (c, Plan::new(n, c.constellation)))
        .filter(|(c, plan)| on_host(c, plan))
        .collect();
    let work: Vec<(usize, Option<u32>)> = plans
        .iter()
        .enumerate()
        .flat_map(|(index, (_, plan))| first_queens(plan).map(move |bit| (index, bit)))
        .collect();
    let parts: Vec<Contribution> = work
        .par_iter()
        .map(|&(index, first)| {
            let (constellation, plan) = &plans[index];
            search(plan, constellation, first)
        })
        .collect();
    sum_contributions(parts)
}

/// The first inner queens to split `plan` on, or a single `None` when it has under two rows.
fn first_queens(plan: &Plan) -> Box<dyn Iterator<Item = Option<u32>> + '_> {
    if plan.depth() < 2 {
        return Box::new(std::iter::once(None));
    }
    let free = plan.free(&plan.start());
    Box::new(
        (0..32)
            .map(|c| 1u32 << c)
            .filter(move |bit| free & bit != 0)
            .map(Some),
    )
}

/// Searches `plan` below the first inner queen `first` (or all of it).
fn search(plan: &Plan, constellation: &CanonicalConstellation, first: Option<u32>) -> Contribution {
    let start = plan.start();
    let (depth, masks, prefix) = match &first {
        Some(bit) => (1, plan.child(0, &start, *bit), std::slice::from_ref(bit)),
        None => (0, start, &[][..]),
    };
    if constellation.is_asymmetric() {
        let mut sink = CountSink::default();
        plan.search(depth, masks, prefix, &mut sink);
        Contribution::asymmetric(sink.solutions)
    } else {
        let mut sink = CanonicalSink::new(plan, constellation);
        plan.search(depth, masks, prefix, &mut sink);
        sink.contribution()
    }
}
