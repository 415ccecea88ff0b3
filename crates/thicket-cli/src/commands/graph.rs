//! `thicket bfs`, `thicket sssp` and `thicket graph gen|info|convert`: read, make or convert a
//! graph, search it from its sources, print the summary (or JSON) and, on request, every
//! source's distances and parents.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use clap::{Args, Subcommand};
use thicket_core::Progress;
use thicket_core::{Error, Result};
use thicket_graph::generate::Generated;
use thicket_graph::io::{self, Loaded};
use thicket_graph::{random_sources, search, Generator, Keep, Problem, SearchOptions, SearchRun};

use super::{result_on_stdout, say, Summary};
use crate::flags::{choices, run_options, BackendArgs, GraphFormat, OutputArgs, TrialArgs};
use thicket_core::{is_stdio, is_stdout};

use crate::stdio::write_output_with;

/// Options of `thicket bfs` and `thicket sssp`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The graph: DIMACS .gr (1-based), .el / .wel edge lists (0-based), SNAP .txt (any ids),
    /// Matrix Market .mtx (1-based), GAPBS .sg / .wsg or thicket's binary .tgr, each
    /// optionally gzip-compressed (.gz); `-` reads it from stdin (give --format).
    pub graph: std::path::PathBuf,
    /// The graph's format, whatever its file is called (needed for stdin, `-`).
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
    /// Source vertex, named as the file names vertices (repeatable); a name matches the
    /// file's bytes exactly, whatever their encoding.
    #[arg(long, required_unless_present = "sources", allow_hyphen_values = true)]
    pub source: Vec<std::ffi::OsString>,
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
    /// Write every source's answer to this file, one `source vertex distance parent` row per
    /// source and vertex (`source vertex unreachable` where none, parent `-` for the source);
    /// `{source}` in the file name writes one file per source, in the folder named (the id
    /// percent-encoded into one safe name); `-`: stdout, the summary then on stderr.
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
    /// Generate a graph (symmetric, weights 1..255; self-loops dropped and parallel arcs merged
    /// as GAPBS builds it) and write it in the format of the output file's extension (.gr,
    /// .el, .wel, .txt, .mtx, .sg, .wsg, .tgr, each optionally .gz).
    Gen(GraphGenArgs),
    /// Vertices, arcs, degrees, self-loops, parallel arcs, symmetry and weights of a graph.
    Info(GraphInfoArgs),
    /// Convert a graph file from one format to another (by their extensions, or --from/--to).
    Convert(GraphConvertArgs),
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
    /// The output's format, whatever its file is called (needed for stdout, `-`).
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
    /// CPU threads drawing and building the graph (default: all cores); the graph is the
    /// same on any number.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// No progress bar, no summary line.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Options of `thicket graph convert`.
#[derive(Debug, Args)]
pub struct GraphConvertArgs {
    /// The graph to read; `-` reads stdin (give --from).
    pub input: std::path::PathBuf,
    /// The file to write (`.gz` compresses it); `-` writes stdout (give --to).
    pub output: std::path::PathBuf,
    /// The input's format, whatever its file is called.
    #[arg(long, value_enum)]
    pub from: Option<GraphFormat>,
    /// The output's format, whatever its file is called.
    #[arg(long, value_enum)]
    pub to: Option<GraphFormat>,
    /// Add the reverse of every arc (an undirected graph from a one-way edge list).
    #[arg(long)]
    pub symmetrise: bool,
}

