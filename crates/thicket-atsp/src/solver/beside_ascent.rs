//! The local search's chains beside the exact search's multiplier ascent, which runs alone on
//! one thread and would leave the other cores idle.

use std::sync::atomic::Ordering;
use std::time::Instant;

use thicket_core::{Progress, Result};

use super::{AtspKernel, NEAR_FROM_CITIES};
use crate::local_search::{improve_until, Improved, Limits};
use crate::policy::Branching;
use crate::search::AtspSolution;

/// A tour with its cost, as `(cost, tour)`.
type Costed = (i64, Vec<usize>);

/// Cities from which the local search's chains run beside the exact search's ascent
/// ([`AtspKernel::exact_beside_ascent`]): below it the chains reach their best tours within
/// the first milliseconds of the local search anyway ([`NEAR_FROM_CITIES`]).
const CHAINS_BESIDE_FROM: usize = NEAR_FROM_CITIES;

impl AtspKernel<'_> {
    /// The exact search as [`AtspKernel::exact`] until `deadline`, and beside it, while its
    /// subtour-cut multipliers ascend (alone, on one thread), the local search's chains from
    /// `tour` on the other threads. On 2 cores stilt:1000 spent a fifth of a 20 s limit in
    /// such ascents with the other core idle. The chains run where the search branches on
    /// subtours from [`CHAINS_BESIDE_FROM`] cities on, with a tour to start from and more
    /// than one thread. Returns the search's answer and the chains' best tour as `(cost,
    /// tour)`, where they ran.
    pub(super) fn exact_beside_ascent(
        &self,
        start: Option<Costed>,
        tour: Option<&[usize]>,
        deadline: Instant,
        progress: &Progress,
    ) -> Result<(AtspSolution, Option<Costed>)> {
        let chains = self.threads().saturating_sub(1);
        let beside = self.branching == Branching::Subtour
            && chains > 0
            && self.instance.n >= CHAINS_BESIDE_FROM;
        let Some(tour) = tour.filter(|_| beside) else {
            return Ok((self.exact(start, Some(deadline), progress)?, None));
        };
        self.ascending.store(true, Ordering::Relaxed);
        let (exact, improved) = std::thread::scope(|scope| {
            let improved = scope.spawn(|| {
                let limits = Limits {
                    deadline,
                    stale: u64::MAX,
                    stale_by: deadline,
                    seed: 1,
                    chains,
                };
                let ended = || !self.ascending.load(Ordering::Relaxed);
                let duals = self.duals.as_ref();
                improve_until(self.instance, tour, duals, &limits, progress, &ended)
            });
            let exact = self.exact(start, Some(deadline), progress);
            self.ascending.store(false, Ordering::Relaxed);
            let improved = improved
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (exact, improved)
        });
        let (cost, tour, improved) = improved?;
        self.note_beside_ascent(&improved);
        Ok((exact?, Some((cost, tour))))
    }

    /// Notes what the chains beside an ascent did.
    fn note_beside_ascent(&self, improved: &Improved) {
        if let Ok(mut notes) = self.notes.lock() {
            notes.push(format!(
                "beside the multipliers' ascent, {}",
                improved.note()
            ));
        }
    }

    /// `solution` with `found`'s tour where that is cheaper (its bound kept).
    pub(super) fn with_tour(mut solution: AtspSolution, found: Option<Costed>) -> AtspSolution {
        if let Some((cost, tour)) = found.filter(|(cost, _)| *cost < solution.cost) {
            (solution.cost, solution.tour) = (cost, tour);
            solution.proven_optimal = solution.lower_bound >= cost;
        }
        solution
    }
}
