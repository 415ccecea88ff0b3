//! `thicket perm-queens N`: the thesis's permutation search on N-Queens.

use std::time::Instant;

use serde_json::json;
use thicket_core::{Progress, Result};
use thicket_perm::gpu::queens::count_gpu;
use thicket_perm::queens::count;

use crate::cli::PermQueensArgs;

/// The multi-core strategy's default d_cpu (the thesis's).
pub const MULTICORE_D_CPU: usize = 4;

/// Runs `thicket perm-queens` with its parsed arguments.
pub fn run_queens(args: &PermQueensArgs) -> Result<()> {
    let n = args.n as usize;
    let strategy = args.search.strategy;
    let threads = args.search.thread_count();
    let started = Instant::now();
    let progress = Progress::new(0, &format!("perm-queens {n}"), args.quiet);
    let (result, gpu) = if strategy.is_gpu() {
        let (result, run) = count_gpu(n, strategy, &args.search.gpu_params(), &progress)?;
        (result, Some(run))
    } else {
        let d_cpu = args.search.d_cpu.map_or(MULTICORE_D_CPU, |d| d as usize);
        (count(n, strategy, d_cpu, threads, &progress)?, None)
    };
    progress.finish();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let value = json!({
            "n": n,
            "nodes": result.nodes,
            "solutions": result.solutions,
            "seconds": seconds,
            "strategy": strategy.name(),
            "threads": threads,
            "gpu": gpu,
        });
        println!("{value}");
    } else {
        println!("N-Queens as a permutation, N = {n}");
        println!("  nodes      {:>20}", result.nodes);
        println!("  solutions  {:>20}", result.solutions);
        println!("  wall time  {:>18.3} s", seconds);
        match &gpu {
            Some(run) => println!(
                "  strategy   {} on {}, d_cpu {}, d_gpu {}, {} roots in {} chunk(s), {} launches",
                strategy.name(),
                run.device,
                run.depths.d_cpu,
                run.depths.d_gpu,
                run.roots,
                run.chunks,
                run.launches
            ),
            None => println!("  strategy   {}, {threads} threads", strategy.name()),
        }
        println!(
            "  nodes/s    {:>20.3e}",
            result.nodes as f64 / seconds.max(1e-9)
        );
    }
    Ok(())
}
