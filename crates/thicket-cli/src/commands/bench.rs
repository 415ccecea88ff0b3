//! `thicket bench <problem>`: turns the flags into a library bench, prints a line after every
//! case on stderr and the table (or JSON) at the end, and writes the files asked for after
//! every case, so that an interrupted bench keeps what it measured.

use clap::{Args, Subcommand};
use thicket_bench::harness::{pretty_json, AfterCase, Report};
use thicket_bench::perm::BenchOptions;
use thicket_bench::queens::strategies::StrategyBenchOptions;
use thicket_bench::queens::CpuBenchOptions;
use thicket_core::Result;
use thicket_queens::Strategy;

use super::lattice::PRECISIONS;
use super::queens::PaperArgs;
use crate::flags::{
    choices, parse_book_size, parse_depths, parse_grid, parse_scales, parse_seconds, parse_sizes,
    parse_steps, parse_vertex_counts, BenchOutputArgs, SizeList,
};

/// Problems `thicket bench` can time.
#[derive(Debug, Subcommand)]
pub enum BenchProblem {
    /// N-Queens: thicket's CPU counter against a plain mirror-symmetric bitboard backtracker.
    Queens(BenchQueensArgs),
    /// The thesis's table for perm-queens: every strategy (CPU and GPU) over a range of N,
    /// each count checked against Table 1; Markdown, CSV, JSON and an SVG chart.
    Perm(BenchPermArgs),
    /// The thesis's lookback experiment: one American lookback put at growing N on every
    /// strategy in f32 and f64 (time, speed-up over serial, f32 error, the hybrid per
    /// threshold), then books of 1,024 options (options/s, nodes/s); with --convergence the
    /// price against N beside the closed form.
    Lookback(BenchLookbackArgs),
    /// The thesis's max-flow experiment: random graphs of mean degree 12 at growing sizes,
    /// several per size, every strategy on the same graphs (mean time per graph, speed-up over
    /// mpm-serial, the GPU's seconds per phase), every flow certified and compared.
    Maxflow(BenchMaxflowArgs),
    /// Graph searches: the modern sweep (time per search and GTEPS in both conventions on
    /// Kronecker graphs and a grid, many roots) or, with --thesis, the thesis's experiment
    /// (Viger-Latapy graphs, several per size, serial against both thesis kernels, Table 4.1's
    /// kernel/scan split); every answer checked.
    Bfs(BenchBfsArgs),
    /// The thesis's task-matching experiments: the MSPSO against swarms, machines and tasks
    /// (serial CPU vs GPU kernels), Table 6.1's phase shares (GPU), Table 6.2's makespans over
    /// FCFS, then the Braun instances (FCFS, Min-Min, MSPSO, the default, best known, gap).
    Schedule(BenchScheduleArgs),
}

/// Options of `thicket bench schedule` (an empty list skips its part).
#[derive(Debug, Args)]
pub struct BenchScheduleArgs {
    /// Swarm counts of the swarm sweep (80 tasks x 8 machines; the thesis: up to 60).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,10,20,30,40,50,54,56,58,60"
    )]
    pub swarms: Vec<usize>,
    /// Machine counts of the machine sweep (80 tasks, 10 swarms, both fitness scratches).
    #[arg(long, value_delimiter = ',', default_value = "2,8,16,30,32,64,100")]
    pub machines: Vec<usize>,
    /// Task counts of the task sweep (8 machines, 10 swarms).
    #[arg(long, value_delimiter = ',', default_value = "80,200,500,1000")]
    pub tasks: Vec<usize>,
    /// Swarm iterations in the sweeps and Table 6.1's shares.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub sweep_iterations: u32,
    /// Table 6.2's sizes, TASKSxMACHINES.
    #[arg(long, value_delimiter = ',', value_parser = parse_shape,
          default_value = "60x10,60x15,70x10,70x15,80x10,200x40,1000x100")]
    pub quality: Vec<(usize, usize)>,
    /// Swarm iterations in the quality and Braun tables (the thesis: 1,000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: u32,
    /// Braun instances (the best known from a `.sol` file beside each, named after it).
    #[arg(long, value_delimiter = ',')]
    pub braun: Vec<std::path::PathBuf>,
    /// The default's time limit per matrix, seconds.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    pub time_limit: f64,
    /// CPU threads of the default (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Seed of the matrices and the randomised methods.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Skip the GPU runs (the rows say so).
    #[arg(long)]
    pub no_gpu: bool,
    /// The GPU's ordinal.
    #[arg(
        long = "devices",
        alias = "device",
        value_name = "ORDINAL",
        default_value_t = 0
    )]
    pub device: usize,
    /// Where the results go (with --out-dir: schedule-bench.md, .csv, .json and .svg).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
}

