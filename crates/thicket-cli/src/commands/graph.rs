//! `thicket bfs`, `thicket sssp` and `thicket graph gen|info`: read or make a graph, search it
//! from its sources, print the summary (or JSON) and, on request, every vertex's distance.

use std::io::Write;
use std::path::Path;

use clap::{Args, Subcommand};
use thicket_core::{Error, Result};
use thicket_graph::io::{self, Loaded};
use thicket_graph::{
    random_sources, search, Generator, Problem, SearchOptions, SearchRun, INFINITE, UNREACHED,
};

use super::{result_on_stdout, say, Summary};
use crate::flags::{choices, run_options, BackendArgs, OutputArgs, TrialArgs};
use thicket_core::is_stdio;

use crate::stdio::{write_output, write_output_with};

/// Options of `thicket bfs` and `thicket sssp`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The graph: DIMACS .gr (1-based), .el / .wel edge lists (0-based), Matrix Market .mtx
    /// (1-based) or thicket's binary .tgr; `-` reads it from stdin (give --format).
    pub graph: std::path::PathBuf,
    /// The format of a graph read from stdin (`-`), which has no extension to tell it.
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
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
    #[arg(long, value_parser = choices(&thicket_graph::Strategy::ALL, thicket_graph::Strategy::name))]
    pub strategy: Option<thicket_graph::Strategy>,
    /// Delta-stepping's and near-far's bucket width (default: the mean weight).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub delta: Option<u64>,
    /// Write the first source's distance and parent of every vertex to this file, one line
    /// per vertex (`vertex distance parent`, `unreachable` where none); `-`: stdout, the
    /// summary then on stderr.
    #[arg(long = "output", short = 'o', value_name = "FILE")]
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
    /// The output file, in the format of its extension; `-` writes to stdout (give --format).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: std::path::PathBuf,
    /// The format of a graph written to stdout (`-`), which has no extension to tell it.
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
}

/// Options of `thicket graph info`.
#[derive(Debug, Args)]
pub struct GraphInfoArgs {
    /// The graph file; `-` reads it from stdin (give --format).
    pub graph: std::path::PathBuf,
    /// The format of a graph read from stdin (`-`), which has no extension to tell it.
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A graph format named on the command line, for standard input and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// DIMACS 9th challenge, 1-based.
    Gr,
    /// `u v` per line, 0-based.
    El,
    /// `u v w` per line, 0-based.
    Wel,
    /// Matrix Market coordinate, 1-based.
    Mtx,
    /// thicket's binary CSR.
    Tgr,
}

impl GraphFormat {
    /// The name of a file in this format, read or written in place of stdin or stdout (the
    /// graph library tells formats by extension).
    fn file_name(format: Option<GraphFormat>, path: &Path) -> Result<&'static str> {
        if format.is_some() && !is_stdio(path) {
            return Err(Error::InvalidInput(format!(
                "--format is for stdin and stdout (`-`); {} names its format by its extension",
                path.display()
            )));
        }
        let name = match format {
            Some(GraphFormat::Gr) => "graph.gr",
            Some(GraphFormat::El) => "graph.el",
            Some(GraphFormat::Wel) => "graph.wel",
            Some(GraphFormat::Mtx) => "graph.mtx",
            Some(GraphFormat::Tgr) => "graph.tgr",
            None if is_stdio(path) => {
                return Err(Error::InvalidInput(
                    "a graph on stdin or stdout needs --format (gr, el, wel, mtx or tgr)".into(),
                ))
            }
            // A named file's extension tells its format.
            None => "",
        };
        Ok(name)
    }
}

/// `thicket bfs`.
pub fn bfs(args: &SearchArgs) -> Result<()> {
    run(args, Problem::Bfs)
}

/// `thicket sssp`.
pub fn sssp(args: &SearchArgs) -> Result<()> {
    run(args, Problem::ShortestPaths)
}

/// `thicket graph ...`.
pub fn graph(command: &GraphCommand) -> Result<()> {
    match command {
        GraphCommand::Gen(args) => generate(args),
        GraphCommand::Info(args) => info(args),
    }
}

/// The format of the graph at `path`: `format` for stdin, else the file's extension.
fn input_format(format: Option<GraphFormat>, path: &Path) -> Result<io::Format> {
    match GraphFormat::file_name(format, path)? {
        "" => io::Format::of(path),
        name => io::Format::of(Path::new(name)),
    }
}

fn load(path: &Path, format: Option<GraphFormat>, symmetrise: bool) -> Result<Loaded> {
    let mut loaded = io::read_as(path, input_format(format, path)?)?;
    if symmetrise {
        loaded.graph = loaded.graph.symmetrised();
        loaded.symmetric = true;
    }
    if loaded.graph.vertices() == 0 {
        return Err(Error::InvalidInput(format!(
            "{}: the graph has no vertices",
            path.display()
        )));
    }
    Ok(loaded)
}

/// The 0-based sources: the ones named, or `count` random vertices with an arc.
fn sources(args: &SearchArgs, loaded: &Loaded) -> Result<Vec<u32>> {
    let n = loaded.graph.vertices() as i64;
    let first = i64::from(loaded.first_id);
    if let Some(count) = args.sources {
        let picked = random_sources(&loaded.graph, count as usize, args.seed);
        if picked.is_empty() {
            return Err(Error::InvalidInput(
                "the graph has no arcs to search".into(),
            ));
        }
        return Ok(picked);
    }
    args.source
        .iter()
        .map(|&id| {
            if id < first || id >= n + first {
                Err(Error::InvalidInput(format!(
                    "source {id} is not a vertex ({first}..={})",
                    n - 1 + first
                )))
            } else {
                Ok((id - first) as u32)
            }
        })
        .collect()
}

