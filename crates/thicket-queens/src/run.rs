//! The front door of N-Queens: [`count`] takes a board size and [`CountOptions`] and decides
//! everything else: which backend (the `auto` fallback), which kernel (thicket's
//! constellation counter or a paper's GPU kernel), and, for long runs, batches through the run
//! layer (a resumable ledger, shards, MPI).

use std::sync::PoisonError;
use std::time::Instant;

use serde_json::{Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunInfo,
};
use thicket_run::runner::run_ledgered;
use thicket_run::{BatchWorker, Batching, Finished};

use crate::count::QueensCount;
use crate::cpu::count_cpu;
use crate::gpu::queens::{count_gpu, GpuOptions};
use crate::gpu::{with_unique, StrategyRunner};
use crate::ledgered::{counts_from_total, default_batch_size, BatchCounter, Batches};
use crate::report::{Counted, QueensRun};
use crate::strategy::{CountOptions, Strategy};
use crate::verify::known_counts;

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
