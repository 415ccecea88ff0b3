//! The ATSP as a [`Kernel`]: one solve of one instance, exact (branch and bound on the CPU or
//! a GPU strategy) or, under a time limit, anytime: the exact search first, then local search
//! from its tour, then the exact search again from the better tour, with the best lower bound
//! the run computed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use serde_json::{Map, Value};
use thicket_core::{Backend, Kernel, Placement, Progress, Result};
use thicket_perm::engine::GpuRun;
use thicket_perm::Strategy;

use crate::gpu::atsp::solve_gpu;
use crate::gpu::tours::improve_beside;
use crate::heuristic::{heuristic_tour, tour_cost};
use crate::instance::Instance;
use crate::lap::Lap;
use crate::local_search::{improve_tour, Limits};
use crate::one_tree::{NodePrices, OneTree};
use crate::policy::{open_share, Branching, RootBounds};
use crate::report::{AtspRun, BoundSource};
use crate::search::{branch_and_bound, AtspOptions, AtspSolution, Bound};
use crate::strategy::SolveOptions;
use crate::subtour_lagrangian::Relaxed;
use crate::verify::{known_optimum, verify};
use crate::{bound_beside, subtour_lagrangian, subtour_search};

mod beside_ascent;

/// The share of a time limit the exact search has first, alone: instances it proves quickly
/// (rbg443 at its root) are answered as fast as without the local search.
const FIRST_SEARCH_SHARE: f64 = 0.1;

/// The first search's share from [`NEAR_FROM_CITIES`] cities on where the root's assignment
/// bound leaves at most [`OPEN_SHARE_FOR_A_SECOND_SEARCH`] of the patched tour's cost open
/// (random matrices, crane, coin, shop): there the exact search finds or proves the best
/// tours, and the local search stalls within its first epochs (amat:316 0.34% above the
/// optimum from its first 512 kicks to its 2,400th). On this project's 2-core machine
/// (2026-12-04, amat, tmat, crane, coin and shop at n = 100 and 316, LKH-3 beside), 0.5
/// against 0.1: at a tenth of LKH-3's time the geometric mean of the ratio 1.0021 against
/// 1.0029 (40 instances) and 1.0014 against 1.0029 on 40 others not used to choose it (all
/// within 1%, against 37), at LKH-3's time level within the runs' spread (coin:316:602 75,400
/// against 75,000 in 2 of 4 runs, crane and coin otherwise as often cheaper as dearer) and
/// the gap smaller.
const FIRST_SEARCH_SHARE_NEAR: f64 = 0.5;

/// Below this many cities the local search reaches the best tours within milliseconds
/// (ftv47 and kro124p in 10-30 ms), where half of a limit that short for the exact search
/// cost them (ftv47 1,782 against 1,776 at 28 ms); the first search keeps
/// [`FIRST_SEARCH_SHARE`] there.
const NEAR_FROM_CITIES: usize = 200;

/// The share of the time left after the first search that the local search may take before
/// the exact search runs again from its tour (it stops sooner once it stalls). At 0.5 the
/// tours on generated instances at n = 316 and 1 s were 0.1-0.5% dearer (2026-12-02).
const LOCAL_SEARCH_SHARE: f64 = 0.9;

/// Kicks in a row without a cheaper tour, per city, after which the local search leaves the
/// rest of the time to the exact search (where the exact search can still run in it).
const STALE_KICKS_PER_CITY: u64 = 200;

/// The share of its tour's cost that the first exact search may leave open for the exact
/// search to run again after the local search. The exact search closes a few percent at
/// most; where the assignment bound leaves more open (the tilted drilling classes and
/// `tsmat`, 15-23% at n = 316), a second search proves nothing and its time is the local
/// search's: on this project's 2-core machine at 1.5 s, 30 generated instances (stilt,
/// rtilt, tsmat at n = 316, seeds 101-110) ended 0.10% cheaper in the geometric mean,
/// cheaper on 17 and dearer on 2 (2026-12-03).
const OPEN_SHARE_FOR_A_SECOND_SEARCH: f64 = 0.10;

