//! The root of the command line: the `thicket` command, its subcommands and the rendering of
//! a command line it cannot parse. Each subcommand's flags live beside its handler in
//! `commands/`, the flag groups several share in `flags.rs`.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands::atsp::AtspArgs;
use crate::commands::bench::BenchProblem;
use crate::commands::completions::CompletionsArgs;
use crate::commands::devices::DevicesArgs;
use crate::commands::graph::{GraphCommand, SearchArgs};
use crate::commands::implied_vol::ImpliedVolArgs;
use crate::commands::lattice::{BinomialArgs, LookbackArgs};
use crate::commands::ledger::{LedgerArgs, MergeArgs, VerifyArgs};
use crate::commands::maxflow::MaxflowArgs;
use crate::commands::perm::PermQueensArgs;
use crate::commands::queens::QueensArgs;
use crate::commands::schedule::ScheduleArgs;
use crate::commands::warmup::WarmupArgs;
use crate::version::{LONG_VERSION, SHORT_VERSION};

/// thicket solves irregular problems on NVIDIA GPUs and multi-core CPUs and checks every
/// answer: N-Queens counts, permutation search (N-Queens, asymmetric TSP to proven
/// optimality), American and European options on binomial lattices, breadth-first search and
/// shortest paths, maximum flow, and matching tasks to machines.
#[derive(Debug, Parser)]
#[command(
    name = "thicket",
    version = SHORT_VERSION,
    long_version = LONG_VERSION,
    long_about = None,
    after_help = ENVIRONMENT,
)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The environment variables thicket reads, for the root `--help` (docs/cli.md says more).
const ENVIRONMENT: &str = "\
Environment:
  THICKET_CACHE_DIR            Where compiled GPU kernels are cached (default:
                               $XDG_CACHE_HOME/thicket/kernels, else ~/.cache/thicket/kernels;
                               none of them set: kernels are compiled every run)
  THICKET_CPU_PATH=portable    Run the CPU counters' portable code instead of the x86-64-v3 path
  THICKET_CUDADEVRT            libcudadevrt.a (the file or its folder) for the kernels that launch
                               kernels (else found under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda*)
  THICKET_FLOW_ROUND_CYCLES    maxflow on the GPU: push cycles between global relabellings at most
                               (default 1024; for tuning)
  CUDA_DEVICE_MAX_CONNECTIONS  Hardware queues a GPU context opens; thicket sets 1 unless it is set
  LD_LIBRARY_PATH              Where the loader finds libcuda.so.1 and libnvrtc.so.13 (CUDA 13)
  THICKET_REQUIRE_NVRTC=1, THICKET_REQUIRE_GPU=1
                               Tests only: fail instead of skipping without NVRTC or a GPU

Exit codes: 0 done; 1 the run failed (no GPU for --backend cuda, a file that cannot be written,
a ledger in use); 2 bad input (the command line, a missing or malformed input file, an invalid
value); 3 a verification found a wrong answer.";

