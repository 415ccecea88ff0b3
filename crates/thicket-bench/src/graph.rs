//! `thicket bench bfs`: the thesis's experiment (Solomon 2012, §4.4) rerun, and the searches a
//! graph tool is measured by today.
//!
//! - **Thesis** ([`Experiment::Thesis`]): Viger–Latapy-style simple connected graphs of mean
//!   degree 12, several graphs (seeds) per vertex count, every strategy on each (by default the
//!   serial BFS and both thesis kernels): the time per search, the speed-up over `serial` on the
//!   same graph, and Table 4.1's split of the scan variant into level kernel and scans.
//! - **Modern** ([`Experiment::Modern`]): Graph500 Kronecker graphs of growing scale and a large
//!   grid (thousands of levels): the time per search over many random roots and the traversal
//!   rate in both conventions — arcs out of reached vertices per second (as thicket and GAPBS
//!   count) and Graph500's, undirected edges of the searched component per second (half the
//!   arcs on these symmetric graphs). Shortest-path strategies run beside the BFS ones.
//!
//! Each strategy first searches from the first root with the verifier on (a check and a
//! warm-up), then from every root timed; every root's reach, distance sum and eccentricity
//! must equal the first strategy's of the same problem on the same graph. A strategy whose
//! single search is predicted (from the last size) to pass the time cap is skipped, and one
//! whose roots would pass it runs fewer roots, as the row says; a graph predicted to take
//! longer than the cap to generate, or more memory than the machine has, is skipped. GPU
//! strategies where no GPU can be used are noted, not failed.

mod render;

use crate::harness::{case_run, timed, AfterCase, AfterFailure, Outcome, Plan, Report, Sweep};
use serde::Serialize;
use thicket_core::{Error, Result, RunOptions};
use thicket_graph::{
    random_sources, search, Generator, Keep, Loaded, Problem, SearchOptions, SourceSearch, Strategy,
};

use render::{case_line, render};

/// Which experiment `thicket bench bfs` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Experiment {
    /// The thesis's: Viger–Latapy graphs of growing size, several per size.
    Thesis,
    /// Kronecker graphs of growing scale and a grid, many roots each.
    Modern,
}

/// What `thicket bench bfs` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct BfsBenchOptions {
    /// The experiment.
    pub experiment: Experiment,
    /// Thesis: vertex counts, smallest first.
    pub vertices: Vec<u32>,
    /// Thesis: graphs per vertex count (seeds `seed`, `seed + 1`, ...).
    pub graphs: usize,
    /// Thesis: mean degree.
    pub degree: u32,
    /// Modern: Kronecker scales, smallest first.
    pub scales: Vec<u32>,
    /// Modern: Kronecker edge factor.
    pub edge_factor: u32,
    /// Modern: the grid's rows and columns (after the Kronecker graphs); `None`: no grid.
    pub grid: Option<(u32, u32)>,
    /// Random roots per graph (vertices with an arc).
    pub sources: usize,
    /// Strategies, in table order; BFS and shortest-path ones may be mixed.
    pub strategies: Vec<Strategy>,
    /// Delta-stepping's bucket width; `None`: from the weights.
    pub delta: Option<u64>,
    /// The time cap of one strategy on one graph, and of one graph's generation, in seconds.
    pub max_seconds: f64,
    /// CPU threads of the parallel CPU strategies.
    pub threads: usize,
    /// The GPU.
    pub device: usize,
    /// Seed of the graphs and roots.
    pub seed: u64,
}

