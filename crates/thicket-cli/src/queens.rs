//! `thicket queens N`: count, list and draw N-Queens solutions.

use std::time::Instant;

use serde_json::json;
use thicket_core::{Backend, Error, Progress, Result, RunInfo};
use thicket_queens::gpu::{count_gpu, GpuCount, GpuOptions};
use thicket_queens::reference::known_counts;
use thicket_queens::solutions::{draw_board, first_solutions, format_solution};
use thicket_queens::strategies::Strategy;
use thicket_queens::{count_cpu, QueensCount};

use crate::cli::QueensArgs;

/// Runs `thicket queens` with its parsed arguments.
pub fn run(args: &QueensArgs) -> Result<()> {
    let n = args.n as usize;
    let threads = args
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(default_threads);
    let progress = Progress::new(0, &format!("queens {n}"), args.quiet);
    if args.strategy != Strategy::Constellation {
        if args.mpi || args.ledger.is_some() {
            return Err(Error::InvalidInput(
                "--strategy runs the papers' kernels in one process: leave out --ledger and --mpi"
                    .into(),
            ));
        }
        return crate::strategies::run_queens(args, threads, Instant::now());
    }
    if args.mpi {
        return crate::cluster::run_queens(args, threads, &progress);
    }
    run_local(args, threads, &progress)
}

/// Runs `thicket queens` in this process alone.
pub fn run_local(args: &QueensArgs, threads: usize, progress: &Progress) -> Result<()> {
    let n = args.n as usize;
    let started = Instant::now();
    if let Some(path) = &args.ledger {
        return crate::ledger::run_queens(args, path, threads, progress);
    }
    let (count, info, gpu) = match args.backend {
        Backend::Cpu => (count_cpu(n, threads, progress)?, cpu_info(threads), None),
        Backend::Cuda => gpu_run(args, n, threads, progress)?,
        Backend::Auto => match gpu_run(args, n, threads, progress) {
            Err(Error::Unavailable(why)) => {
                eprintln!("thicket: no usable GPU ({why}); counting on the CPU");
                (count_cpu(n, threads, progress)?, cpu_info(threads), None)
            }
            other => other?,
        },
    };
    progress.finish();
    let info = RunInfo {
        seconds: started.elapsed().as_secs_f64(),
        ..info
    };
    let solutions = args
        .solutions
        .map(|k| first_solutions(n, k))
        .unwrap_or_default();
    if args.json {
        print_json(&count, &info, gpu.as_ref(), &solutions);
    } else {
        print_summary(&count, &info, &solutions, args.board);
    }
    Ok(())
}

/// The CUDA backend's count, with where it ran.
fn gpu_run(
    args: &QueensArgs,
    n: usize,
    threads: usize,
    progress: &Progress,
) -> Result<(QueensCount, RunInfo, Option<GpuCount>)> {
    let result = count_gpu(n, &gpu_options(args, threads), progress)?;
    let info = RunInfo {
        backend: Backend::Cuda.name().into(),
        threads,
        devices: result.devices.clone(),
        seconds: 0.0,
    };
    Ok((result.count, info, Some(result)))
}

/// The GPU options of the command line.
pub fn gpu_options(args: &QueensArgs, threads: usize) -> GpuOptions {
    GpuOptions {
        devices: args.devices.clone(),
        depth: args.depth.map(|d| d as usize),
        threads: Some(threads),
    }
}

/// Where a CPU count ran (its time is filled in by the caller).
pub fn cpu_info(threads: usize) -> RunInfo {
    RunInfo {
        backend: Backend::Cpu.name().into(),
        threads,
        devices: Vec::new(),
        seconds: 0.0,
    }
}

/// All cores of this machine.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
}

/// `match`, `MISMATCH` or `not published` against the OEIS value for this size.
fn oeis_verdict(n: usize, pick: impl Fn((u128, u128)) -> u128, value: u128) -> &'static str {
    match known_counts(n) {
        Some(known) if pick(known) == value => "match",
        Some(_) => "MISMATCH",
        None => "not published",
    }
}

pub fn print_summary(count: &QueensCount, info: &RunInfo, solutions: &[Vec<u8>], board: bool) {
    for solution in solutions {
        println!("{}", format_solution(solution));
        if board {
            println!("{}", draw_board(solution));
        }
    }
    let n = count.n;
    let where_ran = if info.devices.is_empty() {
        format!("{}, {} threads", info.backend, info.threads)
    } else {
        format!("{} on {}", info.backend, info.devices.join(", "))
    };
    println!("N-Queens, N = {n}");
    println!(
        "  total      {:>20}   OEIS A000170: {}",
        count.total,
        oeis_verdict(n, |k| k.0, count.total)
    );
    println!(
        "  unique     {:>20}   OEIS A002562: {}",
        count.unique,
        oeis_verdict(n, |k| k.1, count.unique)
    );
    println!("  wall time  {:>18.3} s", info.seconds);
    println!("  backend    {where_ran}");
}

pub fn print_json(
    count: &QueensCount,
    info: &RunInfo,
    gpu: Option<&GpuCount>,
    solutions: &[Vec<u8>],
) {
    let mut value = json!({
        "n": count.n,
        "total": count.total,
        "unique": count.unique,
        "seconds": info.seconds,
        "backend": info.backend,
        "threads": info.threads,
        "devices": info.devices,
        "oeis_match": known_counts(count.n).map(|k| k == (count.total, count.unique)),
    });
    if let Some(gpu) = gpu {
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
    if !solutions.is_empty() {
        value["solutions"] = json!(solutions);
    }
    println!("{value}");
}