/// thicket's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the solutions of the N-Queens problem: all of them (OEIS A000170) and the
    /// fundamental ones, distinct under rotations and reflections (OEIS A002562).
    Queens(QueensArgs),
    /// List the GPUs thicket can use (name, SMs, memory, compute capability, driver) and the
    /// CPU cores, or say why no GPU can be used.
    Devices(DevicesArgs),
    /// Compile every GPU kernel ahead into the on-disk cache (a first call otherwise compiles
    /// the kernels it runs, a few seconds).
    Warmup(WarmupArgs),
    /// N-Queens as a permutation problem (Carneiro 2017): the thesis's node and non-recursive
    /// DFS with an O(N) diagonal check and no symmetry; reports every feasible node generated
    /// (solutions included) and the solutions.
    PermQueens(PermQueensArgs),
    /// Solve an asymmetric travelling salesman instance to proven optimality (Carneiro's
    /// depth-first branch-and-bound, with the Held–Karp Lagrangian bound by default).
    Atsp(AtspArgs),
    /// Price an American (or European) floating-strike lookback put or call on Hull's
    /// binomial lattice (Solomon 2012, ch. 3). JSON keys: price, delta, gamma, theta, vega,
    /// rho, steps, precision, strategy, backend, seconds, and the contract.
    Lookback(LookbackArgs),
    /// Price a vanilla American (or European) put or call on the Cox-Ross-Rubinstein lattice;
    /// the same flags as `lookback`, plus --strike.
    Binomial(BinomialArgs),
    /// The volatility at which an option's lattice price (f64) equals a quoted price, by
    /// Brent's method to 1e-10 in volatility; one line of error where no volatility gives the
    /// price. JSON key: volatility, with the contract.
    ImpliedVol(ImpliedVolArgs),
    /// Breadth-first search (hop counts) from one or more sources (Solomon 2012, ch. 4; GAPBS's
    /// bfs). JSON keys: vertices, arcs, reached, max_distance (levels), sum_distances,
    /// strategy, backend, seconds, and with --sources every search.
    Bfs(SearchArgs),
    /// Shortest paths by weight from one or more sources (Dijkstra, delta-stepping, near-far on
    /// a GPU). The same flags and JSON keys as `bfs`, plus --delta.
    Sssp(SearchArgs),
    /// Maximum s-t flow of a DIMACS .max network or a generated one (Solomon 2012, ch. 5:
    /// MPM; push-relabel), checked by a minimum-cut certificate. JSON keys: flow, vertices,
    /// arcs, cut_arcs, source_side, strategy, backend, seconds, verified, and the solver's
    /// counts (GPU: device seconds per phase).
    Maxflow(MaxflowArgs),
    /// Make graphs (`gen`) and describe them (`info`).
    Graph {
        /// What to do.
        #[command(subcommand)]
        command: GraphCommand,
    },
    /// Match independent tasks to heterogeneous machines, minimising the makespan (Solomon
    /// 2012, ch. 6): the list heuristics, the thesis's swarms, or thicket's LP-started
    /// iterated local search (the default, CPU or GPU). JSON keys: makespan, tasks, machines,
    /// method, loads, lower_bound (the LP relaxation's), gap ((makespan - lower_bound) /
    /// makespan), backend, seconds (and epochs/kicks or the swarm parameters).
    Schedule(ScheduleArgs),
    /// Show a ledger's progress, rate and ETA; a batch whose row fails its check values or
    /// digest (an edited or corrupt ledger) is reported, then exit code 3.
    Status(LedgerArgs),
    /// Recompute random finished batches of a ledger with an independent algorithm and
    /// compare; a corrupt or edited ledger fails with exit code 3.
    Verify(VerifyArgs),
    /// Combine the shard ledgers of one run into its counts or priced book; refuses
    /// overlapping, foreign or missing shards (exit 2) and any row that fails its check values
    /// or digest (exit 3), before anything is written.
    Merge(MergeArgs),
    /// Time solvers against their references and print a Markdown table.
    Bench {
        /// The problem family to benchmark.
        #[command(subcommand)]
        problem: BenchProblem,
    },
    /// Print the completion script of a shell on stdout, e.g.
    /// `thicket completions bash > ~/.local/share/bash-completion/completions/thicket`.
    Completions(CompletionsArgs),
    /// Print thicket's manual page (roff) on stdout, e.g. `thicket man > thicket.1`.
    Man,
}

/// The command line as clap sees it, for the parser, the completion scripts and the manual.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the process's arguments; a command line that does not parse has been reported
/// (see [`report_parse_error`]) and its exit code is the error.
pub fn parse() -> Result<Cli, ExitCode> {
    command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map_err(report_parse_error)
}

/// Prints clap's own rendering of a command line it could not parse (the error, the usage
/// line and its "did you mean" tip) on stderr with exit code 2; help and version go to
/// stdout with exit code 0, through the output module like every other print.
pub fn report_parse_error(err: clap::Error) -> ExitCode {
    if err.use_stderr() {
        // Failing to print on stderr leaves no one to tell; the exit code still says it.
        let _ = err.print();
    } else if std::io::stdout().is_terminal() {
        out!("{}", err.render().ansi());
    } else {
        out!("{}", err.render());
    }
    ExitCode::from(err.exit_code().clamp(0, 255) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_argument_is_named() {
        let err = Cli::try_parse_from(["thicket", "queens"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(err.render().to_string().contains("<N>"));
    }

    #[test]
    fn a_misspelt_flag_gets_a_tip() {
        let err = Cli::try_parse_from(["thicket", "queens", "8", "--trails", "2"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.render().to_string().contains("--trials"), "{err}");
    }

    #[test]
    fn command_line_is_well_formed() {
        command().debug_assert();
    }
}
