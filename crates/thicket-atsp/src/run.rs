//! The front door of the ATSP: [`solve`] takes an instance and [`SolveOptions`] and decides
//! the rest: the strategy (a CPU search, or one of the thesis's GPU strategies), the bound
//! that goes with it, the upper bound to start from, and, for long runs, subtrees in batches
//! through the run layer (a resumable ledger, shards, MPI).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunInfo,
    RunOptions,
};
use thicket_perm::gpu::engine::GpuRun;
use thicket_perm::gpu::GpuParams;
use thicket_perm::Strategy;
use thicket_run::{BatchWorker, Finished, Shard};

use crate::gpu::solve_gpu;
use crate::heuristic::heuristic_tour;
use crate::ledgered::{run_ledgered_until, solution, Ledgered, SubtreeSolver, Subtrees};
use crate::local_search::{improve_tour, Limits};
use crate::policy::{Branching, RootBounds};
use crate::search::{branch_and_bound, AtspOptions, AtspSolution, Bound};
use crate::verify::{known_optimum, verify};
use crate::Instance;
use crate::{subtour_lagrangian, subtour_search};

/// How [`solve`] runs.
#[derive(Debug, Clone)]
pub struct SolveOptions {
    /// Backend, trials, verification, progress bar. `auto` (and `cpu`) search on the CPU,
    /// where the Held–Karp bound proves far larger instances than the GPU strategies' partial
    /// bound; `cuda` runs the thesis's best GPU strategy, `bp-dfs-pool`.
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
    /// tour, a proven lower bound and the gap between them (CPU strategies only).
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

/// How a batched solve runs.
#[derive(Debug, Clone, Default)]
pub struct Batching {
    /// The ledger that records every finished subtree; a run without one keeps them in memory.
    pub ledger: Option<PathBuf>,
    /// The shard of the subtrees to solve.
    pub shard: Shard,
    /// Spread the subtrees over MPI ranks (the incumbent travels with them).
    pub mpi: bool,
}

/// One solve and how it was obtained.
#[derive(Debug, Clone)]
pub struct AtspRun {
    /// The instance's name and size.
    pub name: String,
    /// Cities.
    pub n: usize,
    /// The tour, its cost and the nodes searched.
    pub solution: AtspSolution,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The bound it pruned with.
    pub bound: Bound,
    /// How it branched.
    pub branching: Branching,
    /// CPU threads (1 for `serial` and the GPU strategies).
    pub threads: usize,
    /// A GPU strategy's statistics.
    pub gpu: Option<GpuRun>,
    /// Which bound `solution.lower_bound` is.
    pub lower_bound_source: BoundSource,
}

/// Where a run's lower bound comes from: the largest of the bounds the run computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundSource {
    /// The search finished: the bound is the tour's own cost.
    Optimal,
    /// The cheapest bound among the parts of the exact search left open (by the bound named
    /// in [`AtspRun::bound`]; at least the root's Lagrangian or Held–Karp bound where the
    /// search computed one).
    Search,
    /// The root's assignment problem, above anything the search proved before it stopped.
    Assignment,
}

impl BoundSource {
    /// The name the JSON key `lower_bound_source` gives.
    pub fn name(self) -> &'static str {
        match self {
            BoundSource::Optimal => "optimal",
            BoundSource::Search => "search",
            BoundSource::Assignment => "assignment",
        }
    }

    /// The source of a lower bound that is the search's own.
    fn of_search(solution: &AtspSolution) -> BoundSource {
        match solution.proven_optimal {
            true => BoundSource::Optimal,
            false => BoundSource::Search,
        }
    }
}

impl AtspRun {
    /// The tour and its statistics as JSON keys: `name`, `n`, `cost`, `tour`, `nodes`,
    /// `proven_optimal`, `lower_bound`, `lower_bound_source` (see [`BoundSource`]), `gap`,
    /// `known_optimum`, `bound`, `branching`, `strategy`, `threads`, `gpu`.
    pub fn stats(&self) -> Map<String, Value> {
        let value = json!({
            "name": self.name,
            "n": self.n,
            "cost": self.solution.cost,
            "tour": self.solution.tour,
            "nodes": self.solution.nodes,
            "proven_optimal": self.solution.proven_optimal,
            "lower_bound": self.solution.lower_bound,
            "lower_bound_source": self.lower_bound_source.name(),
            "gap": self.gap(),
            "known_optimum": known_optimum(&self.name),
            "bound": bound_name(self.bound),
            "branching": self.branching.name(),
            "strategy": self.strategy.name(),
            "threads": self.threads,
            "gpu": self.gpu,
        });
        thicket_core::object(value)
    }

