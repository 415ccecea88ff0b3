//! Command-line syntax: subcommands, flags and their help texts.

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use thicket_queens::strategies::{Params, Strategy};
use thicket_run::Shard;

use crate::flags::{
    parse_book_size, parse_depths, parse_grid, parse_scales, parse_sizes, parse_steps,
    parse_vertex_counts, BackendArgs, BenchOutputArgs, OutputArgs, SizeList, TrialArgs,
};

/// thicket solves irregular workloads (N-Queens today; permutation search, graphs, lattices
/// and swarms next) on NVIDIA GPUs and multi-core CPUs, and checks every answer.
#[derive(Debug, Parser)]
#[command(name = "thicket", version, about, long_about = None)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// thicket's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the solutions of the N-Queens problem: all of them (OEIS A000170) and the
    /// fundamental ones, distinct under rotations and reflections (OEIS A002562).
    Queens(QueensArgs),
    /// List the GPUs thicket can use (name, SMs, memory, compute capability, driver) and the
    /// CPU cores, or say why no GPU can be used.
    Devices(DevicesArgs),
    /// N-Queens as a permutation problem (Carneiro 2017): the thesis's node and non-recursive
    /// DFS with an O(N) diagonal check and no symmetry; reports every feasible node generated
    /// (solutions included) and the solutions.
    PermQueens(PermQueensArgs),
    /// Solve an asymmetric travelling salesman instance to proven optimality (Carneiro's
    /// depth-first branch-and-bound, with the Held–Karp Lagrangian bound by default).
    Atsp(AtspArgs),
    /// Price an American (or European) floating-strike lookback put or call on Hull's
    /// binomial lattice (Solomon 2012, ch. 3). JSON keys: price, delta, gamma, steps,
    /// precision, strategy, backend, seconds, and the contract.
    Lookback(LookbackArgs),
    /// Price a vanilla American (or European) put or call on the Cox-Ross-Rubinstein lattice;
    /// the same flags as `lookback`, plus --strike.
    Binomial(BinomialArgs),
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
    /// method, loads, lower_bound (the LP relaxation's), gap (percent above it), backend,
    /// seconds (and epochs/kicks or the swarm parameters).
    Schedule(ScheduleArgs),
    /// Show a ledger's progress, rate and ETA.
    Status(LedgerArgs),
    /// Recompute random finished batches of a ledger with an independent algorithm and
    /// compare; a corrupt ledger fails with exit code 1.
    Verify(VerifyArgs),
    /// Combine the shard ledgers of one run into its counts; refuses overlapping, foreign or
    /// missing shards.
    Merge(MergeArgs),
    /// Time solvers against their references and print a Markdown table.
    Bench {
        /// The problem family to benchmark.
        #[command(subcommand)]
        problem: BenchProblem,
    },
}

/// Options of `thicket bfs` and `thicket sssp`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The graph: DIMACS .gr (1-based), .el / .wel edge lists (0-based), Matrix Market .mtx
    /// (1-based) or thicket's binary .tgr.
    pub graph: std::path::PathBuf,
    /// Source vertex, numbered as the file numbers vertices (repeatable).
    #[arg(long, required_unless_present = "sources", allow_hyphen_values = true)]
    pub source: Vec<i64>,
    /// Instead: this many random sources with at least one arc (as GAPBS picks them).
    #[arg(long, conflicts_with = "source", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub sources: Option<u32>,
    /// Seed of the random sources.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Add the reverse of every arc (an undirected graph from a one-way edge list).
    #[arg(long)]
    pub symmetrise: bool,
    /// bfs: serial, multicore (direction-optimizing, the CPU default), thesis (the thesis's
    /// kernel), thesis-active (its scan variant) or gpu (thicket's, the GPU default);
    /// sssp: dijkstra, delta-stepping (the CPU default) or gpu (near-far, the GPU default).
    #[arg(long)]
    pub strategy: Option<thicket_graph::Strategy>,
    /// Delta-stepping's and near-far's bucket width (default: the mean weight).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub delta: Option<u64>,
    /// Write the first source's distance and parent of every vertex to this file, one line
    /// per vertex (`vertex distance parent`, `unreachable` where none).
    #[arg(long = "output", value_name = "FILE")]
    pub output_file: Option<std::path::PathBuf>,
    /// Where to run (--devices: the GPU's ordinal, default 0).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials and verification (GAPBS's checks: parents one level up, no arc skipping a
    /// level; every arc relaxed, a tight arc into every vertex).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Options of `thicket maxflow`.
