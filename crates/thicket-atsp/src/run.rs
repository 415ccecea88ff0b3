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
}

impl AtspRun {
    /// The tour and its statistics as JSON keys: `name`, `n`, `cost`, `tour`, `nodes`,
    /// `proven_optimal`, `lower_bound`, `gap`, `known_optimum`, `bound`, `branching`,
    /// `strategy`, `threads`, `gpu`.
    pub fn stats(&self) -> Map<String, Value> {
        let value = json!({
            "name": self.name,
            "n": self.n,
            "cost": self.solution.cost,
            "tour": self.solution.tour,
            "nodes": self.solution.nodes,
            "proven_optimal": self.solution.proven_optimal,
            "lower_bound": self.solution.lower_bound,
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
        ascent_note: Mutex::new(None),
    };
    if options.optimal_upper_bound {
        kernel.upper_bound = match known_optimum(&instance.name) {
            Some(optimum) => Some(optimum),
            None => Some(kernel.search(&Progress::hidden())?.0.cost),
        };
    }
    let run = RunOptions {
        backend,
        ..options.run
    };
    let mut measured = benchmark_kernel(&mut kernel, &run)?;
    let ascent_note = kernel.ascent_note.lock().map(|mut note| note.take());
    measured.info.notes.extend(ascent_note.ok().flatten());
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
    /// What the subtour search's multipliers did at the root, for the run's notes.
    ascent_note: Mutex<Option<String>>,
}

impl AtspKernel<'_> {
    /// The threads the strategy runs on: one for `serial` and on the GPU.
    fn threads(&self) -> usize {
        match self.strategy {
            Strategy::Multicore => self.options.threads,
            _ => 1,
        }
    }

    /// One search with the kernel's strategy (a GPU tour is checked on the host first).
    fn search(&mut self, progress: &Progress) -> Result<(AtspSolution, Option<GpuRun>)> {
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
            .map(|(solution, run)| (solution, Some(run)));
        }
        let opts = AtspOptions {
            bound: self.bound,
            upper_bound: self.upper_bound,
            threads: self.threads(),
            node_limit: None,
            deadline,
        };
        if self.branching == Branching::Subtour {
            return self.subtour_search(&opts, progress);
        }
        branch_and_bound(self.instance, &opts, progress).map(|solution| (solution, None))
    }

    /// The subtour-elimination search from the root's patched tour or the heuristic's (or
    /// below the upper bound asked for, falling back to that tour should the bound be wrong).
    fn subtour_search(
        &self,
        opts: &AtspOptions,
        progress: &Progress,
    ) -> Result<(AtspSolution, Option<GpuRun>)> {
        let pool = thicket_core::pool(opts.threads)?;
        let heuristic = self.heuristic.clone().unwrap_or_else(|| {
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
                );
                if let Ok(mut note) = self.ascent_note.lock() {
                    *note = Some(relaxed.note());
                }
                subtour_search::search(self.instance, &relaxed, start, opts.deadline, progress)
            })
        };
        let asked = opts.upper_bound.filter(|&ub| ub < heuristic.0);
        if let Some(ub) = asked {
            let found = run((ub + 1, Vec::new()));
            if !found.tour.is_empty() {
                return Ok((found, None));
            }
            if !found.proven_optimal {
                // Out of time before any tour within the bound: the heuristic's is the best.
                let (cost, tour) = heuristic;
                return Ok((
                    AtspSolution {
                        cost,
                        tour,
                        ..found
                    },
                    None,
                ));
            }
        }
        Ok((run(heuristic), None))
    }
}

impl Kernel for AtspKernel<'_> {
    type Output = AtspRun;
    const DOING: &'static str = "solving";

    fn label(&self) -> String {
        format!("atsp {}", self.instance.name)
    }

    fn run(&mut self, _backend: Backend, progress: &Progress) -> Result<(AtspRun, Placement)> {
        let (solution, gpu) = self.search(progress)?;
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
        Ok(AtspRun {
            name: instance.name.clone(),
            n: instance.n,
            solution: solution(finished)?,
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
    Ok(AtspRun {
        name: instance.name.clone(),
        n: instance.n,
        solution: solution(finished)?,
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