/// One strategy on one graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    /// The graph, e.g. `vl 1000000 #2`, `kron 20`, `grid 4096x4096`.
    pub graph: String,
    /// The sweep's size: vertices (thesis), the scale (Kronecker) or the rows (grid).
    pub size: u64,
    /// The graph's seed.
    pub seed: u64,
    /// Vertices.
    pub vertices: Option<usize>,
    /// Arcs searched (the generated graph's, parallel arcs merged and self-loops dropped).
    pub arcs: Option<u64>,
    /// The strategy.
    pub strategy: String,
    /// `bfs` or `sssp`.
    pub problem: &'static str,
    /// Roots timed.
    pub sources: usize,
    /// Mean seconds per search (GPU: device time).
    pub mean_seconds: Option<f64>,
    /// The fastest search.
    pub min_seconds: Option<f64>,
    /// The slowest search.
    pub max_seconds: Option<f64>,
    /// `thesis-active`: of the mean, the scans and compactions (Table 4.1's split).
    pub scan_seconds: Option<f64>,
    /// `serial`'s (BFS) or `dijkstra`'s (SSSP) mean on this graph over this row's.
    pub speedup: Option<f64>,
    /// Billions of arcs out of reached vertices per second of search.
    pub gteps: Option<f64>,
    /// Graph500's convention: billions of undirected edges of the searched component (half
    /// the arcs) per second.
    pub graph500_gteps: Option<f64>,
    /// Mean vertices reached.
    pub mean_reached: Option<f64>,
    /// The largest distance over the roots (levels for BFS).
    pub max_distance: Option<u64>,
    /// GPU strategies: device memory of the graph and a search.
    pub gpu_bytes: Option<u64>,
    /// The verifier on the first root, and every root's summary against the first strategy.
    pub verified: Option<bool>,
    /// Why the row was not run, ran fewer roots, or failed.
    pub note: Option<String>,
    /// Each root's (root, reached, distance sum, eccentricity), for the cross-check.
    #[serde(skip)]
    summaries: Vec<(u64, u64, u64, u64)>,
    /// Whether the strategy failed here (its note says how).
    #[serde(skip)]
    failed: bool,
}

/// A graph of the bench: how to make it and how to name it.
#[derive(Debug, Clone, Copy)]
struct GraphSpec {
    generator: Generator,
    size: u64,
    seed: u64,
}

impl GraphSpec {
    fn name(&self) -> String {
        match self.generator {
            Generator::VigerLatapy { vertices, .. } => format!("vl {vertices} #{}", self.seed),
            Generator::Kronecker { scale, .. } => format!("kron {scale}"),
            Generator::Grid { rows, cols } => format!("grid {rows}x{cols}"),
            Generator::Uniform { vertices, .. } => format!("uniform {vertices}"),
        }
    }

    /// The arcs the generator makes (two per edge), before merging.
    fn generated_arcs(&self) -> u64 {
        match self.generator {
            Generator::VigerLatapy { vertices, degree }
            | Generator::Uniform { vertices, degree } => u64::from(vertices) * u64::from(degree),
            Generator::Kronecker { scale, edge_factor } => {
                2u64.saturating_mul(u64::from(edge_factor)) << scale.min(40)
            }
            Generator::Grid { rows, cols } => 4 * u64::from(rows) * u64::from(cols),
        }
    }
}

/// The cases of the experiment, smallest first: each a list of graphs (several per size in
/// the thesis's experiment).
fn cases(options: &BfsBenchOptions) -> Vec<Vec<GraphSpec>> {
    match options.experiment {
        Experiment::Thesis => {
            let mut sizes = options.vertices.clone();
            sizes.sort_unstable();
            sizes.dedup();
            sizes
                .into_iter()
                .map(|vertices| {
                    (0..options.graphs.max(1) as u64)
                        .map(|k| GraphSpec {
                            generator: Generator::VigerLatapy {
                                vertices,
                                degree: options.degree,
                            },
                            size: u64::from(vertices),
                            seed: options.seed + k,
                        })
                        .collect()
                })
                .collect()
        }
        Experiment::Modern => {
            let mut scales = options.scales.clone();
            scales.sort_unstable();
            scales.dedup();
            let kronecker = scales.into_iter().map(|scale| {
                vec![GraphSpec {
                    generator: Generator::Kronecker {
                        scale,
                        edge_factor: options.edge_factor,
                    },
                    size: u64::from(scale),
                    seed: options.seed,
                }]
            });
            let grid = options.grid.map(|(rows, cols)| {
                vec![GraphSpec {
                    generator: Generator::Grid { rows, cols },
                    size: u64::from(rows),
                    seed: options.seed,
                }]
            });
            kronecker.chain(grid).collect()
        }
    }
}

