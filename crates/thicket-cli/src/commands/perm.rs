//! `thicket perm-queens N`: the thesis's permutation search on N-Queens.

use clap::Args;
use thicket_core::Result;
use thicket_perm::{count_queens, PermOptions};

use crate::flags::{choices, run_options, BackendArgs, OutputArgs, TrialArgs};

/// The strategy and depths of a permutation search (`perm-queens`, `atsp`).
#[derive(Debug, Args)]
pub struct PermSearchArgs {
    /// `serial` (one DFS on one thread), `multicore` (a serial search to a small depth, then
    /// the subtrees below on a pool of threads), or a GPU strategy of the thesis: `bp-dfs`,
    /// `bp-dfs-pool`, `rec-cdp`, `rec-dp3`, `cdp-bp` (see docs/reproduction.md). Default:
    /// `multicore`, or `bp-dfs-pool` with `--backend cuda`.
    #[arg(long, value_parser = choices(&thicket_perm::Strategy::ALL, thicket_perm::Strategy::name))]
    pub strategy: Option<thicket_perm::Strategy>,
    /// Depth of the serial initial search (the thesis's d_cpu): perm-queens `multicore`
    /// (default 4) and the GPU strategies (default: bp-dfs and bp-dfs-pool the first depth
    /// with 2^20 nodes, rec-cdp and cdp-bp d_gpu - 2, rec-dp3 2).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=32))]
    pub d_cpu: Option<u32>,
    /// rec-cdp and cdp-bp: the depth the first GPU kernel expands to (default d_cpu + 2, or the
    /// first depth with 2^20 nodes); rec-dp3: the depth where the doubling stops (default the
    /// first depth with 2^20 nodes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=32))]
    pub d_gpu: Option<u32>,
}

impl PermSearchArgs {
    /// The depths asked of a GPU strategy, on the one GPU of `--devices` (default 0); more
    /// than one is refused.
    pub fn gpu_params(
        &self,
        backend: &BackendArgs,
    ) -> thicket_core::Result<thicket_perm::GpuParams> {
        let device = match backend.devices.as_deref() {
            None => 0,
            Some([one]) => *one,
            Some(_) => {
                return Err(thicket_core::Error::InvalidInput(
                    "the permutation strategies run on one GPU: give --devices one ordinal".into(),
                ))
            }
        };
        Ok(thicket_perm::GpuParams {
            d_cpu: self.d_cpu.map(|d| d as usize),
            d_gpu: self.d_gpu.map(|d| d as usize),
            device,
        })
    }
}

/// Options of `thicket perm-queens`.
#[derive(Debug, Args)]
pub struct PermQueensArgs {
    /// Board size (1 to 32).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=32))]
    pub n: u32,
    /// How to search.
    #[command(flatten)]
    pub search: PermSearchArgs,
    /// Where to run: `auto` and `cpu` search on the CPU (multicore), `cuda` with the thesis's
    /// best GPU strategy (bp-dfs-pool).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report. JSON keys: n, nodes, solutions, seconds, strategy, threads, backend,
    /// devices; with a GPU strategy also gpu (device, depths, roots, chunk, launches, host and
    /// device seconds).
    #[command(flatten)]
    pub output: OutputArgs,
    /// How often, and checked against the thesis's Table 1.
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Runs `thicket perm-queens` with its parsed arguments.
pub fn run(args: &PermQueensArgs) -> Result<()> {
    let n = args.n as usize;
    let options = PermOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy: args.search.strategy,
        threads: args.backend.thread_count(),
        gpu: args.search.gpu_params(&args.backend)?,
    };
    let measured = count_queens(n, &options)?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if args.output.json {
        outln!("{}", measured.json(run.stats()));
        return Ok(());
    }
    let seconds = measured.info.seconds;
    outln!("N-Queens as a permutation, N = {n}");
    outln!("  nodes      {:>20}", run.count.nodes);
    outln!("  solutions  {:>20}", run.count.solutions);
    outln!("  wall time  {:>18.3} s", seconds);
    match &run.gpu {
        Some(gpu) => outln!(
            "  strategy   {} on {}, d_cpu {}, d_gpu {}, {} roots in {} chunk(s), {} launches",
            run.strategy.name(),
            gpu.device,
            gpu.depths.d_cpu,
            gpu.depths.d_gpu,
            gpu.roots,
            gpu.chunks,
            gpu.launches
        ),
        None => outln!(
            "  strategy   {}, {} threads",
            run.strategy.name(),
            run.threads
        ),
    }
    outln!(
        "  nodes/s    {:>20.3e}",
        run.count.nodes as f64 / seconds.max(1e-9)
    );
    if let Some(verified) = measured.verified {
        outln!(
            "  verified   {}",
            if verified { "against Table 1" } else { "NO" }
        );
    }
    Ok(())
}