/// The share of an exact search's time its multiplier ascent may take before the search
/// branches (a later search of the same solve goes on from where it stopped). With the whole
/// time, the ascent on random matrices at n = 100 and limits under a second took all of it
/// (1,128 steps at 2 s and not one node); a quarter proved amat and tmat at n = 100 in LKH-3's
/// time where the whole left them 2-4% dearer, and changed no other class's tour beyond the
/// runs' noise (27 generated instances at n = 100 and 18 at 316, 2026-12-02).
const ASCENT_SHARE: f64 = 0.25;

/// Chains (threads) from which the subtour-cut multipliers go on beside the local search
/// ([`bound_beside`]), where that thread is at most a ninth of the cores. On 2 cores it takes
/// a third of the CPU from the two chains: on 53 generated stilt, crane and coin instances at
/// LKH-3's time (2026-12-04) the mean gap 2.5% against 3.0%, but stilt's tours 0.04-0.09%
/// dearer, and the tours come first.
const MULTIPLIERS_BESIDE_FROM: usize = 8;

/// The share of the incumbent's cost that the subtour search's nodes close in the time a run
/// gives them, at most (ftv170, 1.5% open under the root's multipliers, is proven in 23-50 s):
/// where the plain assignment leaves more than [`OPEN_SHARE_FOR_A_SECOND_SEARCH`] open and the
/// multipliers more than this after their share of the time, the ascent takes the rest of it.
/// On stilt at n = 100 and 316 (3-8% open after the share) the gap of the answer at LKH-3's
/// time fell from 5.1% to 3.5% on average, the tours level (2026-12-04). The plain bound's
/// condition keeps the ascent's share on ftv44 and the like (8% open plain, over 3% after the
/// share), where nodes prove the optimum in milliseconds.
const NODES_CLOSE_SHARE: f64 = 0.03;

/// The share of a time limit the first exact search has on `n` cities whose root's bounds are
/// `root` (where the choice of the search computed them).
fn first_search_share(n: usize, root: Option<&RootBounds>) -> f64 {
    match n >= NEAR_FROM_CITIES
        && root.is_some_and(|root| root.open_share() <= OPEN_SHARE_FOR_A_SECOND_SEARCH)
    {
        true => FIRST_SEARCH_SHARE_NEAR,
        false => FIRST_SEARCH_SHARE,
    }
}

/// Whether `first` (an exact search's answer with a tour) leaves more of its tour's cost open
/// than [`OPEN_SHARE_FOR_A_SECOND_SEARCH`].
fn leaves_too_much_open(first: &AtspSolution) -> bool {
    !first.tour.is_empty()
        && open_share(first.cost, first.lower_bound) > OPEN_SHARE_FOR_A_SECOND_SEARCH
}

/// A search's answer and which bound its lower bound is.
type Settled = (AtspSolution, BoundSource);

/// The ATSP as a [`Kernel`]: one solve of one instance.
pub(crate) struct AtspKernel<'a> {
    pub(crate) instance: &'a Instance,
    pub(crate) options: &'a SolveOptions,
    pub(crate) strategy: Strategy,
    pub(crate) bound: Bound,
    pub(crate) branching: Branching,
    pub(crate) upper_bound: Option<i64>,
    /// When the call began: the first trial's time limit counts from it.
    pub(crate) started: Option<Instant>,
    /// A first tour as `(cost, tour)`, where the choice of the search found one.
    pub(crate) heuristic: Option<(i64, Vec<usize>)>,
    /// The root's bounds, where the choice of the search computed them: the reported lower
    /// bound is never below its assignment bound.
    pub(crate) root: Option<RootBounds>,
    /// The root's assignment with its duals, where the choice of the search solved it: the
    /// local search ranks its neighbour lists by its reduced costs.
    pub(crate) duals: Option<Lap>,
    /// What the local search and the subtour search's multipliers did, for the run's notes
    /// (the last trial's).
    pub(crate) notes: Mutex<Vec<String>>,
    /// The GPUs the tour improver ran on ([`crate::gpu::tours`]), for the run's devices.
    pub(crate) tour_devices: Mutex<Vec<String>>,
    /// The subtour search's multipliers, which the next exact search of the same trial goes
    /// on from rather than ascending again from zero.
    pub(crate) multipliers: Mutex<Option<Relaxed>>,
    /// Whether the exact search under way still ascends its multipliers, alone on one
    /// thread: the chains beside it ([`AtspKernel::exact_beside_ascent`]) run until it ends.
    pub(crate) ascending: AtomicBool,
}

