//! `thicket perm-queens N`: the thesis's permutation search on N-Queens.

use thicket_core::Result;
use thicket_perm::{count_queens, PermOptions};

use crate::cli::PermQueensArgs;
use crate::flags::run_options;

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
        println!("{}", measured.json(run.stats()));
        return Ok(());
    }
    let seconds = measured.info.seconds;
    println!("N-Queens as a permutation, N = {n}");
    println!("  nodes      {:>20}", run.count.nodes);
    println!("  solutions  {:>20}", run.count.solutions);
    println!("  wall time  {:>18.3} s", seconds);
    match &run.gpu {
        Some(gpu) => println!(
            "  strategy   {} on {}, d_cpu {}, d_gpu {}, {} roots in {} chunk(s), {} launches",
            run.strategy.name(),
            gpu.device,
            gpu.depths.d_cpu,
            gpu.depths.d_gpu,
            gpu.roots,
            gpu.chunks,
            gpu.launches
        ),
        None => println!(
            "  strategy   {}, {} threads",
            run.strategy.name(),
            run.threads
        ),
    }
    println!(
        "  nodes/s    {:>20.3e}",
        run.count.nodes as f64 / seconds.max(1e-9)
    );
    if let Some(verified) = measured.verified {
        println!(
            "  verified   {}",
            if verified { "against Table 1" } else { "NO" }
        );
    }
    Ok(())
}
