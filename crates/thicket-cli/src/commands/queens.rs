//! `thicket queens N`: count, list and draw N-Queens solutions.

use clap::Args;
use serde_json::json;
use thicket_core::{Backend, Error, Measured, Result, RunInfo};
use thicket_queens::{
    draw_board, first_solutions, format_solution, known_counts, Batching, CountOptions, Counted,
    QueensCount, QueensRun, Strategy,
};
use thicket_queens::Params;
use thicket_run::Shard;

use crate::flags::{choices, parse_shard, run_options, BackendArgs, OutputArgs, TrialArgs};

/// Options of `thicket queens`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("batched").args(["ledger", "mpi"]).multiple(true)))]
pub struct QueensArgs {
    /// Record every finished batch in this SQLite ledger and skip the batches it already holds:
    /// a killed run resumes where it stopped, on any backend (the unique count by Burnside).
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<std::path::PathBuf>,
    /// With --ledger: count only shard i of K (batches whose number is i mod K); merge the
    /// shard ledgers with `thicket merge`.
    #[arg(long, value_name = "i/K", requires = "ledger", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// With --ledger or --mpi: canonical constellations per batch (default: 64 up to N = 21,
    /// halved for each larger N, 1 from N = 27 on). Part of the ledger: a resumed run must
    /// use the same.
    #[arg(long, requires = "batched")]
    pub batch_size: Option<usize>,
    /// Run under MPI (`mpirun -n R thicket queens N --mpi`): rank 0 hands batches out and
    /// owns the ledger, ranks 1.. count them with their own GPUs or cores (needs a binary
    /// built with the `mpi` feature).
    #[arg(long)]
    pub mpi: bool,
    /// Board size (1 to 32).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=32))]
    pub n: u32,
    /// Where to run.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Inner rows the host fills before handing tasks to the GPUs, for every constellation
    /// (default: chosen from N so that there are a few million tasks, with the constellations
    /// handed out last a row deeper, so that the GPUs finish together).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=30))]
    pub depth: Option<u32>,
    /// Print the first K solutions in lexicographic order, one line each: the column (0-based)
    /// of the queen in each row.
    #[arg(long, value_name = "K")]
    pub solutions: Option<usize>,
    /// Draw the solutions printed by --solutions as boards.
    #[arg(long, requires = "solutions")]
    pub board: bool,
    /// How to report. JSON keys: n, total, unique, oeis_match, seconds, backend, threads,
    /// devices; on GPUs gpu (tasks, queue, depth, kernel_seconds, ...); with --solutions
    /// solutions; with --strategy the kernel's strategy, source, kernel_seconds, jobs, depth.
    #[command(flatten)]
    pub output: OutputArgs,
    /// How often, and checked against OEIS.
    #[command(flatten)]
    pub trials: TrialArgs,
    /// The GPU algorithm: thicket's `constellation` kernel, or one of the papers' kernels that
    /// docs/reproduction.md compares (Zhang 2011, Feinbube 2010, Plauth 2016); those run on the
    /// GPU only and read --depth as the rows the host places.
    #[arg(long, default_value_t = Strategy::Constellation, value_parser = choices(&Strategy::ALL, Strategy::name))]
    pub strategy: Strategy,
    /// The papers' parameters.
    #[command(flatten)]
    pub paper: PaperArgs,
}

/// The papers' tuning parameters for `--strategy` (defaults: the papers', see
/// docs/reproduction.md).
#[derive(Debug, Args, Clone, Copy)]
pub struct PaperArgs {
    /// Threads per block (default 64 for Zhang's kernels, 128 for feinbube, 256 for dp1, dp2
    /// and dp3, 64 for dp-swap).
    #[arg(long)]
    pub block_size: Option<u32>,
    /// Jobs per pool of pool-block and pool-global (default 256).
    #[arg(long)]
    pub pool_size: Option<u32>,
    /// Rows per grid or thread of the DP kernels: dp1's z (3), dp2's and dp-swap's static
    /// depth (4), dp3's initial depth (2).
    #[arg(long)]
    pub search_depth: Option<u32>,
    /// dp3's factor on the search depth per child generation (default 2, doubling).
    #[arg(long)]
    pub growth: Option<u32>,
    /// Shared memory bytes that bound dp3's depth and dp-swap's buffer (default 49152, GK110).
    #[arg(long)]
    pub shared_limit: Option<u32>,
}