impl AtspKernel<'_> {
    /// The threads the strategy runs on: one for `serial` and on the GPU.
    fn threads(&self) -> usize {
        match self.strategy {
            Strategy::Multicore => self.options.threads,
            _ => 1,
        }
    }

    /// One search with the kernel's strategy (a GPU tour is checked on the host first), and
    /// which bound its lower bound is.
    pub(crate) fn search(&mut self, progress: &Progress) -> Result<(Settled, Option<GpuRun>)> {
        let begin = self.started.take().unwrap_or_else(Instant::now);
        let deadline = self.options.time_limit.map(|limit| begin + limit);
        if self.strategy.is_gpu() {
            let params = &self.options.gpu;
            return solve_gpu(
                self.instance,
                self.upper_bound,
                self.strategy,
                params,
                progress,
            )
            .map(|(solution, run)| {
                let source = BoundSource::of_search(&solution);
                ((solution, source), Some(run))
            });
        }
        if let Ok(mut notes) = self.notes.lock() {
            notes.clear();
        }
        if let Ok(mut devices) = self.tour_devices.lock() {
            devices.clear();
        }
        if let Ok(mut multipliers) = self.multipliers.lock() {
            multipliers.take();
        }
        let (Some(limit), Some(deadline)) = (self.options.time_limit, deadline) else {
            return Ok((self.settle(self.exact(None, None, progress)?, None), None));
        };
        // The exact search alone first; where it does not finish, the local search improves
        // its tour and the exact search runs again from that tour with the time left.
        let search_start = Instant::now();
        let first_share = first_search_share(self.instance.n, self.root.as_ref());
        let first_deadline = deadline.min(begin + limit.mul_f64(first_share));
        let heuristic = self.heuristic.as_ref().map(|(_, tour)| tour.as_slice());
        let (first, early) = self.exact_beside_ascent(None, heuristic, first_deadline, progress)?;
        if first.proven_optimal || Instant::now() >= deadline || progress.stop_requested() {
            let first = Self::with_tour(first, early);
            return Ok((self.settle(first, None), None));
        }
        let start = match first.tour.is_empty() {
            true => self.heuristic.clone().map(|(_, tour)| tour),
            false => Some(first.tour.clone()),
        }
        .unwrap_or_else(|| heuristic_tour(self.instance).0);
        let start = match early {
            Some((cost, tour)) if cost < tour_cost(self.instance, &start) => tour,
            _ => start,
        };
        // A node of the exact search is not interrupted, and its first (the root, cold) costs
        // up to what the first search took where it expanded one, else about the root's work
        // before the search (the O(n^3) assignment the most of it): the exact search keeps at
        // least that much of the time, and where that would leave the local search less than
        // half of it, the local search takes all the time instead (n = 3,000 overran an 8 s
        // limit by 1.4 s in a second search's root).
        let cold = match first.nodes {
            0 => search_start.saturating_duration_since(begin),
            _ => search_start.elapsed(),
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let reserve = left.mul_f64(1.0 - LOCAL_SEARCH_SHARE).max(cold);
        let again = reserve <= left / 2 && !leaves_too_much_open(&first);
        let local_deadline = match again {
            true => deadline - reserve,
            false => deadline,
        };
        // A local search that stalls leaves its time to the exact search (below), which runs
        // only where its cold root fits in half of what is left: until this instant (`None`:
        // never). Where the search would stall later, nothing else can use the time, and it
        // goes on to its deadline (coin:1000 ended 5-8 s before limits of 25-28 s unproven).
        let cold_fits_until = deadline.checked_sub(cold * 2);
        let stale_by = match again {
            true => local_deadline,
            false => cold_fits_until.unwrap_or(begin),
        };
        // A bound ascends on a thread of its own while the local search runs: the 1-tree, and
        // where that stays below the plain assignment bound and the chains are many, the exact
        // search's subtour-cut multipliers go on from where it left them.
        let relaxed = match self.threads() >= MULTIPLIERS_BESIDE_FROM {
            true => self.multipliers.lock().ok().and_then(|mut m| m.take()),
            false => None,
        };
        let (instance, upper) = (self.instance, tour_cost(self.instance, &start));
        let plain = self.plain_bound();
        let stop = progress.stop_flag();
        // The 1-tree's prices, which the local search's arcs take once they come.
        let prices = OnceLock::new();
        let (improved, (tree, relaxed)) = std::thread::scope(|scope| {
            let prices = &prices;
            let bound = scope.spawn(move || {
                bound_beside::ascend(
                    instance,
                    plain,
                    upper,
                    local_deadline,
                    stop.as_ref(),
                    relaxed,
                    prices,
                )
            });
            let improved = self.local_search(start, local_deadline, stale_by, prices, progress);
            let bound = bound
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (improved, bound)
        });
        let ascended = relaxed
            .as_ref()
            .map_or(i64::MIN, |relaxed| relaxed.root_bound);
        if let (Some(relaxed), Ok(mut multipliers)) = (relaxed, self.multipliers.lock()) {
            multipliers.get_or_insert(relaxed);
        }
        let improved = improved?;
        // A local search that stalled leaves its time to the exact search even where none was
        // planned (it raises the bound), as long as the cold root fits as above.
        let now = Instant::now();
        let fits = cold_fits_until.is_some_and(|until| now <= until) && now < deadline;
        let again = again || (!progress.stop_requested() && fits);
        let (second, late) = match again {
            true => {
                let tour = Some(improved.1.as_slice());
                self.exact_beside_ascent(Some(improved.clone()), tour, deadline, progress)?
            }
            false => {
                let none = AtspSolution {
                    cost: first.cost,
                    tour: Vec::new(),
                    nodes: 0,
                    proven_optimal: false,
                    lower_bound: first.lower_bound,
                };
                (none, None)
            }
        };
        let best = [&first, &second]
            .into_iter()
            .filter(|s| !s.tour.is_empty())
            .map(|s| (s.cost, s.tour.clone()))
            .chain([improved])
            .chain(late)
            .min()
            .expect("the local search returns a tour");
        let merged = AtspSolution {
            cost: best.0,
            tour: best.1,
            nodes: first.nodes + second.nodes,
            proven_optimal: first.proven_optimal || second.proven_optimal,
            // Both searches' bounds and the multipliers' root bound hold for every tour.
            lower_bound: first.lower_bound.max(second.lower_bound).max(ascended),
        };
        Ok((self.settle(merged, tree), None))
    }

    /// The root's plain assignment bound, where the choice of the search solved it.
    fn plain_bound(&self) -> Option<i64> {
        self.root.map(|root| root.lower_bound())
    }

    /// The exact CPU search until `deadline`, the subtour search from `start` where it runs
    /// (the root's patched tour where `start` is `None`).
    fn exact(
        &self,
        start: Option<(i64, Vec<usize>)>,
        deadline: Option<Instant>,
        progress: &Progress,
    ) -> Result<AtspSolution> {
        let opts = AtspOptions {
            bound: self.bound,
            upper_bound: self.upper_bound,
            threads: self.threads(),
            node_limit: None,
            deadline,
        };
        match self.branching {
            Branching::Subtour => {
                let start = start.or_else(|| self.heuristic.clone());
                self.subtour_search(&opts, start, progress)
            }
            Branching::Path => branch_and_bound(self.instance, &opts, progress),
        }
    }

    /// Improves `start` (else the heuristic's tour) by the local search until `deadline`
    /// (the caller leaves the exact search its share after it), or until it stalls before
    /// `stale_by`, its arcs priced by the 1-tree's multipliers once they come to `prices`.
    /// Returns the tour as `(cost, tour)`.
    fn local_search(
        &self,
        start: Vec<usize>,
        deadline: Instant,
        stale_by: Instant,
        prices: &OnceLock<NodePrices>,
        progress: &Progress,
    ) -> Result<(i64, Vec<usize>)> {
        let limits = Limits {
            deadline,
            stale: STALE_KICKS_PER_CITY * self.instance.n as u64,
            stale_by,
            seed: 1,
            chains: self.threads(),
        };
        if crate::strategy::gpu_tours(self.instance, self.options) {
            let device = self.options.gpu.device;
            let duals = self.duals.as_ref();
            let (inst, prices) = (self.instance, Some(prices));
            let beside = improve_beside(inst, &start, duals, &limits, progress, device, prices)?;
            if let Ok(mut kept) = self.notes.lock() {
                kept.extend(beside.notes);
            }
            if let Ok(mut devices) = self.tour_devices.lock() {
                devices.extend(beside.device);
            }
            return Ok(beside.best);
        }
        let (cost, tour, improved) = improve_tour(
            self.instance,
            &start,
            self.duals.as_ref(),
            &limits,
            progress,
            None,
            Some(prices),
        )?;
        if let Ok(mut notes) = self.notes.lock() {
            notes.push(improved.note());
        }
        Ok((cost, tour))
    }

    /// The search's answer with its lower bound raised to the root's assignment bound and to
    /// the 1-tree bound `tree` where the search proved less, and which bound it is; notes what
    /// the multipliers and the 1-tree did.
    fn settle(&self, mut solution: AtspSolution, tree: Option<OneTree>) -> Settled {
        let root = self.plain_bound().unwrap_or(i64::MIN);
        let mut source = BoundSource::of_search(&solution);
        if root > solution.lower_bound {
            solution.lower_bound = root;
            source = BoundSource::Assignment;
        }
        if let Some(tree) = tree.filter(|tree| tree.bound > solution.lower_bound) {
            solution.lower_bound = tree.bound;
            source = BoundSource::OneTree;
        }
        solution.lower_bound = solution.lower_bound.min(solution.cost);
        if let (Ok(multipliers), Ok(mut notes)) = (self.multipliers.lock(), self.notes.lock()) {
            notes.extend(multipliers.as_ref().map(Relaxed::note));
            notes.extend(tree.map(|tree| tree.note(solution.lower_bound)));
        }
        if solution.lower_bound >= solution.cost {
            solution.proven_optimal = true;
            source = BoundSource::Optimal;
        }
        (solution, source)
    }

    /// The subtour-elimination search from `start` (the local search's tour or the root's
    /// patched one), else the heuristic's (or below the upper bound asked for, falling back
    /// to that tour should the bound be wrong).
    fn subtour_search(
        &self,
        opts: &AtspOptions,
        start: Option<(i64, Vec<usize>)>,
        progress: &Progress,
    ) -> Result<AtspSolution> {
        let pool = thicket_core::pool(opts.threads)?;
        let heuristic = start.unwrap_or_else(|| {
            let (tour, cost) = heuristic_tour(self.instance);
            (cost, tour)
        });
        let run = |start: (i64, Vec<usize>)| {
            pool.install(|| {
                let now = Instant::now();
                let ascent_deadline = opts
                    .deadline
                    .map(|d| now + d.saturating_duration_since(now).mul_f64(ASCENT_SHARE));
                let earlier = self.multipliers.lock().ok().and_then(|mut m| m.take());
                let plain_bound = self.plain_bound();
                let ascend = |deadline, from| {
                    subtour_lagrangian::ascend(
                        self.instance,
                        start.0,
                        plain_bound,
                        subtour_search::FORBIDDEN,
                        deadline,
                        progress.stop_flag().as_ref(),
                        from,
                    )
                };
                let mut relaxed = ascend(ascent_deadline, earlier);
                // Where the plain assignment leaves much open and the multipliers still more
                // than nodes close, the ascent goes on: the search's time buys more bound
                // there than branching would.
                let open = |bound: i64| open_share(start.0, bound);
                let plain_open = plain_bound.map_or(0.0, open);
                if !relaxed.is_plain()
                    && plain_open > OPEN_SHARE_FOR_A_SECOND_SEARCH
                    && open(relaxed.root_bound) > NODES_CLOSE_SHARE
                {
                    relaxed = ascend(opts.deadline, Some(relaxed));
                }
                // The chains beside the ascent stop: the nodes take every thread.
                self.ascending.store(false, Ordering::Relaxed);
                let found =
                    subtour_search::search(self.instance, &relaxed, start, opts.deadline, progress);
                if let Ok(mut multipliers) = self.multipliers.lock() {
                    *multipliers = Some(relaxed);
                }
                found
            })
        };
        let asked = opts.upper_bound.filter(|&ub| ub < heuristic.0);
        if let Some(ub) = asked {
            let found = run((ub + 1, Vec::new()));
            if !found.tour.is_empty() {
                return Ok(found);
            }
            if !found.proven_optimal {
                // Out of time before any tour within the bound: the heuristic's is the best.
                let (cost, tour) = heuristic;
                return Ok(AtspSolution {
                    cost,
                    tour,
                    ..found
                });
            }
        }
        Ok(run(heuristic))
    }
}

