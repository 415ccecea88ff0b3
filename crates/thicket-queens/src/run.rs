//! The front door of N-Queens: [`count`] takes a board size and [`CountOptions`] and decides
//! everything else: which backend (the `auto` fallback), which kernel (thicket's
//! constellation counter or a paper's GPU kernel), and, for long runs, batches through the run
//! layer (a resumable ledger, shards, MPI).

use std::path::PathBuf;
use std::sync::PoisonError;
use std::time::Instant;

use serde_json::{json, Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunInfo,
    RunOptions,
};
use thicket_run::runner::run_ledgered;
use thicket_run::{BatchWorker, Finished, Shard};

use crate::count::QueensCount;
use crate::cpu::count_cpu;
use crate::gpu::{count_gpu, GpuCount, GpuOptions};
use crate::ledgered::{counts_from_total, default_batch_size, BatchCounter, Batches};
use crate::strategies::{with_unique, Params, Strategy, StrategyRun, StrategyRunner};
use crate::verify::known_counts;

/// How [`count`] runs.
#[derive(Debug, Clone)]
pub struct CountOptions {
    /// Backend, trials, verification, progress bar.
    pub run: RunOptions,
    /// CPU threads (with the GPU: host threads that split the work and count the
    /// rotation-symmetric solutions).
    pub threads: usize,
    /// GPUs by CUDA ordinal; all visible ones when `None`.
    pub devices: Option<Vec<usize>>,
    /// Inner rows the host fills before the GPU tasks start (the papers' kernels: rows the
    /// host places); chosen from `n` when `None`.
    pub depth: Option<usize>,
    /// The GPU kernel: thicket's constellation counter or one of the papers'.
    pub strategy: Strategy,
    /// The papers' parameters.
    pub paper: Params,
    /// Run in batches through the run layer (ledger, shards, MPI) instead of in one go.
    pub batched: Option<Batching>,
}

impl Default for CountOptions {
    /// `auto` on every core and every visible GPU, thicket's constellation kernel, in one go.
    fn default() -> CountOptions {
        CountOptions {
            run: RunOptions::default(),
            threads: thicket_core::available_threads(),
            devices: None,
            depth: None,
            strategy: Strategy::Constellation,
            paper: Params::default(),
            batched: None,
        }
    }
}

/// How a batched count runs.
#[derive(Debug, Clone, Default)]
pub struct Batching {
    /// The ledger that records every finished batch; a run without one keeps them in memory.
    pub ledger: Option<PathBuf>,
    /// The shard of the batches to count.
    pub shard: Shard,
    /// Canonical constellations per batch; when `None`, 64 up to N = 21, halved for each
    /// larger N (1 from N = 27 on).
    pub batch_size: Option<usize>,
    /// Spread the batches over MPI ranks.
    pub mpi: bool,
}

/// One count and how it was obtained.
#[derive(Debug, Clone)]
pub struct QueensRun {
    /// The counts.
    pub count: QueensCount,
    /// The GPU backend's statistics, when the constellation kernel ran on GPUs.
    pub gpu: Option<GpuCount>,
    /// A paper's kernel that counted, with its statistics.
    pub strategy: Option<(Strategy, StrategyRun)>,
}

impl QueensRun {
    /// The counts and their statistics as JSON keys: `n`, `total`, `unique`, `oeis_match`,
    /// and `gpu` or a paper kernel's statistics.
    pub fn stats(&self) -> Map<String, Value> {
        let count = &self.count;
        let mut value = json!({
            "n": count.n,
            "total": count.total,
            "unique": count.unique,
            "oeis_match": known_counts(count.n).map(|k| k == (count.total, count.unique)),
        });
        if let Some(gpu) = &self.gpu {
            value["gpu"] = json!({
                "tasks": gpu.tasks,
                "queue": gpu.queue,
                "depth": gpu.depth,
                "tail_plans": gpu.tail_plans,
                "setup_seconds": gpu.setup_seconds,
                "tasks_seconds": gpu.tasks_seconds,
                "kernel_seconds": gpu.kernel_seconds,
                "kernel_cache_hit": gpu.modules.iter().all(|m| m.cache_hit),
                "compile_seconds": gpu.modules.iter().map(|m| m.compile_time.as_secs_f64()).sum::<f64>(),
            });
        }
        if let Some((strategy, run)) = &self.strategy {
            value["strategy"] = json!(strategy.name());
            value["source"] = json!(strategy.source());
            value["kernel_seconds"] = json!(run.kernel_seconds);
            value["jobs"] = json!(run.jobs);
            value["depth"] = json!(run.depth);
            value["refused_launches"] = json!(run.refused_launches);
        }
        thicket_core::object(value)
    }
}