/// Runs the bench `options` ask for, calling `after_case` after every strategy on every graph.
pub fn bench(options: &BfsBenchOptions, after_case: AfterCase) -> Result<Report> {
    if options.strategies.is_empty() {
        return Err(Error::InvalidInput("no strategy to bench".into()));
    }
    if !(options.max_seconds > 0.0 && options.max_seconds.is_finite()) {
        return Err(Error::InvalidInput(format!(
            "time cap {} s: it must be a positive number of seconds",
            thicket_core::number(options.max_seconds)
        )));
    }
    if options.sources == 0 {
        return Err(Error::InvalidInput("at least one root per graph".into()));
    }
    let mut rows: Vec<BenchRow> = Vec::new();
    let mut generation = Sweep::new(options.max_seconds, AfterFailure::Continue);
    let mut sweeps: Vec<Sweep> = options
        .strategies
        .iter()
        .map(|_| Sweep::new(options.max_seconds, AfterFailure::Continue))
        .collect();
    let cases = cases(options);
    // Generation and searches grow with the arcs.
    let arcs: Vec<f64> = cases
        .iter()
        .map(|graphs| graphs.iter().map(GraphSpec::generated_arcs).sum::<u64>() as f64)
        .collect();
    let work = |case: usize| arcs.get(case).copied();
    for (index, graphs) in cases.into_iter().enumerate() {
        let made = match generation.plan(index, work) {
            Plan::Run => memory_check(&graphs),
            Plan::Skip(why) => Err(format!("skipped: generating the graph: {why}")),
            Plan::Stopped => Err("skipped".to_owned()),
        };
        if let Err(why) = made {
            for spec in &graphs {
                for &strategy in &options.strategies {
                    rows.push(BenchRow::new(spec, strategy).noted(why.clone()));
                    let line = case_line(rows.last().expect("just pushed"));
                    after_case(&line, &render(options, &rows))?;
                }
            }
            continue;
        }
        let plans: Vec<Plan> = sweeps.iter_mut().map(|s| s.plan(index, work)).collect();
        let mut generating = 0.0;
        let mut totals = vec![(0.0, 0usize, false); options.strategies.len()];
        for spec in &graphs {
            let (seconds, loaded) = timed(|| make(spec))?;
            generating += seconds;
            let sources = random_sources(&loaded.graph, options.sources, spec.seed);
            let first_row = rows.len();
            for (k, &strategy) in options.strategies.iter().enumerate() {
                let row = match &plans[k] {
                    Plan::Run => {
                        let reference = rows[first_row..].iter().find(|r| {
                            r.problem == problem_name(strategy) && r.mean_seconds.is_some()
                        });
                        measure(options, spec, &loaded, &sources, strategy, reference)
                    }
                    Plan::Skip(why) => {
                        BenchRow::new(spec, strategy).noted(format!("skipped: {why}"))
                    }
                    Plan::Stopped => BenchRow::new(spec, strategy).noted("skipped".into()),
                };
                if let Some(mean) = row.mean_seconds {
                    totals[k].0 += mean;
                    totals[k].1 += 1;
                }
                totals[k].2 |= row.failed;
                rows.push(row);
                speedups(&mut rows[first_row..]);
                let line = case_line(rows.last().expect("just pushed"));
                after_case(&line, &render(options, &rows))?;
            }
        }
        generation.record(index, Some(generating));
        for (k, sweep) in sweeps.iter_mut().enumerate() {
            if plans[k] == Plan::Run {
                let (sum, count, failed) = totals[k];
                let mean = (count > 0 && !failed).then(|| sum / count as f64);
                // A strategy skipped on this size (unavailable) keeps its last time.
                if mean.is_some() || failed {
                    sweep.record(index, mean);
                }
            }
        }
    }
    Ok(Report {
        rendered: render(options, &rows),
        verdict: verdict(&rows),
    })
}

/// Generates a graph as it is searched: arcs merged and sorted, known to be symmetric.
fn make(spec: &GraphSpec) -> Result<Loaded> {
    let graph = spec.generator.generate(spec.seed)?.simplified();
    Ok(Loaded::numbered(graph, 0, true))
}

/// Bytes per generated arc while a graph is made: the list of arcs (12), the CSR (8), the
/// sorted list and the merged CSR again.
const BYTES_PER_GENERATED_ARC: u64 = 44;

/// Refuses graphs that would not fit the memory available now (Linux; elsewhere no check).
fn memory_check(graphs: &[GraphSpec]) -> std::result::Result<(), String> {
    let Some(available) = available_memory() else {
        return Ok(());
    };
    let largest = graphs
        .iter()
        .map(GraphSpec::generated_arcs)
        .max()
        .unwrap_or(0);
    let needed = largest.saturating_mul(BYTES_PER_GENERATED_ARC);
    if needed > available {
        return Err(format!(
            "skipped: the graph needs about {:.1} GiB of memory to make, {:.1} GiB are available",
            needed as f64 / (1u64 << 30) as f64,
            available as f64 / (1u64 << 30) as f64
        ));
    }
    Ok(())
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn problem_name(strategy: Strategy) -> &'static str {
    if strategy.is_weighted() {
        "sssp"
    } else {
        "bfs"
    }
}

