//! The front doors on the shipped graphs against outside references, on borrowed arrays,
//! and how a run keeps answers and stops.

use std::path::Path;

use thicket_core::{stoppable, Backend, Error, RunOptions, StopFlag};
use thicket_graph::io::{self, Loaded};
use thicket_graph::{
    bfs, search, sssp, verify, Graph, GraphView, Keep, Problem, SearchInput, SearchOptions,
    SearchRun, Strategy,
};

fn data(name: &str) -> Loaded {
    io::read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name),
    )
    .unwrap()
}

fn options(strategy: Strategy) -> SearchOptions {
    SearchOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            verify: true,
            ..RunOptions::default()
        },
        strategy: Some(strategy),
        threads: 2,
        ..SearchOptions::default()
    }
}

/// The references computed outside thicket (data/SOURCE.md): rome99 from DIMACS sources
/// 1, 1676, 3353 and GAPBS's tiny graph from 1, 2, 9, 14.
#[test]
fn every_cpu_strategy_matches_the_outside_references() {
    let rome = data("rome99.gr");
    let tiny = data("gapbs-4.gr");
    // (graph, source, weighted (reached, sum, max), hops (reached, sum, max))
    type Expected = (u64, u64, u64);
    let cases: [(&Loaded, u32, Expected, Expected); 7] = [
        (&rome, 1, (3353, 116_006_476, 69_102), (3353, 92_781, 47)),
        (&rome, 1676, (3353, 31_147_171, 39_885), (3353, 86_615, 46)),
        (&rome, 3353, (3353, 33_624_198, 42_730), (3353, 88_088, 46)),
        (&tiny, 1, (13, 214, 56), (13, 12, 1)),
        (&tiny, 2, (1, 0, 0), (1, 0, 0)),
        (&tiny, 9, (12, 551, 104), (12, 13, 2)),
        (&tiny, 14, (8, 1015, 243), (8, 9, 2)),
    ];
    for (graph, id, weighted, hops) in cases {
        let source = [id - 1];
        for strategy in [Strategy::Dijkstra, Strategy::DeltaStepping] {
            let run = search(graph, Problem::ShortestPaths, &source, &options(strategy)).unwrap();
            let s = &run.output.searches[0];
            assert_eq!(
                (s.reached, s.sum_distances, s.max_distance),
                weighted,
                "{strategy} from {id}"
            );
            assert_eq!(run.verified, Some(true));
        }
        for strategy in [Strategy::Serial, Strategy::Multicore] {
            let run = search(graph, Problem::Bfs, &source, &options(strategy)).unwrap();
            let s = &run.output.searches[0];
            assert_eq!(
                (s.reached, s.sum_distances, s.max_distance),
                hops,
                "{strategy} from {id}"
            );
            assert_eq!(run.verified, Some(true));
        }
    }
}

#[test]
fn every_distance_of_rome99_matches_the_reference_table() {
    let rome = data("rome99.gr");
    let table =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rome99-ref.tsv"))
            .unwrap();
    let rows: Vec<Vec<u64>> = table
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(|x| x.parse().unwrap()).collect())
        .collect();
    for (column, source, problem) in [
        (1, 1, Problem::ShortestPaths),
        (2, 1676, Problem::ShortestPaths),
        (6, 3353, Problem::Bfs),
    ] {
        let run = search(
            &rome,
            problem,
            &[source - 1],
            &SearchOptions {
                run: RunOptions {
                    backend: Backend::Cpu,
                    quiet: true,
                    ..RunOptions::default()
                },
                ..SearchOptions::default()
            },
        )
        .unwrap();
        let distances = &run.output.paths[0].distances;
        for row in &rows {
            assert_eq!(
                distances[row[0] as usize - 1],
                row[column],
                "vertex {}",
                row[0]
            );
        }
    }
}

#[test]
fn the_in_memory_front_doors_answer_every_source_and_refuse_a_vertex_outside() {
    let rome = data("rome99.gr").graph;
    let sources = [0, 1675, 3352];
    for strategy in [Strategy::Serial, Strategy::Multicore] {
        let run = bfs(&rome, &sources, &options(strategy)).unwrap();
        assert_eq!(run.verified, Some(true));
        assert_eq!(run.output.paths.len(), 3);
        for (paths, (summary, source)) in run
            .output
            .paths
            .iter()
            .zip(run.output.searches.iter().zip(sources))
        {
            assert_eq!(paths.source, source);
            assert_eq!(summary.source, u64::from(source));
            assert_eq!(paths.distances.iter().sum::<u64>(), summary.sum_distances);
            verify(&rome, Problem::Bfs, paths).unwrap();
        }
        // DIMACS source 3353 (0-based 3352): 88,088 hops in all.
        assert_eq!(run.output.searches[2].sum_distances, 88_088);
    }
    for strategy in [Strategy::Dijkstra, Strategy::DeltaStepping] {
        let run = sssp(&rome, &sources, &options(strategy)).unwrap();
        assert_eq!(run.verified, Some(true));
        let sums: Vec<u64> = run
            .output
            .searches
            .iter()
            .map(|s| s.sum_distances)
            .collect();
        assert_eq!(sums, [116_006_476, 31_147_171, 33_624_198]);
        for paths in &run.output.paths {
            verify(&rome, Problem::ShortestPaths, paths).unwrap();
        }
    }
    for bad in [&[3353][..], &[]] {
        let err = bfs(&rome, bad, &options(Strategy::Serial)).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    }
    let err = sssp(&rome, &[3353], &options(Strategy::Dijkstra)).unwrap_err();
    assert!(
        err.to_string()
            .contains("source 3353 is not a vertex (0..=3352)"),
        "{err}"
    );
}

