//! The ATSP's strategy vocabulary and policy: what a caller asks of a solve
//! ([`SolveOptions`], [`Batching`]) and how the strategy, bound and branching of a run are
//! chosen from it (the CPU search picks the bound and branching per instance, `policy`).

use std::time::{Duration, Instant};

use thicket_core::{Backend, Error, Result, RunOptions};
use thicket_perm::{GpuParams, Strategy};
use thicket_run::Batching;

use crate::instance::Instance;
use crate::kernels::MAX_CITIES;
use crate::lap::Lap;
use crate::policy::{Branching, Polish, RootBounds};
use crate::search::Bound;

/// How [`solve`](crate::solve) runs.
#[derive(Debug, Clone)]
pub struct SolveOptions {
    /// Backend, trials, verification, progress bar. `auto` (and `cpu`) search on the CPU,
    /// where the Held–Karp bound proves far larger instances than the GPU strategies' partial
    /// bound; `cuda` runs the thesis's best GPU strategy, `bp-dfs-pool`, except under a time
    /// limit on more cities than it takes: the CPU's search then, its local search with the
    /// GPU's tour improver beside it.
    pub run: RunOptions,
    /// The strategy; `None` picks it from the backend.
    pub strategy: Option<Strategy>,
    /// The bound; `None` picks it per instance on the CPU (see [`Branching`]), the partial
    /// bound on the GPU.
    pub bound: Option<Bound>,
    /// How the CPU search branches; `None` picks it per instance when no bound is asked for
    /// (the assignment bound with subtour branching where that bound is close to the tour
    /// patched from its cycles at the root, else Held–Karp with path branching), path
    /// branching when one is.
    pub branching: Option<Branching>,
    /// Stop after this long (from the call, the choice of the search included) with the best
    /// tour, a proven lower bound and the gap between them (CPU strategies only; on `cuda`
    /// past the GPU strategies' 32 cities, the CPU's search with the GPU's tour improver).
    pub time_limit: Option<Duration>,
    /// Start from this tour length instead of the heuristic's.
    pub upper_bound: Option<i64>,
    /// Start at the optimum, as the thesis's experiments do: the TSPLIB optimum where the
    /// instance is known, else a first solve finds it.
    pub optimal_upper_bound: bool,
    /// CPU threads of `multicore`.
    pub threads: usize,
    /// The GPU strategies' depths and device.
    pub gpu: GpuParams,
    /// Solve subtree by subtree through the run layer (ledger, shards, MPI).
    pub batched: Option<Batching>,
}

impl Default for SolveOptions {
    /// The CPU's default search (multicore, Held–Karp bound) on every core, from the
    /// heuristic's tour, in one piece.
    fn default() -> SolveOptions {
        SolveOptions {
            run: RunOptions::default(),
            strategy: None,
            bound: None,
            branching: None,
            time_limit: None,
            upper_bound: None,
            optimal_upper_bound: false,
            threads: thicket_core::available_threads(),
            gpu: GpuParams::default(),
            batched: None,
        }
    }
}

/// The bound's name as the command line spells it.
pub fn bound_name(bound: Bound) -> &'static str {
    match bound {
        Bound::Partial => "partial",
        Bound::Assignment => "assignment",
        Bound::HeldKarp => "held-karp",
    }
}

/// Refuses a time limit that is not a positive number of seconds, or that a strategy or
/// batching cannot keep.
pub(crate) fn check_time_limit(strategy: Strategy, options: &SolveOptions) -> Result<()> {
    let Some(limit) = options.time_limit else {
        return Ok(());
    };
    if limit.is_zero() {
        return Err(Error::InvalidInput("a time limit must be positive".into()));
    }
    if strategy.is_gpu() {
        return Err(Error::InvalidInput(format!(
            "a time limit applies to the CPU strategies (serial, multicore), not {}",
            strategy.name()
        )));
    }
    if options.batched.as_ref().is_some_and(|b| b.mpi) {
        return Err(Error::InvalidInput(
            "a time limit applies to runs in one process, not MPI runs".into(),
        ));
    }
    Ok(())
}

/// The bound and branching of a run, and the root bounds and first tour that chose them
/// (when the CPU search picks them per instance; see `policy`).
pub(crate) fn choose_search(
    instance: &Instance,
    strategy: Strategy,
    options: &SolveOptions,
    started: Instant,
) -> Result<Chosen> {
    let bound = choose_bound(strategy, options.bound)?;
    match (options.branching, bound) {
        (Some(Branching::Subtour), _) if strategy.is_gpu() => Err(Error::InvalidInput(format!(
            "the {} strategy branches on paths, not on subtours",
            strategy.name()
        ))),
        (Some(Branching::Subtour), Some(Bound::Assignment) | None) => {
            Ok((Bound::Assignment, Branching::Subtour, None, None, None))
        }
        (Some(Branching::Subtour), Some(other)) => Err(Error::InvalidInput(format!(
            "subtour branching runs the assignment bound only, not the {} bound",
            bound_name(other)
        ))),
        (_, Some(bound)) => Ok((bound, Branching::Path, None, None, None)),
        (Some(Branching::Path), None) => Ok((Bound::HeldKarp, Branching::Path, None, None, None)),
        (None, None) => {
            // A time limit wants the tour soon: the exact search's own polish can take most
            // of a short one at large n.
            let polish = match options.time_limit {
                Some(_) => Polish::Descent,
                None => Polish::Insertion,
            };
            let deadline = options
                .time_limit
                .map(|limit| started + limit.mul_f64(ROOT_SHARE));
            let (root, patched, lap) = RootBounds::with_duals(instance, polish, deadline);
            let (bound, branching) = root.choice();
            let branching = match options.batched {
                Some(_) => Branching::Path,
                None => branching,
            };
            Ok((bound, branching, Some(root), Some(patched), Some(lap)))
        }
    }
}