/// What [`count`] ends with.
#[derive(Debug, Clone)]
pub enum Counted {
    /// The counts of the whole board.
    Whole(Box<Measured<QueensRun>>),
    /// One shard of a batched run is complete: its part of the total (merge the shards for
    /// the counts).
    Shard {
        /// Board size.
        n: usize,
        /// The shard counted.
        shard: Shard,
        /// The sum of the shard's batches.
        partial_total: u128,
    },
    /// A worker rank of an MPI run: the master reports the counts.
    Worker {
        /// What the rank's caller should hear, each prefixed with the rank (`rank 2: `): why
        /// `auto` counts on its CPU.
        notes: Vec<String>,
    },
}

/// Counts all and fundamental solutions of `n` queens as `options` ask.
pub fn count(n: usize, options: &CountOptions) -> Result<Counted> {
    crate::count::validate_n(n)?;
    if let Some(batching) = &options.batched {
        return count_batched(n, options, batching);
    }
    let mut kernel = QueensKernel { n, options };
    let mut run = options.run;
    // The papers' kernels run on the GPU alone: `auto` means the GPU for them.
    if options.strategy != Strategy::Constellation && run.backend == Backend::Auto {
        run.backend = Backend::Cuda;
    }
    benchmark_kernel(&mut kernel, &run).map(|measured| Counted::Whole(Box::new(measured)))
}

/// N-Queens as a [`Kernel`]: one count of one board.
struct QueensKernel<'a> {
    n: usize,
    options: &'a CountOptions,
}

impl QueensKernel<'_> {
    fn gpu_options(&self) -> GpuOptions {
        gpu_options(self.options)
    }

    /// A paper's kernel on one GPU, the unique count from the CPU.
    fn run_strategy(&self) -> Result<(QueensRun, Placement)> {
        let strategy = self.options.strategy;
        let device = match self.options.devices.as_deref() {
            None => 0,
            Some([one]) => *one,
            Some(_) => {
                return Err(Error::InvalidInput(format!(
                    "the {} kernel runs on one GPU: choose one device",
                    strategy.name()
                )))
            }
        };
        let mut params = self.options.paper;
        params.depth = self.options.depth;
        let runner = StrategyRunner::shared(device)?;
        let run = runner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .count(strategy, self.n, &params)?;
        let count = thicket_core::on_threads(self.options.threads, || with_unique(&run))??;
        let placement = Placement {
            threads: self.options.threads,
            devices: vec![run.device.clone()],
        };
        let run = QueensRun {
            count,
            gpu: None,
            strategy: Some((strategy, run)),
        };
        Ok((run, placement))
    }
}

impl Kernel for QueensKernel<'_> {
    type Output = QueensRun;
    const DOING: &'static str = "counting";

    fn label(&self) -> String {
        format!("queens {}", self.n)
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(QueensRun, Placement)> {
        let threads = self.options.threads;
        if self.options.strategy != Strategy::Constellation {
            if backend == Backend::Cpu {
                return Err(Error::InvalidInput(format!(
                    "the {} kernel runs on the GPU only, not on the CPU backend",
                    self.options.strategy.name()
                )));
            }
            return self.run_strategy();
        }
        if backend == Backend::Cpu {
            let count = count_cpu(self.n, threads, progress)?;
            let run = QueensRun {
                count,
                gpu: None,
                strategy: None,
            };
            let placement = Placement {
                threads,
                devices: Vec::new(),
            };
            return Ok((run, placement));
        }
        let gpu = count_gpu(self.n, &self.gpu_options(), progress)?;
        let placement = Placement {
            threads,
            devices: gpu.devices.clone(),
        };
        let run = QueensRun {
            count: gpu.count,
            gpu: Some(gpu),
            strategy: None,
        };
        Ok((run, placement))
    }

    fn verify(&self, output: &QueensRun) -> Result<Option<bool>> {
        let count = &output.count;
        Ok(known_counts(count.n).map(|known| known == (count.total, count.unique)))
    }

    fn stats(&self, output: &QueensRun) -> Map<String, Value> {
        output.stats()
    }
}