/// Options of `thicket graph info`.
#[derive(Debug, Args)]
pub struct GraphInfoArgs {
    /// The graph file; `-` reads it from stdin (give --format).
    pub graph: std::path::PathBuf,
    /// The graph's format, whatever its file is called (needed for stdin, `-`).
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The format of the graph file `path`: the one named, else its extension's; stdin and
/// stdout (`-`) have none, so need one named.
fn format_of(named: Option<GraphFormat>, path: &Path) -> Result<io::Format> {
    match named {
        Some(format) => Ok(format.0),
        None if is_stdio(path) => Err(Error::InvalidInput(
            "a graph on stdin or stdout needs --format (gr, el, wel, txt, mtx, sg, wsg or tgr)"
                .into(),
        )),
        None => io::Format::of(path),
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
        GraphCommand::Convert(args) => convert(args),
    }
}

fn load(path: &Path, format: Option<GraphFormat>, symmetrise: bool) -> Result<Loaded> {
    let mut loaded = io::read_as(path, format_of(format, path)?)?;
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
        .map(|id| {
            loaded.vertex(id.as_encoded_bytes()).map_err(|e| {
                Error::InvalidInput(format!(
                    "source {}",
                    e.message().trim_start_matches("vertex ")
                ))
            })
        })
        .collect()
}

fn run(args: &SearchArgs, problem: Problem) -> Result<()> {
    let started = std::time::Instant::now();
    let template = match &args.output_file {
        Some(path) => io::NameTemplate::parse(path)?,
        None => None,
    };
    // Read on the threads the search gets (--threads), as GAPBS reads on OMP_NUM_THREADS.
    let pool = thicket_core::pool(args.backend.thread_count())?;
    let loaded = pool.install(|| load(&args.graph, args.format, args.symmetrise))?;
    let read_seconds = started.elapsed().as_secs_f64();
    let sources = sources(args, &loaded)?;
    if let Some(template) = &template {
        template.check_sources(&loaded, &sources)?;
    }
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
        // The summary shows the first source's answer; --output writes every source's.
        keep: match args.output_file {
            Some(_) => Keep::Every,
            None => Keep::First,
        },
    };
    let measured = search(&loaded, problem, &sources, &options)?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(path) = &args.output_file {
        write_answers(path, template.as_ref(), run, &loaded)?;
    }
    if args.output.json {
        let mut stats = run.stats();
        stats.insert("read_seconds".into(), serde_json::json!(read_seconds));
        outln!("{}", measured.json(stats));
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
    for (s, &source) in run.searches.iter().zip(&sources) {
        say!(
            summary,
            "  source {:>10}: reached {}, max distance {}, sum of distances {}, {:.6} s",
            loaded.label(source),
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
    say!(
        summary,
        "  read {read_seconds:.3} s, built {:.3} s (simple graph, reverse, helpers)",
        run.build_seconds
    );
    if let Some(ok) = measured.verified {
        say!(summary, "  verified   {}", if ok { "yes" } else { "NO" });
    }
    say!(summary, "  backend    {}", measured.info.backend);
    Ok(())
}

/// Writes every source's answer to `path` through the atomic writer, or to stdout for `-`,
/// the ids' bytes as the graph file has them; where `path` is a `template`, one file per
/// source, named from its id (see [`io::NameTemplate`]). Called only once the search
/// succeeded.
fn write_answers(
    path: &Path,
    template: Option<&io::NameTemplate>,
    run: &SearchRun,
    loaded: &Loaded,
) -> Result<()> {
    let all = |out: &mut dyn Write| -> std::io::Result<()> {
        for paths in &run.paths {
            io::write_paths(out, loaded, paths)?;
        }
        Ok(())
    };
    if is_stdout(path) {
        let mut bytes = Vec::new();
        all(&mut bytes).map_err(|e| Error::file(path, e))?;
        crate::output::stdout_bytes(&bytes);
        return Ok(());
    }
    let Some(template) = template else {
        return thicket_core::write_atomically_with(path, all);
    };
    for paths in &run.paths {
        thicket_core::write_atomically_with(&template.file(loaded, paths.source), |out| {
            io::write_paths(out, loaded, paths)
        })?;
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
    let format = format_of(args.format, &args.output)?;
    let threads = args
        .threads
        .map_or_else(thicket_core::available_threads, |t| t as usize);
    let pool = thicket_core::pool(threads)?;
    let label = format!("graph gen {}", args.output.display());
    let progress = Progress::new(generator.work()?, &label, args.quiet);
    // As GAPBS builds a generated graph: self-loops dropped, parallel arcs merged (into the
    // lightest), each vertex's arcs sorted, so that every search reads it as it is; drawn,
    // built and written on the pool's threads.
    let (generated, write_seconds) = pool.install(|| -> Result<_> {
        let generated = generator.generate_simple(args.seed, &progress)?;
        progress.finish();
        let first_id = match format {
            io::Format::Dimacs | io::Format::MatrixMarket => 1,
            _ => 0,
        };
        let started = Instant::now();
        // Every generator makes a symmetric graph (arcs both ways, the same weight).
        let loaded = Loaded::numbered(generated.graph, first_id, true);
        write_graph(&args.output, format, &loaded)?;
        let generated = Generated {
            graph: loaded.graph,
            ..generated
        };
        Ok((generated, started.elapsed().as_secs_f64()))
    })?;
    if !args.quiet {
        errln!(
            "{}: {} vertices, {} arcs (generated {:.2} s, built {:.2} s, written {:.2} s, {} \
             threads)",
            args.output.display(),
            generated.graph.vertices(),
            generated.graph.arcs(),
            generated.generate_seconds,
            generated.build_seconds,
            write_seconds,
            threads
        );
    }
    Ok(())
}

/// Writes `loaded` to `path` in `format`, or to stdout for `-`.
fn write_graph(path: &Path, format: io::Format, loaded: &Loaded) -> Result<()> {
    let name = format!("graph.{}", format.extension());
    write_output_with(path, &name, |path| io::write_as(path, format, loaded))
}

fn convert(args: &GraphConvertArgs) -> Result<()> {
    let to = format_of(args.to, &args.output)?;
    let loaded = load(&args.input, args.from, args.symmetrise)?;
    write_graph(&args.output, to, &loaded)?;
    if loaded.ids.is_some() && to != io::Format::Snap {
        errln!(
            "note: {} names its vertices by ids of its own; {} numbers them in their order \
             (a .txt keeps the ids)",
            args.input.display(),
            args.output.display()
        );
    }
    // An edge list (.el) and GAPBS's .sg hold no weights: what the conversion loses is said,
    // as the ids are above.
    if loaded.graph.weights().is_some()
        && matches!(to, io::Format::EdgeList | io::Format::Serialized)
    {
        errln!(
            "note: {} has arc weights; {} (.{}) keeps none, so they are dropped (.wel, .wsg, \
             .gr, .mtx, .txt and .tgr keep them)",
            args.input.display(),
            args.output.display(),
            to.extension()
        );
    }
    errln!(
        "{}: {} vertices, {} arcs",
        args.output.display(),
        loaded.graph.vertices(),
        loaded.graph.arcs()
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