impl PaperArgs {
    /// The parameters with the host's rows.
    pub fn params(&self, depth: Option<u32>) -> Params {
        Params {
            block_size: self.block_size,
            depth: depth.map(|d| d as usize),
            pool_size: self.pool_size,
            search_depth: self.search_depth,
            growth: self.growth,
            shared_limit: self.shared_limit,
        }
    }
}

/// Runs `thicket queens` with its parsed arguments.
pub fn run(args: &QueensArgs) -> Result<()> {
    let n = args.n as usize;
    check_strategy(args)?;
    let batched = (args.ledger.is_some() || args.mpi).then(|| Batching {
        ledger: args.ledger.clone(),
        shard: args.shard.unwrap_or_default(),
        batch_size: args.batch_size,
        mpi: args.mpi,
    });
    let options = CountOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        threads: args.backend.thread_count(),
        devices: args.backend.devices.clone(),
        depth: args.depth.map(|d| d as usize),
        strategy: args.strategy,
        paper: args.paper.params(None),
        batched,
    };
    match thicket_queens::count(n, &options)? {
        Counted::Whole(measured) => {
            super::say_notes(&measured.info, args.output.quiet);
            let solutions = args
                .solutions
                .map(|k| first_solutions(n, k))
                .unwrap_or_default();
            print_run(&measured, &solutions, args.board, args.output.json);
        }
        Counted::Shard {
            n,
            shard,
            partial_total,
        } => {
            if args.output.json {
                let value =
                    json!({ "n": n, "shard": shard.label(), "partial_total": partial_total });
                println!("{value}");
            } else {
                println!(
                    "shard {} of N = {n} complete: partial total {partial_total}; combine the shards with `thicket merge`",
                    shard.label()
                );
            }
        }
        Counted::Worker { notes } => {
            if !args.output.quiet {
                for note in notes {
                    eprintln!("thicket: {note}");
                }
            }
        }
    }
    Ok(())
}

/// Refuses what the papers' kernels cannot do, naming the flags.
fn check_strategy(args: &QueensArgs) -> Result<()> {
    let strategy = args.strategy;
    if strategy == Strategy::Constellation {
        return Ok(());
    }
    if args.mpi || args.ledger.is_some() {
        return Err(Error::InvalidInput(
            "--strategy runs the papers' kernels in one process: leave out --ledger and --mpi"
                .into(),
        ));
    }
    if args.backend.backend == Backend::Cpu {
        return Err(Error::InvalidInput(format!(
            "--strategy {} is a GPU kernel; use --backend cuda",
            strategy.name()
        )));
    }
    if args.solutions.is_some() {
        return Err(Error::InvalidInput(format!(
            "--strategy {} only counts: it takes no --ledger or --solutions",
            strategy.name()
        )));
    }
    if args.backend.devices.as_ref().is_some_and(|d| d.len() > 1) {
        return Err(Error::InvalidInput(format!(
            "--strategy {} runs on one GPU: give --devices one ordinal",
            strategy.name()
        )));
    }
    Ok(())
}

/// Prints a count as text or JSON, with the solutions listed.
pub fn print_run(measured: &Measured<QueensRun>, solutions: &[Vec<u8>], board: bool, json: bool) {
    if json {
        let mut value = measured.json(measured.output.stats());
        if !solutions.is_empty() {
            value["solutions"] = json!(solutions);
        }
        println!("{value}");
        return;
    }
    print_summary(&measured.output.count, &measured.info, solutions, board);
    if let Some((strategy, run)) = &measured.output.strategy {
        let refused = if run.refused_launches == 0 {
            String::new()
        } else {
            format!(
                ", {} child launches refused by the device runtime and counted by their parents",
                run.refused_launches
            )
        };
        println!(
            "  strategy   {} ({}): {} host jobs of {} rows, kernel {:.3} s{refused}",
            strategy.name(),
            strategy.source(),
            run.jobs,
            run.depth,
            run.kernel_seconds,
        );
    }
    if let Some(verified) = measured.verified {
        println!(
            "  verified   {}",
            if verified { "against OEIS" } else { "NO" }
        );
    }
}

/// `match`, `MISMATCH` or `not published` against the OEIS value for this size.
fn oeis_verdict(n: usize, pick: impl Fn((u128, u128)) -> u128, value: u128) -> &'static str {
    match known_counts(n) {
        Some(known) if pick(known) == value => "match",
        Some(_) => "MISMATCH",
        None => "not published",
    }
}

/// The text summary of a count.
fn print_summary(count: &QueensCount, info: &RunInfo, solutions: &[Vec<u8>], board: bool) {
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
