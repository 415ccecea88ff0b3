//! `thicket atsp FILE`: an asymmetric TSP instance solved to proven optimality.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde_json::json;
use thicket_atsp::{
    generate, parse_generator_spec, read_tsplib, AtspRun, Batching, Bound, Branching, Instance,
    SolveOptions, Solved,
};
use thicket_core::{Error, Measured, Result};
use thicket_perm::Strategy;
use thicket_run::Shard;

use super::perm::PermSearchArgs;
use super::{result_on_stdout, say, Summary};
use crate::flags::{parse_shard, run_options, BackendArgs, OutputArgs, TrialArgs};
use crate::stdio::write_output;

/// The lower bound of `thicket atsp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AtspBound {
    /// The thesis's bound: the cost of the partial path.
    Partial,
    /// The partial path plus the assignment-problem bound on its completion (Hungarian
    /// method, updated incrementally along the search).
    Assignment,
    /// The partial path plus a Held–Karp Lagrangian bound on its completion: a minimum
    /// 1-arborescence with out-degree multipliers tuned by deflected subgradient ascent,
    /// which reaches the subtour-elimination LP bound; children are searched cheapest bound
    /// first (the default: it proves p43 and ft70, where the assignment bound is weak).
    HeldKarp,
}

/// How `thicket atsp` branches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AtspBranching {
    /// Depth-first path extension from city 0 (the thesis's search), with any bound.
    Path,
    /// Subtour elimination on the assignment relaxation, cheapest bound first (Carpaneto,
    /// Dell'Amico and Toth 1995), with the assignment bound.
    Subtour,
}