#[derive(Debug, Args)]
pub struct MaxflowArgs {
    /// The network: a DIMACS max-flow file (`p max`, `n <id> s`, `n <id> t`, `a u v cap`).
    #[arg(required_unless_present = "generate", conflicts_with = "generate")]
    pub network: Option<std::path::PathBuf>,
    /// Instead: generate the network, genrmf:A:B:C1:C2:SEED (Goldfarb-Grigoriadis),
    /// rlg:ROWS:COLS:MAXCAP:SEED (Washington random level graph) or
    /// random:VERTICES:DEGREE:MAXCAP:SEED (the thesis's random graphs).
    #[arg(long, value_name = "SPEC")]
    pub generate: Option<thicket_flow::generate::Spec>,
    /// Write the network (read or generated) to this .max file.
    #[arg(long, value_name = "FILE")]
    pub write: Option<std::path::PathBuf>,
    /// mpm-serial (the thesis's MPM, with residual arcs), push-relabel (highest label, global
    /// and gap relabelling; the CPU default), mpm (the thesis's GPU MPM), mpm-active (its
    /// active-vertices variant in one cooperative launch), mpm-scan (that variant as the
    /// thesis wrote it: scans and host loops) or push-relabel-gpu (lock-free push-relabel with global relabelling; the
    /// GPU default).
    #[arg(long)]
    pub strategy: Option<thicket_flow::Strategy>,
    /// Write the flow in DIMACS solution form (`s <value>`, `f <tail> <head> <flow>` per arc)
    /// with the minimum cut's arcs as `c cut <tail> <head>` lines.
    #[arg(long = "output", value_name = "FILE")]
    pub output_file: Option<std::path::PathBuf>,
    /// Where to run (--devices: the GPU's ordinal, default 0).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials (every flow is checked by its certificate; --verify only makes that explicit).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Options of `thicket schedule`.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// The ETC matrix in Braun et al.'s format: a header `TASKS MACHINES [x]` (or none for
    /// Braun's 512 x 16), then the times task-major, one task's machines after another.
    #[arg(required_unless_present = "generate")]
    pub file: Option<std::path::PathBuf>,
    /// Instead of FILE, a seeded matrix: `thesis:TxM` (task lengths / machine MIPS) or
    /// Braun's `u_<c|s|i>_<hi|lo><hi|lo>:TxM` (consistency, task and machine heterogeneity),
    /// e.g. `u_c_hihi:512x16`.
    #[arg(long, value_name = "SPEC", conflicts_with = "file")]
    pub generate: Option<thicket_schedule::Generator>,
    /// With --generate: write the matrix to this file (Braun's format) and stop.
    #[arg(long, value_name = "OUT", requires = "generate")]
    pub write_etc: Option<std::path::PathBuf>,
    /// fcfs (the thesis's: each task to the machine that finishes it first; = mct), olb,
    /// met, mct, min-min, max-min, sufferage, pso, mspso (the thesis's swarms), ils
    /// (iterated local search from Min-Min) or lp-ils (the default: the LP relaxation's
    /// bound and rounded start, then the local search, on the CPU or the GPU).
    #[arg(long, default_value = "lp-ils")]
    pub method: thicket_schedule::Method,
    /// ils, lp-ils: stop after this many seconds (or at the lower bound).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,
    /// ils, lp-ils: stop after this many epochs (64 kicks per thread each); with a time limit that
    /// does not bind, the run repeats exactly with its seed and thread count.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub epochs: Option<u32>,
    /// Seed of the randomised methods and of --generate.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// pso/mspso: swarms (default: 1 for pso, 10 for mspso).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub swarms: Option<u32>,
    /// pso/mspso: particles per swarm (default 128).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1024))]
    pub particles: Option<u32>,
    /// pso/mspso: iterations (default 1,000).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub iterations: Option<u32>,
    /// pso/mspso on the GPU: the fitness kernel's machine loads in shared or global memory
    /// (default: shared while particles x machines floats fit in 48 KiB).
    #[arg(long, value_enum)]
    pub scratch: Option<ScratchArg>,
    /// pso/mspso on the GPU: time every phase (init, random, fitness, bests, update,
    /// exchange; the thesis's Table 6.1), JSON key phase_seconds.
    #[arg(long)]
    pub profile: bool,
    /// Write the assignment to this file: one machine index (from 0) per task, one per line.
    #[arg(long, value_name = "OUT")]
    pub assignment: Option<std::path::PathBuf>,
    /// Where to run.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials and verification (the assignment complete and in range, its makespan
    /// recomputed from the matrix equal to the reported one).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Where the GPU swarms' fitness kernel keeps machine loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScratchArg {
    /// Shared memory (the thesis's fast kernel).
    Shared,
    /// Global memory (the thesis's fallback).
    Global,
}

