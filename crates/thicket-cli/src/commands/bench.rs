//! `thicket bench <problem>`: turns the flags into a library bench, prints a line after every
//! case on stderr and the table (or JSON) at the end, and writes the files asked for after
//! every case, so that an interrupted bench keeps what it measured.

use thicket_bench::perm::BenchOptions;
use thicket_bench::queens::strategies::StrategyBenchOptions;
use thicket_bench::queens::CpuBenchOptions;
use thicket_core::Result;
use thicket_run::bench::{pretty_json, AfterCase, Report};

use crate::cli::{
    BenchBfsArgs, BenchLookbackArgs, BenchMaxflowArgs, BenchPermArgs, BenchQueensArgs,
    BenchScheduleArgs,
};
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
            thicket_bench::queens::strategies::bench(&options, after)
        });
    }
    let options = CpuBenchOptions {
        sizes: args.n.0.clone(),
        threads: args.threads.clone(),
        repeat: args.repeat,
        baseline: !args.no_baseline,
    };
    report(&args.outputs, |after| {
        thicket_bench::queens::bench_cpu(&options, after)
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
        thicket_bench::perm::bench(&options, after)
    })
}

/// `thicket bench lookback`.
pub fn lookback(args: &BenchLookbackArgs) -> Result<()> {
    let options = thicket_bench::lattice::LookbackBenchOptions {
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
        thicket_bench::lattice::bench(&options, after)
    })
}

/// `thicket bench maxflow`.
pub fn maxflow(args: &BenchMaxflowArgs) -> Result<()> {
    let options = thicket_bench::flow::MaxflowBenchOptions {
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
        thicket_bench::flow::bench(&options, after)
    })
}

/// `thicket bench bfs`.
pub fn bfs(args: &BenchBfsArgs) -> Result<()> {
    use thicket_bench::graph::{BfsBenchOptions, Experiment};
    use thicket_graph::Strategy;
    let strategies = match (&args.strategies, args.thesis) {
        (Some(strategies), _) => strategies.clone(),
        (None, true) => vec![Strategy::Serial, Strategy::Thesis, Strategy::ThesisActive],
        (None, false) => vec![Strategy::Multicore, Strategy::Gpu, Strategy::DeltaStepping],
    };
    let options = BfsBenchOptions {
        experiment: if args.thesis {
            Experiment::Thesis
        } else {
            Experiment::Modern
        },
        vertices: args.vertices.0.iter().map(|&v| v as u32).collect(),
        graphs: args.graphs as usize,
        degree: args.degree,
        scales: args.scales.0.iter().map(|&s| s as u32).collect(),
        edge_factor: args.edge_factor,
        grid: (!args.no_grid).then_some(args.grid),
        sources: args
            .sources
            .map_or(if args.thesis { 4 } else { 64 }, |s| s as usize),
        strategies,
        delta: args.delta,
        max_seconds: args.max_seconds,
        threads: args
            .threads
            .map_or_else(thicket_core::available_threads, |t| t as usize),
        device: args.device,
        seed: args.seed,
    };
    report(&args.outputs, |after| {
        thicket_bench::graph::bench(&options, after)
    })
}

/// `thicket bench schedule`.
pub fn schedule(args: &BenchScheduleArgs) -> Result<()> {
    if !(args.time_limit.is_finite() && args.time_limit > 0.0 && args.time_limit <= 1e6) {
        return Err(thicket_core::Error::InvalidInput(format!(
            "--time-limit must be a positive number of seconds up to 1e6, not {}",
            args.time_limit
        )));
    }
    let options = thicket_bench::schedule::ScheduleBenchOptions {
        swarms: args.swarms.clone(),
        machines: args.machines.clone(),
        tasks: args.tasks.clone(),
        sweep_iterations: args.sweep_iterations as usize,
        quality: args.quality.clone(),
        iterations: args.iterations as usize,
        braun: args.braun.clone(),
        time_limit: std::time::Duration::from_secs_f64(args.time_limit),
        threads: args
            .threads
            .map_or_else(thicket_core::available_threads, |t| t as usize),
        seed: args.seed,
        gpu: !args.no_gpu,
        device: args.device,
    };
    report(&args.outputs, |after| {
        thicket_bench::schedule::bench(&options, after)
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