/// The search options of one bench call: quiet, one trial, on the strategy's own backend.
fn search_options(options: &BfsBenchOptions, strategy: Strategy, verify: bool) -> SearchOptions {
    SearchOptions {
        run: RunOptions {
            verify,
            ..case_run(strategy.is_gpu())
        },
        strategy: Some(strategy),
        threads: options.threads,
        device: options.device,
        delta: options.delta,
        // One answer's worth: many roots on a big graph would not fit.
        keep: Keep::First,
    }
}

/// Times one strategy on one graph: a verified search from the first root, then every root
/// (as many as fit the cap), each summary compared with `reference`'s.
fn measure(
    options: &BfsBenchOptions,
    spec: &GraphSpec,
    loaded: &Loaded,
    sources: &[u32],
    strategy: Strategy,
    reference: Option<&BenchRow>,
) -> BenchRow {
    let mut row = BenchRow::new(spec, strategy);
    row.vertices = Some(loaded.graph.vertices());
    row.arcs = Some(loaded.graph.arcs());
    let problem = if strategy.is_weighted() {
        Problem::ShortestPaths
    } else {
        Problem::Bfs
    };
    let first = match Outcome::of(search(
        loaded,
        problem,
        &sources[..1],
        &search_options(options, strategy, true),
    )) {
        Outcome::Ran(first) => first,
        not_run => return row.not_run(not_run),
    };
    let probe = first.output.searches[0].seconds;
    let fit = if probe > 0.0 {
        ((options.max_seconds / probe) as usize).clamp(1, sources.len())
    } else {
        sources.len()
    };
    let timed = match Outcome::of(search(
        loaded,
        problem,
        &sources[..fit],
        &search_options(options, strategy, false),
    )) {
        Outcome::Ran(timed) => timed,
        not_run => return row.not_run(not_run),
    };
    let searches = &timed.output.searches;
    let count = searches.len() as f64;
    let total: f64 = searches.iter().map(|s| s.seconds).sum();
    let traversed: u64 = searches.iter().map(|s| s.arcs_traversed).sum();
    row.sources = searches.len();
    row.mean_seconds = Some(total / count);
    row.min_seconds = searches.iter().map(|s| s.seconds).min_by(f64::total_cmp);
    row.max_seconds = searches.iter().map(|s| s.seconds).max_by(f64::total_cmp);
    row.scan_seconds = searches
        .iter()
        .map(|s| s.scan_seconds)
        .sum::<Option<f64>>()
        .map(|s| s / count);
    if total > 0.0 {
        row.gteps = Some(traversed as f64 / total / 1e9);
        row.graph500_gteps = Some(traversed as f64 / 2.0 / total / 1e9);
    }
    row.mean_reached = Some(searches.iter().map(|s| s.reached as f64).sum::<f64>() / count);
    row.max_distance = searches.iter().map(|s| s.max_distance).max();
    row.gpu_bytes = timed.output.gpu_bytes;
    let agrees = match reference {
        Some(reference) => reference.summaries == summaries(searches),
        None => true,
    };
    row.verified = Some(first.verified == Some(true) && agrees);
    row.summaries = summaries(searches);
    if !agrees {
        row.note = Some(format!(
            "answers differ from {}'s on the same roots",
            reference.map_or("", |r| r.strategy.as_str())
        ));
    } else if fit < sources.len() {
        row.note = Some(format!(
            "{fit} of {} roots (a search took {probe:.2} s; the cap is {} s)",
            sources.len(),
            thicket_core::number(options.max_seconds)
        ));
    }
    row
}

/// Each root's reach, distance sum and eccentricity.
fn summaries(searches: &[SourceSearch]) -> Vec<(u64, u64, u64, u64)> {
    searches
        .iter()
        .map(|s| (s.source, s.reached, s.sum_distances, s.max_distance))
        .collect()
}

