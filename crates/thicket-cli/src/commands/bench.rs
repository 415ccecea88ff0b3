//! `thicket bench <problem>`: turns the flags into a library bench, prints a line after every
//! case on stderr and the table (or JSON) at the end, and writes the files asked for after
//! every case, so that an interrupted bench keeps what it measured.

use thicket_core::Result;
use thicket_perm::bench::BenchOptions;
use thicket_queens::bench::strategies::StrategyBenchOptions;
use thicket_queens::bench::CpuBenchOptions;
use thicket_run::bench::{pretty_json, AfterCase, Report};

use crate::cli::{BenchLookbackArgs, BenchMaxflowArgs, BenchPermArgs, BenchQueensArgs};
use crate::flags::BenchOutputArgs;

/// `thicket bench queens` (with `--strategies`: the papers' GPU kernels).
pub fn queens(args: &BenchQueensArgs) -> Result<()> {
    if let Some(strategies) = &args.strategies {
        let options = StrategyBenchOptions {
            sizes: args.n.0.clone(),
            strategies: strategies.0.clone(),
            params: args.paper.params(args.depth),
            repeat: args.repeat,
            max_seconds: args.max_seconds,
            device: args.device,
        };
        return report(&args.outputs, |after| {
            thicket_queens::bench::strategies::bench(&options, after)
        });
    }
    let options = CpuBenchOptions {
        sizes: args.n.0.clone(),
        threads: args.threads.clone(),
        repeat: args.repeat,
        baseline: !args.no_baseline,
    };
    report(&args.outputs, |after| {
        thicket_queens::bench::bench_cpu(&options, after)
    })
}

/// `thicket bench perm`.
pub fn perm(args: &BenchPermArgs) -> Result<()> {
    let options = BenchOptions {
        sizes: args.n.0.clone(),
        strategies: args.strategies.clone(),
        max_seconds: args.max_seconds,
        cpu_max_seconds: args.cpu_max_seconds.unwrap_or(args.max_seconds),
        repeat: args.repeat,
        threads: args
            .threads
            .map_or_else(thicket_core::available_threads, |t| t as usize),
        d_cpu: args.d_cpu.as_ref().map(|d| d.0.clone()),
    };
    report(&args.outputs, |after| {
        thicket_perm::bench::bench(&options, after)
    })
}

/// `thicket bench lookback`.
pub fn lookback(args: &BenchLookbackArgs) -> Result<()> {
    let options = thicket_lattice::bench::LookbackBenchOptions {
        steps: args.steps.0.clone(),
        strategies: args.strategies.clone(),
        precisions: args.precisions.clone(),
        hybrid_thresholds: args.hybrid_thresholds.clone(),
        book: (!args.no_books).then_some(args.book),
        convergence: args.convergence,
        repeat: args.repeat,
        max_seconds: args.max_seconds,
        threads: args
            .threads
            .map_or_else(thicket_core::available_threads, |t| t as usize),
        device: args.device,
    };
    report(&args.outputs, |after| {
        thicket_lattice::bench::bench(&options, after)
    })
}

/// `thicket bench maxflow`.
pub fn maxflow(args: &BenchMaxflowArgs) -> Result<()> {
    let options = thicket_flow::bench::MaxflowBenchOptions {
        family: args.family,
        vertices: args.vertices.iter().map(|&v| v as usize).collect(),
        degree: args.degree,
        max_capacity: args.max_capacity,
        graphs: args.graphs as usize,
        strategies: args.strategies.clone(),
        max_seconds: args.max_seconds,
        device: args.device,
    };
    report(&args.outputs, |after| {
        thicket_flow::bench::bench(&options, after)
    })
}

/// Runs a bench: a progress line per case on stderr, the files rewritten after every case,
/// then the Markdown (or, with `--json`, the JSON) on stdout and the bench's verdict.
fn report(
    outputs: &BenchOutputArgs,
    bench: impl FnOnce(AfterCase) -> Result<Report>,
) -> Result<()> {
    let files = outputs.outputs();
    let report = bench(&mut |line, rendered| {
        eprintln!("{line}");
        files.write(rendered)
    })?;
    match outputs.json {
        true => println!("{}", pretty_json(&report.rendered.json)?),
        false => print!("{}", report.rendered.markdown),
    }
    report.verdict
}
