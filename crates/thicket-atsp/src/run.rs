//! The front door of the ATSP: [`solve`] takes an instance and [`SolveOptions`] and decides
//! the rest: the strategy (a CPU search, or one of the thesis's GPU strategies), the bound
//! that goes with it, the upper bound to start from, and, for long runs, subtrees in batches
//! through the run layer (a resumable ledger, shards, MPI).

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Instant;

use thicket_core::{benchmark_kernel, Error, Measured, Progress, Result, RunInfo, RunOptions};
use thicket_perm::Strategy;
use thicket_run::{BatchWorker, Batching, Finished, Shard};

use crate::instance::Instance;
use crate::ledgered::{run_ledgered_until, solution, Ledgered, SubtreeSolver, Subtrees};
use crate::policy::{Branching, RootBounds};
use crate::report::{AtspRun, BoundSource, Solved};
use crate::search::{AtspOptions, AtspSolution, Bound};
use crate::solver::AtspKernel;
use crate::strategy::{check_time_limit, choose_search, choose_strategy, SolveOptions};
use crate::verify::known_optimum;

/// Solves `instance` to proven optimality as `options` ask.
pub fn solve(instance: &Instance, options: &SolveOptions) -> Result<Solved> {
    let started = Instant::now();
    let (strategy, backend) = choose_strategy(instance, options)?;
    check_time_limit(strategy, options)?;
    let (bound, branching, root, heuristic, duals) =
        choose_search(instance, strategy, options, started)?;
    if let Some(batching) = &options.batched {
        if strategy.is_gpu() {
            return Err(Error::InvalidInput(format!(
                "batched runs use the CPU strategies (serial, multicore), not {}",
                strategy.name()
            )));
        }
        if batching.batch_size.is_some() {
            return Err(Error::InvalidInput(
                "an ATSP run's batches are its root's subtrees: no batch size".into(),
            ));
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
        duals,
        notes: Mutex::new(Vec::new()),
        tour_devices: Mutex::new(Vec::new()),
        multipliers: Mutex::new(None),
        ascending: AtomicBool::new(false),
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
            stopped: false,
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
        stopped: false,
    })
}

#[cfg(test)]
mod tests;