/// Options of `thicket atsp`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("batched").args(["ledger", "mpi"]).multiple(true)))]
pub struct AtspArgs {
    /// A TSPLIB file (explicit edge weights, any format); `-` reads it from stdin.
    #[arg(required_unless_present = "generate", conflicts_with = "generate")]
    pub file: Option<std::path::PathBuf>,
    /// A generated instance instead of a file: CLASS:N:SEED with CLASS coin, crane, tsmat,
    /// amat, tmat, disk, super, shop, stilt or rtilt (after Cirasella et al. 2001), e.g.
    /// tsmat:15:1.
    #[arg(long, value_name = "CLASS:N:SEED")]
    pub generate: Option<String>,
    /// The lower bound to prune with (default: chosen per instance on the CPU from the root's
    /// assignment and Held-Karp bounds; the GPU strategies take only the thesis's partial
    /// bound).
    #[arg(long, value_enum)]
    pub bound: Option<AtspBound>,
    /// How the CPU search branches (default: chosen with the bound; path when --bound is
    /// given). subtour takes the assignment bound and no --ledger.
    #[arg(long, value_enum)]
    pub branching: Option<AtspBranching>,
    /// Stop after this many seconds (the whole run, from parsing on) with the best tour, a
    /// proven lower bound and the gap; the time the exact search cannot use goes to a local
    /// search on the tour. With --ledger a later run resumes where this one stopped. CPU
    /// strategies only; with --backend cuda on more than 32 cities (under auto from 2,000
    /// where a GPU is usable), the CPU's search with the GPU's tour improver beside its local
    /// search, the two trading their best tours.
    #[arg(long, value_name = "SECONDS", conflicts_with = "mpi")]
    pub time_limit: Option<f64>,
    /// Write the tour in TSPLIB .tour format (1-based TOUR_SECTION ended by -1); `-` for
    /// stdout (the summary then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub tour: Option<PathBuf>,
    /// Start from this tour length instead of the heuristic's: the search proves it optimal or
    /// finds a shorter tour.
    #[arg(long, conflicts_with = "optimal_ub")]
    pub upper_bound: Option<i64>,
    /// Start at the optimum, as the thesis's experiments do, so the node count is that of the
    /// tree that proves optimality: the TSPLIB optimum when the instance is known, else a first
    /// solve finds it.
    #[arg(long)]
    pub optimal_ub: bool,
    /// Record every finished subtree (below each path 0 -> a -> b) with its best tour in this
    /// SQLite ledger and skip those it holds: a killed run resumes with its incumbent.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["upper_bound", "optimal_ub"])]
    pub ledger: Option<std::path::PathBuf>,
    /// With --ledger: solve only shard i of K of the subtrees (subtree numbers i mod K); merge
    /// the shard ledgers into the proven optimum with `thicket merge`.
    #[arg(long, value_name = "i/K", requires = "ledger", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Run under MPI (`mpirun -n R thicket atsp FILE --mpi`): rank 0 hands subtrees out with
    /// the current incumbent and owns the ledger, ranks 1.. solve them (needs a binary built
    /// with the `mpi` feature).
    #[arg(long, conflicts_with_all = ["upper_bound", "optimal_ub"])]
    pub mpi: bool,
    /// How to search.
    #[command(flatten)]
    pub search: PermSearchArgs,
    /// Where to run: `auto` and `cpu` search on the CPU (multicore), `cuda` with the thesis's
    /// best GPU strategy (bp-dfs-pool).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report. JSON keys: name, n, cost, tour, nodes, proven_optimal, lower_bound,
    /// lower_bound_source (optimal, search, assignment or one-tree), gap, known_optimum, bound,
    /// branching, strategy, threads, seconds, backend, devices, gpu.
    #[command(flatten)]
    pub output: OutputArgs,
    /// How often, and checked against the TSPLIB optimum.
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Runs `thicket atsp` with its parsed arguments.
pub fn run(args: &AtspArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let tour_on_stdout = result_on_stdout(args.output.json, &[("--tour", args.tour.as_deref())])?;
    let time_limit = args.time_limit.map(time_limit).transpose()?;
    let instance = load(args)?;
    let bound = args.bound.map(|b| match b {
        AtspBound::Partial => Bound::Partial,
        AtspBound::Assignment => Bound::Assignment,
        AtspBound::HeldKarp => Bound::HeldKarp,
    });
    let strategy = args.search.strategy;
    if let (Some(s), Some(Bound::Assignment | Bound::HeldKarp)) = (strategy, bound) {
        if s.is_gpu() {
            return Err(Error::InvalidInput(format!(
                "--strategy {} runs the thesis's partial bound only: use --bound partial",
                s.name()
            )));
        }
    }
    if (args.ledger.is_some() || args.mpi) && strategy.is_some_and(Strategy::is_gpu) {
        return Err(Error::InvalidInput(format!(
            "--ledger and --mpi run the CPU strategies (serial, multicore), not --strategy {}",
            strategy.map_or("", Strategy::name)
        )));
    }
    let batched = (args.ledger.is_some() || args.mpi).then(|| Batching {
        ledger: args.ledger.clone(),
        shard: args.shard.unwrap_or_default(),
        batch_size: None,
        mpi: args.mpi,
    });
    let options = SolveOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy,
        bound,
        upper_bound: args.upper_bound,
        optimal_upper_bound: args.optimal_ub,
        threads: args.backend.thread_count(),
        gpu: args.search.gpu_params(&args.backend)?,
        batched,
        branching: args.branching.map(|b| match b {
            AtspBranching::Path => Branching::Path,
            AtspBranching::Subtour => Branching::Subtour,
        }),
        // The limit counts from the start of the command: reading the file is part of it.
        time_limit: time_limit.map(|limit| limit.saturating_sub(started.elapsed())),
    };
    if options.time_limit.is_some_and(|limit| limit.is_zero()) {
        return Err(Error::InvalidInput(format!(
            "time limit {} s passed while reading the instance",
            thicket_core::number(args.time_limit.unwrap_or(0.0))
        )));
    }
    match thicket_atsp::solve(&instance, &options)? {
        Solved::Whole(measured) => {
            super::say_notes(&measured.info, args.output.quiet);
            if let Some(path) = &args.tour {
                write_output(path, &tsplib_tour(&measured.output))?;
            }
            let summary = Summary::beside(tour_on_stdout, args.output.quiet);
            print_run(&measured, args.output.json, summary)
        }
        Solved::Shard { shard, run } => {
            if args.output.json {
                let mut value = serde_json::Value::Object(run.stats());
                value["shard"] = json!(shard.label());
                outln!("{value}");
            } else {
                outln!(
                    "shard {} of {} complete: best tour of its subtrees {} ({} nodes); combine the shards with `thicket merge`",
                    shard.label(),
                    run.name,
                    run.solution.cost,
                    run.solution.nodes
                );
            }
        }
        Solved::Worker => {}
    }
    Ok(())
}