/// Fills in the speed-ups over `serial` (BFS) and `dijkstra` (SSSP) of one graph's rows.
fn speedups(rows: &mut [BenchRow]) {
    let reference = |rows: &[BenchRow], name: &str| {
        rows.iter()
            .find(|r| r.strategy == name)
            .and_then(|r| r.mean_seconds)
    };
    let serial = reference(rows, Strategy::Serial.name());
    let dijkstra = reference(rows, Strategy::Dijkstra.name());
    for row in rows.iter_mut() {
        let base = if row.problem == "sssp" {
            dijkstra
        } else {
            serial
        };
        row.speedup = base.zip(row.mean_seconds).map(|(b, t)| b / t);
    }
}

impl BenchRow {
    fn new(spec: &GraphSpec, strategy: Strategy) -> BenchRow {
        BenchRow {
            graph: spec.name(),
            size: spec.size,
            seed: spec.seed,
            vertices: None,
            arcs: None,
            strategy: strategy.name().to_owned(),
            problem: problem_name(strategy),
            sources: 0,
            mean_seconds: None,
            min_seconds: None,
            max_seconds: None,
            scan_seconds: None,
            speedup: None,
            gteps: None,
            graph500_gteps: None,
            mean_reached: None,
            max_distance: None,
            gpu_bytes: None,
            verified: None,
            note: None,
            summaries: Vec::new(),
            failed: false,
        }
    }

    /// The row of a strategy that did not run: no GPU, or a graph too large for it
    /// ([`Error::TooLarge`]), is noted; anything else failed.
    fn not_run<T>(self, outcome: Outcome<T>) -> BenchRow {
        BenchRow {
            note: outcome.note(),
            failed: outcome.failed(),
            ..self
        }
    }

    fn noted(self, note: String) -> BenchRow {
        BenchRow {
            note: Some(note),
            ..self
        }
    }
}

