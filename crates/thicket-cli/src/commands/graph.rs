//! `thicket bfs`, `thicket sssp` and `thicket graph gen|info`: read or make a graph, search it
//! from its sources, print the summary (or JSON) and, on request, every vertex's distance.

use std::io::Write;
use std::path::Path;

use thicket_core::{Error, Result};
use thicket_graph::io::{self, Loaded};
use thicket_graph::{
    random_sources, search, Generator, Problem, SearchOptions, SearchRun, INFINITE, UNREACHED,
};

use crate::cli::{GraphCommand, GraphGenArgs, GraphInfoArgs, GraphKind, SearchArgs};
use crate::flags::run_options;

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

fn load(path: &Path, symmetrise: bool) -> Result<Loaded> {
    let mut loaded = io::read(path)?;
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
    let loaded = load(&args.graph, args.symmetrise)?;
    let sources = sources(args, &loaded)?;
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
        println!("{}", measured.json(run.stats()));
        return Ok(());
    }
    let what = match problem {
        Problem::Bfs => "BFS",
        Problem::ShortestPaths => "shortest paths",
    };
    println!(
        "{what} on {} ({} vertices, {} arcs), strategy {}",
        args.graph.display(),
        run.vertices,
        run.arcs,
        run.strategy
    );
    for s in &run.searches {
        println!(
            "  source {:>10}: reached {}, max distance {}, sum of distances {}, {:.6} s",
            s.source, s.reached, s.max_distance, s.sum_distances, s.seconds
        );
    }
    let stats = run.stats();
    println!(
        "  mean {:.6} s per search, {:.3e} arcs traversed/s",
        stats["mean_search_seconds"].as_f64().unwrap_or(0.0),
        stats["teps"].as_f64().unwrap_or(0.0)
    );
    if let Some(ok) = measured.verified {
        println!("  verified   {}", if ok { "yes" } else { "NO" });
    }
    println!("  backend    {}", measured.info.backend);
    Ok(())
}

fn write_distances(path: &Path, run: &SearchRun, first_id: u32) -> Result<()> {
    // `search` keeps the first source's answer, the one written.
    let first = &run.paths[0];
    let (distances, parents) = (&first.distances, &first.parents);
    let mut text = Vec::with_capacity(distances.len() * 16);
    for (v, (&d, &p)) in distances.iter().zip(parents).enumerate() {
        let id = v as u64 + u64::from(first_id);
        let line = match (d, p) {
            (INFINITE, _) => writeln!(text, "{id} unreachable"),
            (d, UNREACHED) => writeln!(text, "{id} {d} -"),
            (d, p) => writeln!(text, "{id} {d} {}", u64::from(p) + u64::from(first_id)),
        };
        line.map_err(|e| Error::file(path, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::file(path, e))
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
    io::Format::of(&args.output)?;
    let graph = generator.generate(args.seed)?;
    let first_id = match io::Format::of(&args.output)? {
        io::Format::Dimacs | io::Format::MatrixMarket => 1,
        _ => 0,
    };
    // Every generator makes a symmetric graph (arcs both ways, the same weight).
    io::write(&args.output, &graph, first_id, true)?;
    eprintln!(
        "{}: {} vertices, {} arcs",
        args.output.display(),
        graph.vertices(),
        graph.arcs()
    );
    Ok(())
}

fn info(args: &GraphInfoArgs) -> Result<()> {
    let loaded = load(&args.graph, false)?;
    let stats = loaded.graph.stats();
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&stats).map_err(|e| Error::InvalidInput(e.to_string()))?
        );
        return Ok(());
    }
    println!("{}", args.graph.display());
    println!(
        "  vertices        {} (ids from {})",
        stats.vertices, loaded.first_id
    );
    println!("  arcs            {}", stats.arcs);
    println!("  self-loops      {}", stats.self_loops);
    println!("  parallel arcs   {}", stats.parallel_arcs);
    println!("  isolated        {}", stats.isolated);
    println!(
        "  out-degree      mean {:.2}, max {}",
        stats.mean_out_degree, stats.max_out_degree
    );
    println!("  symmetric       {}", stats.symmetric);
    match stats.weight_range {
        Some((lo, hi)) => println!("  weights         {lo}..={hi}"),
        None => println!("  weights         none"),
    }
    Ok(())
}