/// `thicket graph` commands.
#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// Generate a graph (symmetric, weights 1..255) and write it in the format of the output
    /// file's extension (.gr, .el, .wel, .mtx, .tgr).
    Gen(GraphGenArgs),
    /// Vertices, arcs, degrees, self-loops, parallel arcs, symmetry and weights of a graph.
    Info(GraphInfoArgs),
}

/// Which graph `thicket graph gen` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphKind {
    /// Graph500 Kronecker (--scale, --edge-factor).
    Kron,
    /// Uniform random ends (--vertices, --degree).
    Uniform,
    /// A 2-D grid (--rows, --cols): thousands of levels, like a road network.
    Grid,
    /// A simple connected graph of a given mean degree, as the thesis's Viger–Latapy graphs
    /// (--vertices, --degree).
    Vl,
}

/// Options of `thicket graph gen`.
#[derive(Debug, Args)]
pub struct GraphGenArgs {
    /// The kind of graph.
    #[arg(value_enum)]
    pub kind: GraphKind,
    /// Kronecker: log2 of the vertices.
    #[arg(long, default_value_t = 16)]
    pub scale: u32,
    /// Kronecker: edges per vertex.
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u32,
    /// Uniform and vl: vertices.
    #[arg(long, default_value_t = 1 << 16)]
    pub vertices: u32,
    /// Uniform and vl: mean degree.
    #[arg(long, default_value_t = 12)]
    pub degree: u32,
    /// Grid: rows.
    #[arg(long, default_value_t = 1024)]
    pub rows: u32,
    /// Grid: columns.
    #[arg(long, default_value_t = 1024)]
    pub cols: u32,
    /// Seed: the same seed gives the same graph.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The output file.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: std::path::PathBuf,
}