#[test]
fn bad_sources_strategies_and_weights_are_refused() {
    let rome = data("rome99.gr");
    let err = search(&rome, Problem::Bfs, &[3353], &options(Strategy::Serial)).unwrap_err();
    assert!(
        err.to_string()
            .contains("source 3354 is not a vertex (1..=3353)"),
        "{err}"
    );
    let err = search(&rome, Problem::Bfs, &[0], &options(Strategy::Dijkstra)).unwrap_err();
    assert!(err.to_string().contains("shortest paths"), "{err}");
    let err = search(&rome, Problem::Bfs, &[0], &options(Strategy::Thesis)).unwrap_err();
    assert!(err.to_string().contains("runs on a GPU"), "{err}");
    // `gpu` serves both problems, on a GPU only; the other GPU strategies are BFS's.
    let err = search(&rome, Problem::ShortestPaths, &[0], &options(Strategy::Gpu)).unwrap_err();
    assert!(err.to_string().contains("runs on a GPU"), "{err}");
    let err = search(
        &rome,
        Problem::ShortestPaths,
        &[0],
        &options(Strategy::Thesis),
    )
    .unwrap_err();
    assert!(err.to_string().contains("is for BFS"), "{err}");
    let negative = io::parse("n.gr", "p sp 2 1\na 1 2 -4\n", io::Format::Dimacs).unwrap();
    let err = search(
        &negative,
        Problem::ShortestPaths,
        &[0],
        &options(Strategy::Dijkstra),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("negative weight at n.gr:2"),
        "{err}"
    );
    search(&negative, Problem::Bfs, &[0], &options(Strategy::Serial)).unwrap();
}

/// The searches on a caller's arrays, borrowed, answer as they do on the owned graph: a
/// graph with parallel arcs and self-loops (searched simplified) and a simple symmetric
/// one (searched where it is, as its own reverse).
#[test]
fn a_borrowed_graph_is_searched_as_the_owned_one() {
    let mut rng = thicket_core::SplitMix::new(5);
    let edges: Vec<(u32, u32, f64)> = (0..6000)
        .map(|_| {
            (
                rng.below(700) as u32,
                rng.below(700) as u32,
                rng.below(9) as f64,
            )
        })
        .collect();
    let rough = Graph::from_weighted_edges(700, &edges).unwrap();
    let kronecker = thicket_graph::Generator::Kronecker {
        scale: 10,
        edge_factor: 8,
    }
    .generate_simple(3, &thicket_core::Progress::hidden())
    .unwrap()
    .graph;
    assert!(!rough.is_simple(), "rough");
    assert!(kronecker.is_simple(), "simple");
    assert!(kronecker.is_symmetric(), "symmetric");
    let sources = [0, 5, 699];
    for (graph, symmetric) in [(&rough, false), (&kronecker, true)] {
        let view = GraphView::from_csr(graph.offsets(), graph.targets(), graph.weights()).unwrap();
        for strategy in [
            Strategy::Serial,
            Strategy::Multicore,
            Strategy::DeltaStepping,
        ] {
            let options = SearchOptions {
                run: thicket_core::RunOptions {
                    backend: thicket_core::Backend::Cpu,
                    quiet: true,
                    verify: true,
                    ..thicket_core::RunOptions::default()
                },
                strategy: Some(strategy),
                ..SearchOptions::default()
            };
            let (problem, owned) = match strategy {
                Strategy::DeltaStepping => {
                    (Problem::ShortestPaths, sssp(graph, &sources, &options))
                }
                _ => (Problem::Bfs, bfs(graph, &sources, &options)),
            };
            let input = SearchInput::from(view).symmetric(symmetric);
            let borrowed = search(input, problem, &sources, &options).unwrap();
            assert_eq!(borrowed.verified, Some(true), "{strategy:?}");
            let distances = |run: &SearchRun| -> Vec<Vec<u64>> {
                run.paths.iter().map(|p| p.distances.clone()).collect()
            };
            assert_eq!(
                distances(&borrowed.output),
                distances(&owned.unwrap().output),
                "{strategy:?}"
            );
        }
    }
}

/// A run stopped before its first source is interrupted; the search keeps the answers asked
/// for and no more.
#[test]
fn a_stopped_run_is_interrupted_and_answers_are_kept_as_asked() {
    let rome = data("rome99.gr");
    let flag = StopFlag::new();
    flag.raise();
    let stopped = stoppable(&flag, || {
        search(&rome, Problem::Bfs, &[0, 1], &options(Strategy::Serial))
    });
    assert!(matches!(stopped, Err(Error::Interrupted(_))), "{stopped:?}");
    for (keep, kept) in [(Keep::None, 0), (Keep::First, 1), (Keep::Every, 3)] {
        for strategy in [Strategy::Multicore, Strategy::DeltaStepping] {
            let problem = match strategy {
                Strategy::Multicore => Problem::Bfs,
                _ => Problem::ShortestPaths,
            };
            let options = SearchOptions {
                keep,
                ..options(strategy)
            };
            let run = search(&rome, problem, &[0, 5, 9], &options).unwrap();
            assert_eq!(run.output.paths.len(), kept, "{keep:?} {strategy}");
            assert_eq!(run.output.searches.len(), 3);
            assert!(!run.output.stopped);
            assert!(run.json(run.output.stats()).get("stopped").is_none());
            for paths in &run.output.paths {
                verify(&rome.graph, problem, paths).unwrap();
            }
        }
    }
}