fn run(args: &SearchArgs, problem: Problem) -> Result<()> {
    let loaded = load(&args.graph, args.format, args.symmetrise)?;
    let sources = sources(args, &loaded)?;
    let result_on_stdout = result_on_stdout(
        args.output.json,
        &[("--output", args.output_file.as_deref())],
    )?;
    let options = SearchOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy: args.strategy,
        threads: args.backend.thread_count(),
        device: args.backend.first_device(),
        delta: args.delta,
    };
    let measured = search(&loaded, problem, &sources, &options)?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(path) = &args.output_file {
        write_distances(path, run, loaded.first_id)?;
    }
    if args.output.json {
        outln!("{}", measured.json(run.stats()));
        return Ok(());
    }
    let summary = Summary::beside(result_on_stdout, args.output.quiet);
    let what = match problem {
        Problem::Bfs => "BFS",
        Problem::ShortestPaths => "shortest paths",
    };
    say!(
        summary,
        "{what} on {} ({} vertices, {} arcs), strategy {}",
        args.graph.display(),
        run.vertices,
        run.arcs,
        run.strategy
    );
    for s in &run.searches {
        say!(
            summary,
            "  source {:>10}: reached {}, max distance {}, sum of distances {}, {:.6} s",
            s.source,
            s.reached,
            s.max_distance,
            s.sum_distances,
            s.seconds
        );
    }
    let stats = run.stats();
    say!(
        summary,
        "  mean {:.6} s per search, {:.3e} arcs traversed/s",
        stats["mean_search_seconds"].as_f64().unwrap_or(0.0),
        stats["teps"].as_f64().unwrap_or(0.0)
    );
    if let Some(ok) = measured.verified {
        say!(summary, "  verified   {}", if ok { "yes" } else { "NO" });
    }
    say!(summary, "  backend    {}", measured.info.backend);
    Ok(())
}

/// Writes the first source's distances and parents (the answer `search` keeps) to `path`
/// through the atomic writer, or to stdout for `-`; called only once the search succeeded.
fn write_distances(path: &Path, run: &SearchRun, first_id: u32) -> Result<()> {
    if is_stdio(path) {
        let mut bytes = Vec::new();
        distances_to(&mut bytes, run, first_id).map_err(|e| Error::file(path, e))?;
        return write_output(path, &String::from_utf8_lossy(&bytes));
    }
    thicket_core::write_atomically_with(path, |out| distances_to(out, run, first_id))
}

/// One line per vertex: `vertex distance parent`, `unreachable` where none.
fn distances_to(out: &mut dyn Write, run: &SearchRun, first_id: u32) -> std::io::Result<()> {
    let first = &run.paths[0];
    for (v, (&d, &p)) in first.distances.iter().zip(&first.parents).enumerate() {
        let id = v as u64 + u64::from(first_id);
        match (d, p) {
            (INFINITE, _) => writeln!(out, "{id} unreachable")?,
            (d, UNREACHED) => writeln!(out, "{id} {d} -")?,
            (d, p) => writeln!(out, "{id} {d} {}", u64::from(p) + u64::from(first_id))?,
        }
    }
    Ok(())
}

fn generate(args: &GraphGenArgs) -> Result<()> {
    let generator = match args.kind {
        GraphKind::Kron => Generator::Kronecker {
            scale: args.scale,
            edge_factor: args.edge_factor,
        },
        GraphKind::Uniform => Generator::Uniform {
            vertices: args.vertices,
            degree: args.degree,
        },
        GraphKind::Grid => Generator::Grid {
            rows: args.rows,
            cols: args.cols,
        },
        GraphKind::Vl => Generator::VigerLatapy {
            vertices: args.vertices,
            degree: args.degree,
        },
    };
    let name = GraphFormat::file_name(args.format, &args.output)?;
    let named = match is_stdio(&args.output) {
        true => Path::new(name),
        false => args.output.as_path(),
    };
    let format = io::Format::of(named)?;
    let graph = generator.generate(args.seed)?;
    let first_id = match format {
        io::Format::Dimacs | io::Format::MatrixMarket => 1,
        _ => 0,
    };
    // Every generator makes a symmetric graph (arcs both ways, the same weight).
    write_output_with(&args.output, name, |path| {
        io::write(path, &graph, first_id, true)
    })?;
    errln!(
        "{}: {} vertices, {} arcs",
        args.output.display(),
        graph.vertices(),
        graph.arcs()
    );
    Ok(())
}

fn info(args: &GraphInfoArgs) -> Result<()> {
    let loaded = load(&args.graph, args.format, false)?;
    let stats = loaded.graph.stats();
    if args.json {
        outln!(
            "{}",
            serde_json::to_string(&stats).map_err(|e| Error::InvalidInput(e.to_string()))?
        );
        return Ok(());
    }
    outln!("{}", args.graph.display());
    outln!(
        "  vertices        {} (ids from {})",
        stats.vertices,
        loaded.first_id
    );
    outln!("  arcs            {}", stats.arcs);
    outln!("  self-loops      {}", stats.self_loops);
    outln!("  parallel arcs   {}", stats.parallel_arcs);
    outln!("  isolated        {}", stats.isolated);
    outln!(
        "  out-degree      mean {:.2}, max {}",
        stats.mean_out_degree,
        stats.max_out_degree
    );
    outln!("  symmetric       {}", stats.symmetric);
    match stats.weight_range {
        Some((lo, hi)) => outln!("  weights         {lo}..={hi}"),
        None => outln!("  weights         none"),
    }
    Ok(())
}