/// The GPU options of `options`.
fn gpu_options(options: &CountOptions) -> GpuOptions {
    GpuOptions {
        devices: options.devices.clone(),
        depth: options.depth,
        threads: Some(options.threads),
    }
}

/// A count in batches: a ledgered run in this process, or an MPI run.
fn count_batched(n: usize, options: &CountOptions, batching: &Batching) -> Result<Counted> {
    if options.strategy != Strategy::Constellation {
        return Err(Error::InvalidInput(format!(
            "the {} kernel counts in one process, not in batches",
            options.strategy.name()
        )));
    }
    let batches = Batches::new(
        n,
        batching.batch_size.unwrap_or_else(|| default_batch_size(n)),
    )?;
    let started = Instant::now();
    let progress = Progress::new(0, &format!("queens {n}"), options.run.quiet);
    let gpu = gpu_options(options);
    let (backend, threads) = (options.run.backend, options.threads);
    if batching.mpi {
        // A worker rank's notes (why `auto` counts on its CPU) go back to its caller.
        let mut worker_notes = Vec::new();
        let mut open = |who: &str| -> Result<Box<dyn BatchWorker + '_>> {
            let counter = BatchCounter::open(&batches, backend, threads, &gpu, who)?;
            worker_notes.extend_from_slice(counter.notes());
            Ok(Box::new(counter))
        };
        let ledger = batching.ledger.as_deref();
        let role = thicket_run::mpi::run(&batches, ledger, batching.shard, &mut open, &progress)?;
        match role {
            thicket_run::mpi::Role::Worker => {
                return Ok(Counted::Worker {
                    notes: worker_notes,
                })
            }
            thicket_run::mpi::Role::Master(finished) => {
                let mut devices = finished.devices.clone();
                devices.sort();
                let info = RunInfo {
                    backend: "mpi".into(),
                    threads,
                    devices,
                    seconds: started.elapsed().as_secs_f64(),
                    notes: Vec::new(),
                };
                return outcome(n, finished, info, options.run.verify);
            }
            thicket_run::mpi::Role::Alone => {}
        }
    }
    let Some(path) = &batching.ledger else {
        // A lone MPI rank without a ledger: a plain count, as without MPI.
        let plain = CountOptions {
            batched: None,
            ..options.clone()
        };
        return count(n, &plain);
    };
    let mut counter = BatchCounter::open(&batches, backend, threads, &gpu, "")?;
    let finished = run_ledgered(&batches, &mut counter, path, batching.shard, &progress)?;
    progress.finish();
    let info = RunInfo {
        backend: counter.backend().into(),
        threads,
        devices: counter.device_names(),
        seconds: started.elapsed().as_secs_f64(),
        notes: counter.notes().to_vec(),
    };
    outcome(n, finished, info, options.run.verify)
}

/// The counts of a finished batched run, or a shard's part of them; checked against OEIS when
/// `verify` asks (a shard has no reference of its own).
fn outcome(n: usize, finished: Finished, info: RunInfo, verify: bool) -> Result<Counted> {
    if !finished.is_whole() {
        return Ok(Counted::Shard {
            n,
            shard: finished.shard,
            partial_total: finished.total,
        });
    }
    let count = counts_from_total(n, finished.total)?;
    let mut measured = measured(count, info);
    if verify {
        measured.verified = Some(crate::verify(&count)?);
    }
    Ok(Counted::Whole(Box::new(measured)))
}

/// Counts obtained without a kernel run of their own (a ledger, merged shards), as a
/// [`Measured`] run.
pub fn measured(count: QueensCount, info: RunInfo) -> Measured<QueensRun> {
    Measured {
        output: QueensRun {
            count,
            gpu: None,
            strategy: None,
        },
        trial_seconds: vec![info.seconds],
        info,
        verified: None,
    }
}