impl Kernel for AtspKernel<'_> {
    type Output = AtspRun;
    const DOING: &'static str = "solving";

    fn label(&self) -> String {
        format!("atsp {}", self.instance.name)
    }

    fn run(&mut self, _backend: Backend, progress: &Progress) -> Result<(AtspRun, Placement)> {
        let ((solution, lower_bound_source), gpu) = self.search(progress)?;
        let placement = Placement {
            threads: self.threads(),
            devices: gpu
                .iter()
                .map(|run| run.device.clone())
                .chain(
                    self.tour_devices
                        .lock()
                        .map(|d| d.clone())
                        .unwrap_or_default(),
                )
                .collect(),
        };
        let run = AtspRun {
            name: self.instance.name.clone(),
            n: self.instance.n,
            solution,
            strategy: self.strategy,
            bound: self.bound,
            branching: self.branching,
            threads: self.threads(),
            // The CPU searches end at the caller's stop as at a deadline, with their best
            // tour and bound; the GPU strategies do not, and a stopped one stays an error.
            stopped: gpu.is_none() && progress.stop_requested(),
            gpu,
            lower_bound_source,
        };
        Ok((run, placement))
    }

    /// A tour that does not verify fails; one that does is checked against the TSPLIB
    /// optimum where the instance has one (no verdict otherwise): a proven tour must cost the
    /// optimum, a stopped run's lower bound and tour must bracket it.
    fn verify(&self, output: &AtspRun) -> Result<Option<bool>> {
        let solution = &output.solution;
        if verify(self.instance, &solution.tour, solution.cost).is_err() {
            return Ok(Some(false));
        }
        Ok(
            known_optimum(&output.name).map(|optimum| match solution.proven_optimal {
                true => optimum == solution.cost,
                false => (solution.lower_bound..=solution.cost).contains(&optimum),
            }),
        )
    }

    fn stats(&self, output: &AtspRun) -> Map<String, Value> {
        output.stats()
    }

    fn is_partial(&self, output: &AtspRun) -> bool {
        output.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(upper: i64, assignment: i64) -> RootBounds {
        RootBounds {
            upper,
            assignment,
            solved: true,
        }
    }

    /// The exact search has half the limit first only on instances large enough that the
    /// local search does not finish at once, and only where the assignment bound is close
    /// to the patched tour.
    #[test]
    fn the_first_search_has_half_the_limit_only_where_the_root_is_near_and_large() {
        let near = root(1_000, 960);
        let far = root(1_000, 800);
        assert_eq!(
            first_search_share(316, Some(&near)),
            FIRST_SEARCH_SHARE_NEAR
        );
        assert_eq!(first_search_share(316, Some(&far)), FIRST_SEARCH_SHARE);
        assert_eq!(first_search_share(100, Some(&near)), FIRST_SEARCH_SHARE);
        assert_eq!(first_search_share(316, None), FIRST_SEARCH_SHARE);
        assert!((near.open_share() - 0.04).abs() < 1e-12);
    }
}
