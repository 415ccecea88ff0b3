//! `thicket perm-queens N`: the thesis's permutation search on N-Queens.

use std::time::Instant;

use serde_json::json;
use thicket_core::{Progress, Result};
use thicket_perm::queens::count;

use crate::cli::PermQueensArgs;

/// Runs `thicket perm-queens` with its parsed arguments.
pub fn run_queens(args: &PermQueensArgs) -> Result<()> {
    let n = args.n as usize;
    let threads = args.search.thread_count();
    let started = Instant::now();
    let progress = Progress::new(0, &format!("perm-queens {n}"), args.quiet);
    let result = count(
        n,
        args.search.strategy,
        args.d_cpu as usize,
        threads,
        &progress,
    )?;
    progress.finish();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let value = json!({
            "n": n,
            "nodes": result.nodes,
            "solutions": result.solutions,
            "seconds": seconds,
            "strategy": args.search.strategy.name(),
            "threads": threads,
        });
        println!("{value}");
    } else {
        println!("N-Queens as a permutation, N = {n}");
        println!("  nodes      {:>20}", result.nodes);
        println!("  solutions  {:>20}", result.solutions);
        println!("  wall time  {:>18.3} s", seconds);
        println!(
            "  strategy   {}, {threads} threads",
            args.search.strategy.name()
        );
        println!(
            "  nodes/s    {:>20.3e}",
            result.nodes as f64 / seconds.max(1e-9)
        );
    }
    Ok(())
}