/// `TASKSxMACHINES`, both at least 1.
fn parse_shape(text: &str) -> std::result::Result<(usize, usize), String> {
    let parsed = text
        .split_once('x')
        .and_then(|(t, m)| Some((t.trim().parse().ok()?, m.trim().parse().ok()?)));
    match parsed {
        Some((t, m)) if t > 0 && m > 0 => Ok((t, m)),
        _ => Err(format!("{text:?} is not TASKSxMACHINES, e.g. 60x10")),
    }
}

/// Options of `thicket bench maxflow`.
#[derive(Debug, Args)]
pub struct BenchMaxflowArgs {
    /// The networks: `random` (the thesis's graphs of mean degree --degree), `genrmf` (cubic:
    /// A frames of A × A, A the cube root of each count) or `rlg` (square, the square root).
    #[arg(long, default_value = "random")]
    pub family: thicket_bench::flow::BenchFamily,
    /// Vertex counts, e.g. `10000,30000,100000`.
    #[arg(long, value_delimiter = ',', default_value = "1000,3000,10000,30000,100000", value_parser = clap::value_parser!(u32).range(16..))]
    pub vertices: Vec<u32>,
    /// Mean degree of the random graphs (the thesis: 12; its degree sweep: up to 200).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(2..))]
    pub degree: u32,
    /// Largest capacity (capacities uniform in 1..=MAXCAP).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_capacity: u64,
    /// Graphs per size (seeds 1, 2, ...; the thesis: at least 5).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub graphs: u32,
    /// Strategies, in table order (mpm-serial first: the speed-ups are over it).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "mpm-serial,push-relabel,mpm,mpm-active,push-relabel-gpu",
        value_parser = choices(&thicket_flow::Strategy::ALL, thicket_flow::Strategy::name)
    )]
    pub strategies: Vec<thicket_flow::Strategy>,
    /// A strategy is not run at a size where its time per graph, predicted from the size
    /// before, would exceed this many seconds (the row says so).
    #[arg(long, default_value_t = 30.0, value_parser = parse_seconds)]
    pub max_seconds: f64,
    /// The GPU's ordinal.
    #[arg(
        long = "devices",
        alias = "device",
        value_name = "ORDINAL",
        default_value_t = 0
    )]
    pub device: usize,
    /// Where the results go (with --out-dir: maxflow-bench.md, .csv, .json and .svg).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
}

/// Options of `thicket bench bfs`.
#[derive(Debug, Args)]
pub struct BenchBfsArgs {
    /// The thesis's experiment instead: Viger-Latapy graphs of --degree, --graphs per vertex
    /// count (--vertices), speed-ups over serial on the same graph.
    #[arg(long)]
    pub thesis: bool,
    /// With --thesis: vertex counts.
    #[arg(
        long,
        default_value = "1000000,2000000,4000000,8000000,16000000,32000000,64000000",
        value_parser = parse_vertex_counts
    )]
    pub vertices: SizeList,
    /// With --thesis: graphs (seeds) per vertex count.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub graphs: u32,
    /// With --thesis: the graphs' mean degree.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(2..=10_000))]
    pub degree: u32,
    /// Kronecker scales: a list (`20,22`) or an inclusive range (`20..26`).
    #[arg(long, default_value = "20..26", value_parser = parse_scales)]
    pub scales: SizeList,
    /// Kronecker edge factor.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub edge_factor: u32,
    /// The grid after the Kronecker graphs, ROWSxCOLS.
    #[arg(long, default_value = "4096x4096", value_parser = parse_grid)]
    pub grid: (u32, u32),
    /// No grid.
    #[arg(long)]
    pub no_grid: bool,
    /// Random roots per graph, vertices with an arc (default: 64; with --thesis 4).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub sources: Option<u32>,
    /// Strategies, BFS and sssp ones mixed (default: multicore,gpu,delta-stepping; with
    /// --thesis serial,thesis,thesis-active). Speed-ups are over serial (BFS) and dijkstra.
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = choices(&thicket_graph::Strategy::ALL, thicket_graph::Strategy::name)
    )]
    pub strategies: Option<Vec<thicket_graph::Strategy>>,
    /// Delta-stepping's bucket width (default: the mean weight).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub delta: Option<u64>,
    /// The time cap, in seconds, of one strategy on one graph (roots past it are dropped; a
    /// strategy whose one search is predicted to pass it is skipped) and of making one graph.
    #[arg(long, default_value_t = 60.0, value_parser = parse_seconds)]
    pub max_seconds: f64,
    /// CPU threads of the parallel CPU strategies (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// The GPU's ordinal.
    #[arg(
        long = "devices",
        alias = "device",
        value_name = "ORDINAL",
        default_value_t = 0
    )]
    pub device: usize,
    /// Seed of the graphs and roots.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the results go (with --out-dir: bfs-bench.md, .csv, .json and .svg, or
    /// bfs-thesis.* with --thesis).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
}