/// Options of `thicket graph info`.
#[derive(Debug, Args)]
pub struct GraphInfoArgs {
    /// The graph file.
    pub graph: std::path::PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The market, lattice and run of `thicket lookback` and `thicket binomial`.
#[derive(Debug, Args)]
pub struct LatticeArgs {
    /// Spot price of the stock.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub spot: Option<f64>,
    /// Years to maturity.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub maturity: Option<f64>,
    /// Volatility (annual, e.g. 0.3).
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub volatility: Option<f64>,
    /// Continuously compounded risk-free rate (e.g. 0.1).
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub rate: Option<f64>,
    /// Time steps of the lattice.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub steps: Option<usize>,
    /// A call instead of a put.
    #[arg(long, conflicts_with = "batch")]
    pub call: bool,
    /// European (no early exercise) instead of American.
    #[arg(long, conflicts_with = "batch")]
    pub european: bool,
    /// Working precision of the lattice: f32 (as in the thesis) or f64.
    #[arg(long, default_value = "f64")]
    pub precision: thicket_lattice::Precision,
    /// serial (one thread), multicore, thesis (the thesis's GPU kernel, one launch per layer),
    /// hybrid (the thesis's kernel with the last layers on the CPU) or tiles (thicket's GPU
    /// kernel). Default: tiles on a GPU, multicore on the CPU.
    #[arg(long)]
    pub strategy: Option<thicket_lattice::Strategy>,
    /// Layers the hybrid strategy finishes on the CPU.
    #[arg(long, default_value_t = thicket_lattice::HYBRID_THRESHOLD)]
    pub hybrid_threshold: usize,
    /// Price a book of options from a CSV file instead (columns payoff, style, spot, strike,
    /// maturity, volatility, rate, steps; payoff lookback-put, lookback-call, call or put).
    #[arg(long, value_name = "FILE.csv")]
    pub batch: Option<std::path::PathBuf>,
    /// With --batch: write the prices to this file (CSV, or JSON for a .json name); an
    /// existing file is replaced only once everything is priced.
    #[arg(long = "output", value_name = "FILE", requires = "batch")]
    pub output_file: Option<std::path::PathBuf>,
    /// Where to run (--devices: the GPU's ordinal, default 0).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials and verification (against the f64 serial lattice; every path for N <= 14).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Options of `thicket lookback`.
#[derive(Debug, Args)]
pub struct LookbackArgs {
    /// The option, the lattice and the run.
    #[command(flatten)]
    pub lattice: LatticeArgs,
}

/// Options of `thicket binomial`.
#[derive(Debug, Args)]
pub struct BinomialArgs {
    /// Strike price.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub strike: Option<f64>,
    /// The option, the lattice and the run.
    #[command(flatten)]
    pub lattice: LatticeArgs,
}

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

/// Options of `thicket atsp`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("batched").args(["ledger", "mpi"]).multiple(true)))]
pub struct AtspArgs {
    /// A TSPLIB file (explicit edge weights, any format).
    #[arg(required_unless_present = "generate", conflicts_with = "generate")]
    pub file: Option<std::path::PathBuf>,
    /// A generated instance instead of a file: CLASS:N:SEED with CLASS coin, crane or tsmat
    /// (after Cirasella et al. 2001), e.g. tsmat:15:1.
    #[arg(long, value_name = "CLASS:N:SEED")]
    pub generate: Option<String>,
    /// The lower bound to prune with (default: held-karp for the CPU strategies; the GPU
    /// strategies take only the thesis's partial bound).
    #[arg(long, value_enum)]
    pub bound: Option<AtspBound>,
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
    /// How to report. JSON keys: name, n, cost, tour, nodes, proven_optimal, known_optimum,
    /// bound, strategy, threads, seconds, backend, devices, gpu.
    #[command(flatten)]
    pub output: OutputArgs,
    /// How often, and checked against the TSPLIB optimum.
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// A ledger to read.
#[derive(Debug, Args)]
pub struct LedgerArgs {
    /// The ledger file.
    pub ledger: std::path::PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `thicket verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The ledger file.
    pub ledger: std::path::PathBuf,
    /// How many random finished batches to recompute.
    #[arg(long, default_value_t = 8)]
    pub sample: usize,
    /// Seed of the random sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Options of `thicket merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shard ledgers, one per shard.
    #[arg(required = true)]
    pub ledgers: Vec<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The strategy and depths of a permutation search (`perm-queens`, `atsp`).
#[derive(Debug, Args)]
pub struct PermSearchArgs {
    /// `serial` (one DFS on one thread), `multicore` (a serial search to a small depth, then
    /// the subtrees below on a pool of threads), or a GPU strategy of the thesis: `bp-dfs`,
    /// `bp-dfs-pool`, `rec-cdp`, `rec-dp3`, `cdp-bp` (see docs/reproduction.md). Default:
    /// `multicore`, or `bp-dfs-pool` with `--backend cuda`.
    #[arg(long, value_enum)]
    pub strategy: Option<thicket_perm::strategy::Strategy>,
    /// Depth of the serial initial search (the thesis's d_cpu): perm-queens `multicore`
    /// (default 4) and the GPU strategies (default: bp-dfs and bp-dfs-pool the first depth
    /// with 2^20 nodes, rec-cdp and cdp-bp d_gpu - 2, rec-dp3 2).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=32))]
    pub d_cpu: Option<u32>,
    /// rec-cdp and cdp-bp: the depth the first GPU kernel expands to (default d_cpu + 2, or the
    /// first depth with 2^20 nodes); rec-dp3: the depth where the doubling stops (default the
    /// first depth with 2^20 nodes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=32))]
    pub d_gpu: Option<u32>,
}

impl PermSearchArgs {
    /// The depths asked of a GPU strategy, on the one GPU of `--devices` (default 0); more
    /// than one is refused.
    pub fn gpu_params(
        &self,
        backend: &BackendArgs,
    ) -> thicket_core::Result<thicket_perm::gpu::GpuParams> {
        let device = match backend.devices.as_deref() {
            None => 0,
            Some([one]) => *one,
            Some(_) => {
                return Err(thicket_core::Error::InvalidInput(
                    "the permutation strategies run on one GPU: give --devices one ordinal".into(),
                ))
            }
        };
        Ok(thicket_perm::gpu::GpuParams {
            d_cpu: self.d_cpu.map(|d| d as usize),
            d_gpu: self.d_gpu.map(|d| d as usize),
            device,
        })
    }
}

/// Options of `thicket perm-queens`.
#[derive(Debug, Args)]
pub struct PermQueensArgs {
    /// Board size (1 to 32).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=32))]
    pub n: u32,
    /// How to search.
    #[command(flatten)]
    pub search: PermSearchArgs,
    /// Where to run: `auto` and `cpu` search on the CPU (multicore), `cuda` with the thesis's
    /// best GPU strategy (bp-dfs-pool).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report. JSON keys: n, nodes, solutions, seconds, strategy, threads, backend,
    /// devices; with a GPU strategy also gpu (device, depths, roots, chunk, launches, host and
    /// device seconds).
    #[command(flatten)]
    pub output: OutputArgs,
    /// How often, and checked against the thesis's Table 1.
    #[command(flatten)]
    pub trials: TrialArgs,
}

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
    #[arg(long, value_enum, default_value_t = Strategy::Constellation)]
    pub strategy: Strategy,
    /// The papers' parameters.
    #[command(flatten)]
    pub paper: PaperArgs,
}

/// Parses a shard `i/K` (0 <= i < K).
fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.message())
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

/// Options of `thicket devices`.
#[derive(Debug, Args)]
pub struct DevicesArgs {
    /// Print one JSON object instead of the list.
    #[arg(long)]
    pub json: bool,
}

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
    #[arg(long, default_value_t = 10.0)]
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
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Where the results go (with --out-dir: schedule-bench.md, .csv, .json and .svg).
    #[command(flatten)]
    pub outputs: BenchOutputArgs,
}

/// `TASKSxMACHINES`, both at least 1.
fn parse_shape(text: &str) -> Result<(usize, usize), String> {
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
        default_value = "mpm-serial,push-relabel,mpm,mpm-active,push-relabel-gpu"
    )]
    pub strategies: Vec<thicket_flow::Strategy>,
    /// A strategy is not run at a size where its time per graph, predicted from the size
    /// before, would exceed this many seconds (the row says so).
    #[arg(long, default_value_t = 30.0)]
    pub max_seconds: f64,
    /// The GPU's ordinal.
    #[arg(long, default_value_t = 0)]
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
    #[arg(long, value_delimiter = ',')]
    pub strategies: Option<Vec<thicket_graph::Strategy>>,
    /// Delta-stepping's bucket width (default: the mean weight).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub delta: Option<u64>,
    /// The time cap, in seconds, of one strategy on one graph (roots past it are dropped; a
    /// strategy whose one search is predicted to pass it is skipped) and of making one graph.
    #[arg(long, default_value_t = 60.0)]
    pub max_seconds: f64,
    /// CPU threads of the parallel CPU strategies (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// The GPU's ordinal.
    #[arg(long, default_value_t = 0)]
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
        default_value = "serial,multicore,thesis,hybrid,tiles"
    )]
    pub strategies: Vec<thicket_lattice::Strategy>,
    /// Precisions to run.
    #[arg(long, value_delimiter = ',', default_value = "f64,f32")]
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
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// A case predicted to take longer than this many seconds (from the lattice's node
    /// count and the strategy's last time) is skipped.
    #[arg(long, default_value_t = 60.0)]
    pub max_seconds: f64,
    /// CPU threads for multicore (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// The GPU's ordinal.
    #[arg(long, default_value_t = 0)]
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
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = thicket_perm::strategy::Strategy::ALL)]
    pub strategies: Vec<thicket_perm::strategy::Strategy>,
    /// A strategy is not run at an N where its time, predicted from the N before by the
    /// growth of the tree, would exceed this many seconds (the row says so).
    #[arg(long, default_value_t = 60.0)]
    pub max_seconds: f64,
    /// The same cap for the CPU strategies (serial, multicore); default: `--max-seconds`.
    #[arg(long)]
    pub cpu_max_seconds: Option<f64>,
    /// Runs per configuration; the table shows the best and the median.
    #[arg(long, default_value_t = 1)]
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
    #[arg(long, default_value_t = 3)]
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
    #[arg(long, default_value_t = 60.0, requires = "strategies")]
    pub max_seconds: f64,
    /// With --strategies: the GPU to run on.
    #[arg(long, default_value_t = 0, requires = "strategies")]
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
fn parse_strategies(text: &str) -> Result<StrategyList, String> {
    use clap::ValueEnum;
    if text.trim() == "all" {
        return Ok(StrategyList(Strategy::ALL.to_vec()));
    }
    text.split(',')
        .map(|name| {
            Strategy::from_str(name.trim(), true).map_err(|_| {
                let known: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "unknown strategy '{name}' (known: all, {})",
                    known.join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(StrategyList)
}

/// Prints a command-line error as one line and returns exit code 2; help and version go to
/// stdout with exit code 0.
pub fn report_parse_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        print!("{err}");
        return ExitCode::SUCCESS;
    }
    if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        eprint!("{err}");
        return ExitCode::from(2);
    }
    let rendered = err.render().to_string();
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("invalid command line");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // clap lists missing arguments on the lines below its first; keep them on the one line.
    let first = if err.kind() == ErrorKind::MissingRequiredArgument {
        let missing: Vec<&str> = lines.take_while(|l| !l.starts_with("Usage:")).collect();
        format!("{first} {}", missing.join(", "))
    } else {
        first.to_string()
    };
    eprintln!("thicket: {first} (see thicket --help)");
    ExitCode::from(2)
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

    #[test]
    fn a_missing_argument_is_named() {
        let err = Cli::try_parse_from(["thicket", "queens"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(err.render().to_string().contains("<N>"));
    }

    #[test]
    fn command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