/// A wrong answer or a failed case is an error (an unavailable GPU or a graph too large for
/// it is not).
fn verdict(rows: &[BenchRow]) -> Result<()> {
    let wrong: Vec<String> = rows
        .iter()
        .filter(|r| r.verified == Some(false))
        .map(|r| format!("{} on {}", r.strategy, r.graph))
        .collect();
    if !wrong.is_empty() {
        return Err(Error::Verification(format!(
            "wrong answers: {}",
            wrong.join(", ")
        )));
    }
    match rows.iter().find(|r| r.failed) {
        Some(r) => {
            let what = format!(
                "{} on {}: {}",
                r.strategy,
                r.graph,
                r.note.as_deref().unwrap_or_default()
            );
            Err(match r.strategy.parse::<Strategy>() {
                Ok(s) if s.is_gpu() => Error::Gpu(what),
                _ => Error::InvalidInput(what),
            })
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(experiment: Experiment) -> BfsBenchOptions {
        BfsBenchOptions {
            experiment,
            vertices: vec![3000, 1500],
            graphs: 2,
            degree: 12,
            scales: vec![9, 8],
            edge_factor: 8,
            grid: Some((20, 30)),
            sources: 3,
            strategies: vec![
                Strategy::Serial,
                Strategy::Multicore,
                Strategy::Thesis,
                Strategy::ThesisActive,
                Strategy::Dijkstra,
                Strategy::DeltaStepping,
            ],
            delta: None,
            max_seconds: 60.0,
            threads: 2,
            device: 0,
            seed: 1,
        }
    }

    #[test]
    fn the_thesis_sweep_runs_every_graph_and_checks_every_answer() {
        let options = BfsBenchOptions {
            strategies: vec![Strategy::Serial, Strategy::Multicore, Strategy::Thesis],
            ..options(Experiment::Thesis)
        };
        let mut lines = 0;
        let report = bench(&options, &mut |_, _| {
            lines += 1;
            Ok(())
        })
        .unwrap();
        assert!(report.verdict.is_ok(), "{:?}", report.verdict);
        let rows = report.rendered.json["rows"].as_array().unwrap().clone();
        // 2 sizes x 2 graphs x 3 strategies, the smaller size first.
        assert_eq!(rows.len(), 12);
        assert_eq!(rows[0]["graph"], "vl 1500 #1");
        assert_eq!(rows[3]["graph"], "vl 1500 #2");
        for row in rows.iter().filter(|r| r["strategy"] != "thesis") {
            assert_eq!(row["verified"], true, "{row}");
            assert_eq!(row["sources"], 3);
            // Every vertex of a connected graph is reached.
            assert_eq!(row["mean_reached"].as_f64(), row["vertices"].as_f64());
        }
        let serial = &rows[0];
        assert!((serial["speedup"].as_f64().unwrap() - 1.0).abs() < 1e-12);
        // No GPU here: noted, not failed; with one, it ran and was checked.
        let thesis = &rows[2];
        assert!(
            thesis["verified"] == true
                || thesis["note"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("unavailable")),
            "{thesis}"
        );
        assert!(report.rendered.markdown.contains("Table 4.1's split"));
        assert_eq!(
            report.rendered.series.len(),
            2 + usize::from(thesis["verified"] == true)
        );
        assert!(lines >= 12);
    }

    #[test]
    fn the_modern_sweep_times_bfs_and_shortest_paths_with_both_rates() {
        let report = bench(&options(Experiment::Modern), &mut |_, _| Ok(())).unwrap();
        assert!(report.verdict.is_ok(), "{:?}", report.verdict);
        let rows = report.rendered.json["rows"].as_array().unwrap().clone();
        // kron 8, kron 9, the grid; 6 strategies each.
        assert_eq!(rows.len(), 18);
        let graphs: Vec<&str> = rows.iter().map(|r| r["graph"].as_str().unwrap()).collect();
        assert_eq!(graphs[0], "kron 8");
        assert_eq!(graphs[17], "grid 20x30");
        for row in rows.iter().filter(|r| r["mean_seconds"].is_number()) {
            assert_eq!(row["verified"], true, "{row}");
            let (arcs, edges) = (
                row["gteps"].as_f64().unwrap(),
                row["graph500_gteps"].as_f64().unwrap(),
            );
            assert!((arcs - 2.0 * edges).abs() <= 1e-9 * arcs, "{row}");
        }
        let delta = rows
            .iter()
            .find(|r| r["strategy"] == "delta-stepping" && r["graph"] == "grid 20x30")
            .unwrap();
        assert_eq!(delta["problem"], "sssp");
        assert!(delta["speedup"].is_number());
        assert_eq!(delta["mean_reached"], 600.0);
        // The chart has the Kronecker graphs only (x: the scale).
        let serial = &report.rendered.series[0];
        assert_eq!(
            serial.points.iter().map(|p| p.0).collect::<Vec<_>>(),
            [8.0, 9.0]
        );
        assert!(report.rendered.markdown.contains("Graph500"));
        assert!(report.rendered.csv.lines().count() == 19);
    }

    #[test]
    fn only_a_graph_too_large_for_the_gpu_is_a_skip_and_other_gpu_errors_fail() {
        let spec = GraphSpec {
            generator: Generator::Grid { rows: 2, cols: 2 },
            size: 2,
            seed: 1,
        };
        let row = |error: Error| {
            BenchRow::new(&spec, Strategy::Gpu).not_run(Outcome::<()>::from_error(error))
        };
        let too_large = row(Error::TooLarge("the graph does not fit on GPU 0".into()));
        assert!(!too_large.failed);
        assert!(too_large.note.unwrap().starts_with("skipped"));
        let broken = row(Error::Gpu(
            "fast_bfs does not fit on an SM with its block size".into(),
        ));
        assert!(broken.failed);
        assert!(verdict(&[BenchRow {
            failed: true,
            ..BenchRow::new(&spec, Strategy::Gpu)
        }])
        .is_err());
        let missing = row(Error::Unavailable("no GPU".into()));
        assert!(!missing.failed && missing.note.unwrap().starts_with("unavailable"));
    }

    #[test]
    fn a_case_over_the_cap_runs_fewer_roots_and_a_larger_one_is_skipped() {
        let options = BfsBenchOptions {
            scales: vec![10, 14, 18],
            grid: None,
            sources: 50,
            strategies: vec![Strategy::Serial],
            max_seconds: 1e-4,
            ..options(Experiment::Modern)
        };
        let report = bench(&options, &mut |_, _| Ok(())).unwrap();
        let rows = report.rendered.json["rows"].as_array().unwrap().clone();
        let first = &rows[0];
        assert!(first["sources"].as_u64().unwrap() < 50, "{first}");
        assert!(first["note"].as_str().unwrap().contains("of 50 roots"));
        let last = &rows[2];
        assert!(
            last["note"].as_str().unwrap().starts_with("skipped"),
            "{last}"
        );
    }
}