/// The share of a time limit the root's assignment may take; past it the run goes on from
/// the assignment so far (see `Lap::solve_until`): at n = 10,000 the solve takes 17 s on 2
/// cores, and the rest of the run needs time for the local search.
const ROOT_SHARE: f64 = 0.5;

/// What [`choose_search`] picks: the bound, the branching, and where the root decided them,
/// its bounds, the tour patched from its assignment (`(cost, tour)`) and that assignment.
pub(crate) type Chosen = (
    Bound,
    Branching,
    Option<RootBounds>,
    Option<(i64, Vec<usize>)>,
    Option<Lap>,
);

/// The strategy of `options` and the backend it runs on ([`Strategy::resolve`]); where the
/// GPU improves the tours ([`gpu_tours`]), the CPU's search on the `cuda` backend.
pub(crate) fn choose_strategy(
    instance: &Instance,
    options: &SolveOptions,
) -> Result<(Strategy, Backend)> {
    if gpu_tours(instance, options) {
        return Ok((Strategy::Multicore, Backend::Cuda));
    }
    Strategy::resolve(options.strategy, options.run.backend)
}

/// The fewest cities on which `auto` runs the GPU tour improver beside the CPU's local
/// search where a GPU is usable. On one H200 (16-core host, 2026-12-05; docs/benchmarks.md,
/// twenty-first round) the two searches trading tours ended below the CPU's alone on 8 of 11
/// runs at 2,000 and 3,000 cities under limits of 5-60 s (stilt 0.20-0.54%, rtilt 0.32%,
/// coin 0.14%; crane and tsmat within 0.07% either way), and within 0.1% either way at 1,000.
pub(crate) const AUTO_GPU_TOURS_CITIES: usize = 2_000;

/// Whether the local search of a time-limited run improves the tour on the GPU beside the
/// CPU: without a strategy, in one piece, on more cities than the GPU's exact strategies
/// take ([`MAX_CITIES`]), where `cuda` is asked for, or under `auto` from
/// [`AUTO_GPU_TOURS_CITIES`] cities where the device opens (the shared context the improver
/// then uses; without a driver the probe fails at once and the run stays on the CPU).
pub(crate) fn gpu_tours(instance: &Instance, options: &SolveOptions) -> bool {
    let anytime = options.strategy.is_none()
        && options.time_limit.is_some()
        && options.batched.is_none()
        && instance.n > MAX_CITIES;
    anytime
        && match options.run.backend {
            Backend::Cuda => true,
            Backend::Auto => {
                instance.n >= AUTO_GPU_TOURS_CITIES
                    && thicket_gpu::Gpu::shared(options.gpu.device).is_ok()
            }
            Backend::Cpu => false,
        }
}

/// The bound of `strategy` where it has no choice: the one asked for, or on the GPU the
/// thesis's partial bound (the only one its strategies run); `None` where the CPU search
/// picks it per instance.
pub(crate) fn choose_bound(strategy: Strategy, asked: Option<Bound>) -> Result<Option<Bound>> {
    match (asked, strategy.is_gpu()) {
        (Some(bound @ (Bound::Assignment | Bound::HeldKarp)), true) => {
            Err(Error::InvalidInput(format!(
                "the {} strategy runs the thesis's partial bound only, not the {} bound",
                strategy.name(),
                bound_name(bound)
            )))
        }
        (Some(bound), _) => Ok(Some(bound)),
        (None, true) => Ok(Some(Bound::Partial)),
        (None, false) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GPU tour improver runs under `cuda` on every time-limited instance past the GPU
    /// strategies, under `auto` only from [`AUTO_GPU_TOURS_CITIES`] cities and where the
    /// device opens (never on a machine without one), never under `cpu` or without a limit.
    #[test]
    fn auto_improves_tours_on_the_gpu_only_on_thousands_of_cities_and_a_usable_device() {
        let options = |backend, time_limit| SolveOptions {
            run: RunOptions {
                backend,
                ..Default::default()
            },
            time_limit,
            ..Default::default()
        };
        let limit = Some(Duration::from_secs(1));
        let usable = thicket_gpu::Gpu::shared(0).is_ok();
        for n in [MAX_CITIES + 1, AUTO_GPU_TOURS_CITIES] {
            let inst = Instance::new("flat", n, vec![1; n * n]).unwrap();
            assert!(gpu_tours(&inst, &options(Backend::Cuda, limit)), "{n}");
            assert!(!gpu_tours(&inst, &options(Backend::Cpu, limit)), "{n}");
            assert!(!gpu_tours(&inst, &options(Backend::Cuda, None)), "{n}");
            let auto = gpu_tours(&inst, &options(Backend::Auto, limit));
            assert_eq!(auto, usable && n >= AUTO_GPU_TOURS_CITIES, "{n}");
        }
    }
}