/// Options of `thicket bench lookback`.
#[derive(Debug, Args)]
pub struct BenchLookbackArgs {
    /// Lattice steps: a list (`1000,30000`) or a range (`1000..100000`: 1, 3, 10, 30, ... times
    /// a power of ten inside it).
    #[arg(long, default_value = "1000..100000", value_parser = parse_steps)]
    pub steps: SizeList,
    /// Strategies, in table order (serial first: the speed-ups are over it).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "serial,multicore,thesis,hybrid,tiles",
        value_parser = choices(&thicket_lattice::Strategy::ALL, thicket_lattice::Strategy::name)
    )]
    pub strategies: Vec<thicket_lattice::Strategy>,
    /// Precisions to run.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "f64,f32",
        value_parser = choices(&PRECISIONS, thicket_lattice::Precision::name)
    )]
    pub precisions: Vec<thicket_lattice::Precision>,
    /// The hybrid's thresholds (the thesis's Fig. 3.4 compares 128, 256 and 384).
    #[arg(long, value_delimiter = ',', default_value = "128,256,384")]
    pub hybrid_thresholds: Vec<usize>,
    /// The books' size, OPTIONSxSTEPS.
    #[arg(long, default_value = "1024x2048", value_parser = parse_book_size)]
    pub book: (usize, usize),
    /// Skip the books.
    #[arg(long)]
    pub no_books: bool,
    /// Instead: the American and European put against N (--steps) beside the
    /// Goldman-Sosin-Gatto closed form, with a chart (lookback-convergence.*).
    #[arg(long)]
    pub convergence: bool,
    /// Runs per case; the fastest is kept.
    #[arg(long = "trials", alias = "repeat", default_value_t = 3)]
    pub repeat: usize,
    /// A case predicted to take longer than this many seconds (from the lattice's node
    /// count and the strategy's last time) is skipped.
    #[arg(long, default_value_t = 60.0, value_parser = parse_seconds)]
    pub max_seconds: f64,
    /// CPU threads for multicore (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// The GPU's ordinal.
    #[arg(
        long = "devices",
        alias = "device",
        value_name = "ORDINAL",
        default_value_t = 0
    )]
    pub device: usize,
    /// Where the results go (with --out-dir: lookback-bench.md, .csv, .json and .svg, or
    /// lookback-convergence.* with --convergence).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
}

/// Options of `thicket bench perm`.
#[derive(Debug, Args)]
pub struct BenchPermArgs {
    /// Board sizes: a list (`16,17`) or an inclusive range (`13..18`).
    #[arg(long, default_value = "13..18", value_parser = parse_sizes)]
    pub n: SizeList,
    /// Strategies to time, in table order.
    #[arg(long, value_delimiter = ',', default_values_t = thicket_perm::Strategy::ALL, value_parser = choices(&thicket_perm::Strategy::ALL, thicket_perm::Strategy::name))]
    pub strategies: Vec<thicket_perm::Strategy>,
    /// A strategy is not run at an N where its time, predicted from the N before by the
    /// growth of the tree, would exceed this many seconds (the row says so).
    #[arg(long, default_value_t = 60.0, value_parser = parse_seconds)]
    pub max_seconds: f64,
    /// The same cap for the CPU strategies (serial, multicore); default: `--max-seconds`.
    #[arg(long, value_parser = parse_seconds)]
    pub cpu_max_seconds: Option<f64>,
    /// Runs per configuration; the table shows the best and the median.
    #[arg(long = "trials", alias = "repeat", default_value_t = 1)]
    pub repeat: usize,
    /// CPU threads for `multicore` (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Run the GPU strategies at each of these d_cpu (a list or a range, e.g. `3..7`) instead
    /// of their default, and report the worst-to-best time ratio per strategy and N.
    #[arg(long, value_parser = parse_depths)]
    pub d_cpu: Option<SizeList>,
    /// Where the results go (with --out-dir: perm-bench.md, .csv, .json and .svg).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
}