    /// How far the tour may be from the optimum: `(cost - lower_bound) / cost` (0 once
    /// proven optimal, and for a tour of cost 0).
    pub fn gap(&self) -> f64 {
        let s = &self.solution;
        if s.cost <= 0 {
            return 0.0;
        }
        (s.cost - s.lower_bound.min(s.cost)) as f64 / s.cost as f64
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

/// What [`solve`] ends with.
#[derive(Debug, Clone)]
pub enum Solved {
    /// The proven optimum of the whole instance.
    Whole(Box<Measured<AtspRun>>),
    /// One shard of a batched run is complete: the best tour of its subtrees (merge the
    /// shards for the optimum).
    Shard {
        /// The shard solved.
        shard: Shard,
        /// The best tour of the shard's subtrees (or the heuristic's) and their nodes.
        run: Box<AtspRun>,
    },
    /// A worker rank of an MPI run: the master reports.
    Worker,
}

/// Solves `instance` to proven optimality as `options` ask.
pub fn solve(instance: &Instance, options: &SolveOptions) -> Result<Solved> {
    let started = Instant::now();
    let (strategy, backend) = choose_strategy(options)?;
    check_time_limit(strategy, options)?;
    let (bound, branching, root, heuristic) = choose_search(instance, strategy, options)?;
    if let Some(batching) = &options.batched {
        if strategy.is_gpu() {
            return Err(Error::InvalidInput(format!(
                "batched runs use the CPU strategies (serial, multicore), not {}",
                strategy.name()
            )));
        }
        if branching == Branching::Subtour {
            return Err(Error::InvalidInput(
                "batched runs branch on paths (subtrees below 0 -> a -> b), not on subtours".into(),
            ));
        }
        return solve_batched(instance, options, batching, strategy, bound, root, started);
    }
    let mut kernel = AtspKernel {
        instance,
        options,
        strategy,
        bound,
        branching,
        upper_bound: options.upper_bound,
        started: Some(started),
        heuristic,
        root,
        notes: Mutex::new(Vec::new()),
    };
    if options.optimal_upper_bound {
        kernel.upper_bound = match known_optimum(&instance.name) {
            Some(optimum) => Some(optimum),
            None => Some(kernel.search(&Progress::hidden())?.0 .0.cost),
        };
    }
    let run = RunOptions {
        backend,
        ..options.run
    };
    let mut measured = benchmark_kernel(&mut kernel, &run)?;
    let notes = kernel
        .notes
        .lock()
        .map(|mut notes| std::mem::take(&mut *notes));
    measured.info.notes.extend(notes.unwrap_or_default());
    if let Some(root) = root.filter(|_| options.bound.is_none() && options.branching.is_none()) {
        measured.info.notes.push(root.note());
    }
    Ok(Solved::Whole(Box::new(measured)))
}

/// Refuses a time limit that is not a positive number of seconds, or that a strategy or
/// batching cannot keep.
fn check_time_limit(strategy: Strategy, options: &SolveOptions) -> Result<()> {
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
fn choose_search(
    instance: &Instance,
    strategy: Strategy,
    options: &SolveOptions,
) -> Result<Chosen> {
    let bound = choose_bound(strategy, options.bound)?;
    match (options.branching, bound) {
        (Some(Branching::Subtour), _) if strategy.is_gpu() => Err(Error::InvalidInput(format!(
            "the {} strategy branches on paths, not on subtours",
            strategy.name()
        ))),
        (Some(Branching::Subtour), Some(Bound::Assignment) | None) => {
            Ok((Bound::Assignment, Branching::Subtour, None, None))
        }
        (Some(Branching::Subtour), Some(other)) => Err(Error::InvalidInput(format!(
            "subtour branching runs the assignment bound only, not the {} bound",
            bound_name(other)
        ))),
        (_, Some(bound)) => Ok((bound, Branching::Path, None, None)),
        (Some(Branching::Path), None) => Ok((Bound::HeldKarp, Branching::Path, None, None)),
        (None, None) => {
            let (root, patched) = RootBounds::of(instance);
            let (bound, branching) = root.choice();
            let branching = match options.batched {
                Some(_) => Branching::Path,
                None => branching,
            };
            Ok((bound, branching, Some(root), Some(patched)))
        }
    }
}

/// What [`choose_search`] picks: the bound, the branching, and where the root decided them,
/// its bounds and the tour patched from its assignment (`(cost, tour)`).
type Chosen = (
    Bound,
    Branching,
    Option<RootBounds>,
    Option<(i64, Vec<usize>)>,
);

/// The strategy of `options` and the backend it runs on ([`Strategy::resolve`]).
fn choose_strategy(options: &SolveOptions) -> Result<(Strategy, Backend)> {
    Strategy::resolve(options.strategy, options.run.backend)
}

/// The bound of `strategy` where it has no choice: the one asked for, or on the GPU the
/// thesis's partial bound (the only one its strategies run); `None` where the CPU search
/// picks it per instance.
fn choose_bound(strategy: Strategy, asked: Option<Bound>) -> Result<Option<Bound>> {
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

/// The share of a time limit the exact search has first, alone: instances it proves quickly
/// (rbg443 at its root) are answered as fast as without the local search.
const FIRST_SEARCH_SHARE: f64 = 0.1;

/// The share of the time left after the first search that the local search may take before
/// the exact search runs again from its tour (it stops sooner once it stalls). At 0.5 the
/// tours on generated instances at n = 316 and 1 s were 0.1-0.5% dearer (2026-12-02).
const LOCAL_SEARCH_SHARE: f64 = 0.9;

/// Kicks in a row without a cheaper tour, per city, after which the local search leaves the
/// rest of the time to the exact search.
const STALE_KICKS_PER_CITY: u64 = 200;

/// A search's answer and which bound its lower bound is.
type Settled = (AtspSolution, BoundSource);

/// The ATSP as a [`Kernel`]: one solve of one instance.
struct AtspKernel<'a> {
    instance: &'a Instance,
    options: &'a SolveOptions,
    strategy: Strategy,
    bound: Bound,
    branching: Branching,
    upper_bound: Option<i64>,
    /// When the call began: the first trial's time limit counts from it.
    started: Option<Instant>,
    /// A first tour as `(cost, tour)`, where the choice of the search found one.
    heuristic: Option<(i64, Vec<usize>)>,
    /// The root's bounds, where the choice of the search computed them: the reported lower
    /// bound is never below its assignment bound.
    root: Option<RootBounds>,
    /// What the local search and the subtour search's multipliers did, for the run's notes
    /// (the last trial's).
    notes: Mutex<Vec<String>>,
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
    fn search(&mut self, progress: &Progress) -> Result<(Settled, Option<GpuRun>)> {
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
        let (Some(limit), Some(deadline)) = (self.options.time_limit, deadline) else {
            return Ok((self.settle(self.exact(None, None, progress)?), None));
        };
        // The exact search alone first; where it does not finish, the local search improves
        // its tour and the exact search runs again from that tour with the time left.
        let first_deadline = deadline.min(begin + limit.mul_f64(FIRST_SEARCH_SHARE));
        let first = self.exact(None, Some(first_deadline), progress)?;
        if first.proven_optimal || Instant::now() >= deadline || progress.stop_requested() {
            return Ok((self.settle(first), None));
        }
        let start = match first.tour.is_empty() {
            true => self.heuristic.clone().map(|(_, tour)| tour),
            false => Some(first.tour.clone()),
        };
        let improved = self.local_search(start, deadline, progress)?;
        let second = self.exact(Some(improved.clone()), Some(deadline), progress)?;
        let best = [&first, &second]
            .into_iter()
            .filter(|s| !s.tour.is_empty())
            .map(|s| (s.cost, s.tour.clone()))
            .chain([improved])
            .min()
            .expect("the local search returns a tour");
        let merged = AtspSolution {
            cost: best.0,
            tour: best.1,
            nodes: first.nodes + second.nodes,
            proven_optimal: first.proven_optimal || second.proven_optimal,
            // Both searches' bounds hold for every tour.
            lower_bound: first.lower_bound.max(second.lower_bound),
        };
        Ok((self.settle(merged), None))
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

    /// Improves `start` (else the heuristic's tour) by the local search for at most
    /// [`LOCAL_SEARCH_SHARE`] of the time left before `deadline`, or until it stalls, and
    /// leaves the rest to the exact search. Returns the tour as `(cost, tour)`.
    fn local_search(
        &self,
        start: Option<Vec<usize>>,
        deadline: Instant,
        progress: &Progress,
    ) -> Result<(i64, Vec<usize>)> {
        let start = start.unwrap_or_else(|| heuristic_tour(self.instance).0);
        let now = Instant::now();
        let limits = Limits {
            deadline: now
                + deadline
                    .saturating_duration_since(now)
                    .mul_f64(LOCAL_SEARCH_SHARE),
            stale: STALE_KICKS_PER_CITY * self.instance.n as u64,
            seed: 1,
        };
        let (cost, tour, improved) = improve_tour(self.instance, &start, &limits, progress)?;
        if let Ok(mut notes) = self.notes.lock() {
            notes.push(improved.note());
        }
        Ok((cost, tour))
    }

    /// The search's answer with its lower bound raised to the root's assignment bound where
    /// the search proved less, and which bound it is.
    fn settle(&self, mut solution: AtspSolution) -> Settled {
        let root = self.root.map_or(i64::MIN, |root| root.lower_bound());
        let mut source = BoundSource::of_search(&solution);
        if root > solution.lower_bound {
            solution.lower_bound = root;
            source = BoundSource::Assignment;
        }
        solution.lower_bound = solution.lower_bound.min(solution.cost);
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
                let relaxed = subtour_lagrangian::ascend(
                    self.instance,
                    start.0,
                    subtour_search::FORBIDDEN,
                    opts.deadline,
                    progress.stop_flag().as_ref(),
                );
                if let Ok(mut notes) = self.notes.lock() {
                    notes.push(relaxed.note());
                }
                subtour_search::search(self.instance, &relaxed, start, opts.deadline, progress)
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
            devices: gpu.iter().map(|run| run.device.clone()).collect(),
        };
        let run = AtspRun {
            name: self.instance.name.clone(),
            n: self.instance.n,
            solution,
            strategy: self.strategy,
            bound: self.bound,
            branching: self.branching,
            threads: self.threads(),
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
}

/// A solve subtree by subtree: a ledgered run in this process, or an MPI run.
fn solve_batched(
    instance: &Instance,
    options: &SolveOptions,
    batching: &Batching,
    strategy: Strategy,
    bound: Bound,
    root: Option<RootBounds>,
    started: Instant,
) -> Result<Solved> {
    if options.upper_bound.is_some() || options.optimal_upper_bound {
        return Err(Error::InvalidInput(
            "a batched ATSP run starts from its own incumbent: no upper bound".into(),
        ));
    }
    let threads = match strategy {
        Strategy::Multicore => options.threads,
        _ => 1,
    };
    let opts = AtspOptions {
        bound,
        upper_bound: None,
        threads,
        node_limit: None,
        deadline: options.time_limit.map(|limit| started + limit),
    };
    let plan = Subtrees::new(instance, bound);
    let progress = Progress::new(0, &format!("atsp {}", instance.name), options.run.quiet);
    let run_of = |finished: &Finished| -> Result<AtspRun> {
        let solution = solution(finished)?;
        Ok(AtspRun {
            name: instance.name.clone(),
            n: instance.n,
            lower_bound_source: BoundSource::of_search(&solution),
            solution,
            strategy,
            bound,
            branching: Branching::Path,
            threads,
            gpu: None,
        })
    };
    let info = |backend: &str, devices: Vec<String>| RunInfo {
        backend: backend.into(),
        threads,
        devices,
        seconds: started.elapsed().as_secs_f64(),
        notes: Vec::new(),
    };
    if batching.mpi {
        let mut open = |_: &str| -> Result<Box<dyn BatchWorker + '_>> {
            Ok(Box::new(SubtreeSolver::new(&plan, &opts)?))
        };
        let ledger = batching.ledger.as_deref();
        match thicket_run::mpi::run(&plan, ledger, batching.shard, &mut open, &progress)? {
            thicket_run::mpi::Role::Worker => return Ok(Solved::Worker),
            thicket_run::mpi::Role::Master(finished) => {
                let mut devices = finished.devices.clone();
                devices.sort();
                let run = run_of(&finished)?;
                return Ok(outcome(finished.shard, run, info("mpi", devices)));
            }
            thicket_run::mpi::Role::Alone => {}
        }
    }
    let Some(path) = &batching.ledger else {
        // A lone MPI rank without a ledger: a plain solve, as without MPI.
        let plain = SolveOptions {
            batched: None,
            ..options.clone()
        };
        return solve(instance, &plain);
    };
    let mut solver = SubtreeSolver::new(&plan, &opts)?;
    let stopped = run_ledgered_until(&plan, &mut solver, path, batching.shard, &progress)?;
    progress.finish();
    let (context, nodes) = match stopped {
        Ledgered::Finished(finished) => {
            let run = run_of(&finished)?;
            return Ok(outcome(finished.shard, run, info("cpu", Vec::new())));
        }
        Ledgered::Stopped { context, nodes } => (context, nodes),
    };
    // Out of time: the open subtrees are bounded by the root's bounds alone.
    let (cost, tour) = Subtrees::best(&context)?;
    let root = root.unwrap_or_else(|| RootBounds::of(instance).0);
    let run = AtspRun {
        solution: AtspSolution {
            cost,
            tour,
            nodes: u64::try_from(nodes).unwrap_or(u64::MAX),
            proven_optimal: false,
            lower_bound: root.lower_bound().min(cost),
        },
        lower_bound_source: BoundSource::Assignment,
        ..run_of(&Finished {
            total: 0,
            context,
            shard: Shard::WHOLE,
            devices: Vec::new(),
        })?
    };
    // A stopped shard is reported as the whole run it is part of: not proven.
    Ok(outcome(Shard::WHOLE, run, info("cpu", Vec::new())))
}

/// A whole run's proven optimum, or a shard's best tour.
fn outcome(shard: Shard, run: AtspRun, info: RunInfo) -> Solved {
    if shard.count > 1 {
        return Solved::Shard {
            shard,
            run: Box::new(run),
        };
    }
    Solved::Whole(Box::new(Measured {
        output: run,
        trial_seconds: vec![info.seconds],
        info,
        verified: None,
    }))
}

/// The ATSP run a finished ledger (or merged shards) holds, for printing.
pub fn run_from_ledger(subtrees: &Subtrees, finished: &Finished) -> Result<AtspRun> {
    let instance = subtrees.instance();
    let solution = solution(finished)?;
    Ok(AtspRun {
        name: instance.name.clone(),
        n: instance.n,
        lower_bound_source: BoundSource::of_search(&solution),
        solution,
        strategy: Strategy::Multicore,
        bound: subtrees.bound(),
        branching: Branching::Path,
        threads: 0,
        gpu: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(backend: Backend, strategy: Option<Strategy>, bound: Option<Bound>) -> SolveOptions {
        SolveOptions {
            run: RunOptions {
                backend,
                quiet: true,
                ..RunOptions::default()
            },
            strategy,
            bound,
            branching: None,
            time_limit: None,
            upper_bound: None,
            optimal_upper_bound: false,
            threads: 2,
            gpu: GpuParams::default(),
            batched: None,
        }
    }

    #[test]
    fn the_policy_picks_strategy_backend_bound_and_branching() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data");
        let ftv33 = crate::read_tsplib(format!("{data}/ftv33.atsp")).unwrap();
        let p43 = crate::read_tsplib(format!("{data}/p43.atsp")).unwrap();
        let pick = |instance: &Instance, o: &SolveOptions| {
            let (strategy, backend) = choose_strategy(o)?;
            check_time_limit(strategy, o)?;
            let (bound, branching, ..) = choose_search(instance, strategy, o)?;
            Ok::<_, Error>((strategy, backend, bound, branching))
        };
        assert_eq!(
            pick(&ftv33, &options(Backend::Auto, None, None)).unwrap(),
            (
                Strategy::Multicore,
                Backend::Cpu,
                Bound::Assignment,
                Branching::Subtour
            )
        );
        assert_eq!(
            pick(&p43, &options(Backend::Auto, None, None)).unwrap(),
            (
                Strategy::Multicore,
                Backend::Cpu,
                Bound::HeldKarp,
                Branching::Path
            )
        );
        assert_eq!(
            pick(&ftv33, &options(Backend::Cuda, None, None)).unwrap(),
            (
                Strategy::BpDfsPool,
                Backend::Cuda,
                Bound::Partial,
                Branching::Path
            )
        );
        let subtour = |backend, bound| SolveOptions {
            branching: Some(Branching::Subtour),
            ..options(backend, None, bound)
        };
        let late_gpu = SolveOptions {
            time_limit: Some(Duration::from_secs(1)),
            ..options(Backend::Cuda, None, None)
        };
        let refused = [
            options(Backend::Cpu, Some(Strategy::BpDfs), None),
            options(Backend::Cuda, Some(Strategy::Serial), None),
            options(Backend::Auto, Some(Strategy::RecCdp), Some(Bound::HeldKarp)),
            subtour(Backend::Auto, Some(Bound::HeldKarp)),
            subtour(Backend::Cuda, None),
            late_gpu,
        ];
        for o in refused {
            assert_eq!(
                pick(&ftv33, &o).err().map(|e| e.exit_code()),
                Some(2),
                "{o:?}"
            );
        }
    }

    /// The assignment bound of `instance` by the path search's Hungarian method, a solver
    /// apart from the root's (`lap`): the path `0` alone leaves every city to assign.
    fn assignment_bound(instance: &Instance) -> i64 {
        let mut visited = vec![false; instance.n];
        visited[0] = true;
        let none = crate::twins::Twins::none(instance.n);
        crate::assignment::Assignment::solve(instance, &none, 0, &visited).value()
    }

    /// The defect of issue 46: a run whose time ran out before the search expanded its root
    /// reported a lower bound of 0. Its bound is now at least the assignment bound, its gap
    /// follows from its cost and bound, and it says which bound it is.
    #[test]
    fn a_stopped_run_reports_at_least_the_assignment_bound() {
        for (spec, limit_ms) in [
            ("tsmat:200:1", 1),
            ("coin:150:2", 1),
            ("crane:120:3", 1),
            ("tsmat:120:4", 200),
        ] {
            let instance = crate::parse_generator_spec(spec)
                .unwrap()
                .generate()
                .unwrap();
            let o = SolveOptions {
                time_limit: Some(Duration::from_millis(limit_ms)),
                ..options(Backend::Auto, None, None)
            };
            let Solved::Whole(measured) = solve(&instance, &o).unwrap() else {
                panic!("a whole solve")
            };
            let run = &measured.output;
            let s = &run.solution;
            verify(&instance, &s.tour, s.cost).unwrap();
            let assignment = assignment_bound(&instance);
            assert!(
                s.lower_bound >= assignment.min(s.cost) && s.lower_bound <= s.cost,
                "{spec}: {s:?} against the assignment bound {assignment}"
            );
            let gap = (s.cost - s.lower_bound) as f64 / s.cost as f64;
            assert!((run.gap() - gap).abs() < 1e-12, "{spec}");
            assert_eq!(s.proven_optimal, s.lower_bound == s.cost, "{spec}");
            assert_eq!(
                run.lower_bound_source == BoundSource::Optimal,
                s.proven_optimal,
                "{spec}"
            );
            assert_eq!(
                run.stats()["lower_bound_source"],
                run.lower_bound_source.name()
            );
        }
    }

    /// A run with time left spends it on the tour: the local search's note is there and the
    /// tour costs no more than the one patched from the root's assignment.
    #[test]
    fn a_time_limit_improves_the_root_tour() {
        let instance = crate::parse_generator_spec("crane:150:1")
            .unwrap()
            .generate()
            .unwrap();
        let (root, _) = RootBounds::of(&instance);
        let o = SolveOptions {
            time_limit: Some(Duration::from_millis(300)),
            ..options(Backend::Auto, None, None)
        };
        let Solved::Whole(measured) = solve(&instance, &o).unwrap() else {
            panic!("a whole solve")
        };
        let s = &measured.output.solution;
        verify(&instance, &s.tour, s.cost).unwrap();
        assert!(s.cost <= root.upper, "{s:?} against {root:?}");
        assert!(
            measured
                .info
                .notes
                .iter()
                .any(|n| n.starts_with("local search")),
            "{:?}",
            measured.info.notes
        );
    }

    #[test]
    fn a_solve_is_verified_against_the_tsplib_optimum() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/br17.atsp");
        let instance = crate::read_tsplib(path).unwrap();
        let mut o = options(Backend::Auto, None, None);
        o.run.verify = true;
        let Solved::Whole(measured) = solve(&instance, &o).unwrap() else {
            panic!("a whole solve")
        };
        assert_eq!(
            (measured.output.solution.cost, measured.verified),
            (39, Some(true))
        );
        assert_eq!(measured.info.backend, "cpu");
    }
}