/// `--time-limit` as a duration: a positive number of seconds up to 10^6.
fn time_limit(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 1e6) {
        return Err(Error::InvalidInput(format!(
            "time limit {} is not a number of seconds in (0, 1e6]",
            thicket_core::number(seconds)
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The tour in TSPLIB's .tour format: cities numbered from 1, the section ended by -1.
pub fn tsplib_tour(run: &AtspRun) -> String {
    let s = &run.solution;
    let mut text = format!(
        "NAME : {}.tour\nCOMMENT : Length {}{}\nTYPE : TOUR\nDIMENSION : {}\nTOUR_SECTION\n",
        run.name,
        s.cost,
        if s.proven_optimal {
            " (proven optimal)".to_string()
        } else {
            format!(" (lower bound {})", s.lower_bound)
        },
        run.n
    );
    for city in &s.tour {
        text.push_str(&format!("{}\n", city + 1));
    }
    text.push_str("-1\nEOF\n");
    text
}

fn load(args: &AtspArgs) -> Result<Instance> {
    match (&args.file, &args.generate) {
        (Some(path), _) => read_tsplib(path),
        (None, Some(spec)) => {
            let spec = parse_generator_spec(spec)?;
            generate(spec.class, spec.n, spec.seed)
        }
        (None, None) => Err(Error::InvalidInput(
            "give a TSPLIB file or --generate CLASS:N:SEED".into(),
        )),
    }
}

/// Prints a solve as JSON, or as a text summary where `summary` says.
pub fn print_run(measured: &Measured<AtspRun>, json: bool, summary: Summary) {
    let run = &measured.output;
    if json {
        outln!("{}", measured.json(run.stats()));
        return;
    }
    let solution = &run.solution;
    let known = thicket_atsp::known_optimum(&run.name);
    let tour: Vec<String> = solution.tour.iter().map(usize::to_string).collect();
    say!(summary, "ATSP {} ({} cities)", run.name, run.n);
    say!(
        summary,
        "  cost       {:>12}{}",
        solution.cost,
        verdict(known, solution)
    );
    say!(summary, "  tour       {}", tour.join(" "));
    say!(summary, "  nodes      {:>12}", solution.nodes);
    if solution.proven_optimal {
        say!(summary, "  optimal    proven");
    } else {
        say!(
            summary,
            "  optimal    not proven: lower bound {}, gap {:.3}%",
            solution.lower_bound,
            100.0 * run.gap()
        );
    }
    say!(summary, "  wall time  {:>10.3} s", measured.info.seconds);
    let bound = thicket_atsp::bound_name(run.bound);
    match &run.gpu {
        Some(gpu) => say!(
            summary,
            "  search     {bound} bound, {} on {}, d_cpu {}, d_gpu {}, {} roots",
            run.strategy.name(),
            gpu.device,
            gpu.depths.d_cpu,
            gpu.depths.d_gpu,
            gpu.roots
        ),
        None => say!(
            summary,
            "  search     {bound} bound, {} branching, {}, {} threads",
            run.branching.name(),
            run.strategy.name(),
            run.threads
        ),
    }
    if let Some(verified) = measured.verified {
        say!(
            summary,
            "  verified   {}",
            match (verified, solution.proven_optimal) {
                (true, true) => "against the TSPLIB optimum",
                (true, false) => "the TSPLIB optimum lies between the lower bound and the cost",
                (false, _) => "NO",
            }
        );
    }
}

fn verdict(known: Option<i64>, solution: &thicket_atsp::AtspSolution) -> String {
    match known {
        Some(optimum) if optimum == solution.cost => format!("   TSPLIB optimum {optimum}: match"),
        Some(optimum) if !solution.proven_optimal && optimum < solution.cost => {
            format!("   TSPLIB optimum {optimum}: not reached")
        }
        Some(optimum) => format!("   TSPLIB optimum {optimum}: MISMATCH"),
        None => String::new(),
    }
}