/// Options of `thicket bench queens`.
#[derive(Debug, Args)]
pub struct BenchQueensArgs {
    /// Board sizes: a list (`16,17`) or an inclusive range (`15..19`).
    #[arg(long, default_value = "16,17", value_parser = parse_sizes)]
    pub n: SizeList,
    /// Thread counts to run thicket's CPU counter with, e.g. `1,2`.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 2])]
    pub threads: Vec<usize>,
    /// Runs per configuration; the table shows the best and the median.
    #[arg(long = "trials", alias = "repeat", default_value_t = 3)]
    pub repeat: usize,
    /// Skip the reference backtracker (it is slow from N = 18 on).
    #[arg(long)]
    pub no_baseline: bool,
    /// Where the results go (with --out-dir: queens-bench.md, .csv, .json and .svg, or
    /// queens-strategies.* with --strategies).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
    /// Time GPU strategies instead of the CPU counter: `all` or a list such as
    /// `naive,pool-global`; every count is checked against OEIS.
    #[arg(long, value_name = "LIST|all", value_parser = parse_strategies)]
    pub strategies: Option<StrategyList>,
    /// With --strategies: skip a strategy's larger boards once its next run is predicted
    /// (from its last two) to take longer than this many seconds.
    #[arg(long, default_value_t = 60.0, requires = "strategies", value_parser = parse_seconds)]
    pub max_seconds: f64,
    /// With --strategies: the GPU to run on.
    #[arg(
        long = "devices",
        alias = "device",
        value_name = "ORDINAL",
        default_value_t = 0,
        requires = "strategies"
    )]
    pub device: usize,
    /// With --strategies: rows the host places (default: each strategy's).
    #[arg(long, requires = "strategies")]
    pub depth: Option<u32>,
    /// The papers' parameters.
    #[command(flatten)]
    pub paper: PaperArgs,
}

/// Strategies given on the command line.
#[derive(Debug, Clone)]
pub struct StrategyList(pub Vec<Strategy>);

/// Parses `all` or a comma-separated list of strategy names.
fn parse_strategies(text: &str) -> std::result::Result<StrategyList, String> {
    if text.trim() == "all" {
        return Ok(StrategyList(Strategy::ALL.to_vec()));
    }
    text.split(',')
        .map(|name| {
            name.trim().parse::<Strategy>().map_err(|_| {
                let known: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "unknown strategy '{name}' (known: all, {})",
                    known.join(", ")
                )
            })
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map(StrategyList)
}

/// `thicket bench <problem>`.
pub fn run(problem: &BenchProblem) -> Result<()> {
    match problem {
        BenchProblem::Queens(args) => queens(args),
        BenchProblem::Perm(args) => perm(args),
        BenchProblem::Lookback(args) => lookback(args),
        BenchProblem::Maxflow(args) => maxflow(args),
        BenchProblem::Bfs(args) => bfs(args),
        BenchProblem::Schedule(args) => schedule(args),
    }
}

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
            thicket_core::number(args.time_limit)
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

/// Runs a bench: a progress line per case on stderr, the files rewritten after every case
/// (the outputs written in place once, at the end), then the Markdown (or, with `--json`,
/// the JSON) on stdout and the bench's verdict.
fn report(
    outputs: &BenchOutputArgs,
    bench: impl FnOnce(AfterCase) -> Result<Report>,
) -> Result<()> {
    let (files, streams) = outputs.outputs().split_streams();
    let report = bench(&mut |line, rendered| {
        errln!("{line}");
        files.write(rendered)
    })?;
    streams.write(&report.rendered)?;
    match outputs.json {
        true => outln!("{}", pretty_json(&report.rendered.json)?),
        false => out!("{}", report.rendered.markdown),
    }
    report.verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_as_all_or_a_list() {
        assert_eq!(
            parse_strategies("all").unwrap().0.len(),
            Strategy::ALL.len()
        );
        assert_eq!(
            parse_strategies("naive,dp-swap").unwrap().0,
            vec![Strategy::Naive, Strategy::DpSwap]
        );
        assert!(parse_strategies("naive,warp").is_err());
    }
}
