//! The generators: sizes, seeds, degrees and connectivity.

use super::*;

#[test]
fn the_same_seed_gives_the_same_graph_of_the_asked_size() {
    let kron = Generator::Kronecker {
        scale: 10,
        edge_factor: 8,
    };
    let g = kron.generate(3).unwrap();
    assert_eq!(g, kron.generate(3).unwrap());
    assert_ne!(g, kron.generate(4).unwrap());
    assert_eq!(g.vertices(), 1024);
    assert!(g.is_symmetric());
    let grid = Generator::Grid { rows: 3, cols: 4 }.generate(1).unwrap();
    assert_eq!(grid.arcs(), 2 * (3 * 3 + 2 * 4));
    let w = grid.stats().weight_range.unwrap();
    assert!(w.0 >= 1 && w.1 <= 255);
    let uniform = Generator::Uniform {
        vertices: 100,
        degree: 6,
    }
    .generate(1)
    .unwrap();
    assert!(uniform.arcs() <= 600);
}

/// Arcs both ways of each edge, a self-loop once, in the order given.
fn both_ways(edges: &[Edge]) -> Vec<Arc> {
    let mut arcs = Vec::new();
    for &(u, v, w) in edges {
        arcs.push((u, v, w));
        if u != v {
            arcs.push((v, u, w));
        }
    }
    arcs
}

/// The edges drawn in parallel are those of one stream drawn in order, edge after edge,
/// as the generators drew them serially.
#[test]
fn parallel_edges_are_the_one_stream_drawn_in_order() {
    let (scale, edge_factor) = (12u32, 20u32);
    let mut rng = SplitMix::new(5);
    let p = permutation(1 << scale, &mut rng);
    let mut edges = Vec::new();
    for _ in 0..u64::from(edge_factor) << scale {
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let r = rng.unit();
            u = (u << 1) | u32::from(r >= 0.76);
            v = (v << 1) | u32::from((0.57..0.76).contains(&r) || r >= 0.95);
        }
        let w = weight(&mut rng);
        edges.push((p[u as usize], p[v as usize], w));
    }
    let want = Graph::from_arcs(1 << scale, &both_ways(&edges), true).unwrap();
    let got = Generator::Kronecker { scale, edge_factor }
        .generate(5)
        .unwrap();
    assert_eq!(got, want);

    let (vertices, degree) = (1000u32, 7u32);
    let mut rng = SplitMix::new(6);
    let edges: Vec<Edge> = (0..vertices * degree / 2)
        .map(|_| {
            let u = rng.below(u64::from(vertices)) as u32;
            let v = rng.below(u64::from(vertices)) as u32;
            (u, v, weight(&mut rng))
        })
        .collect();
    let want = Graph::from_arcs(1000, &both_ways(&edges), true).unwrap();
    assert_eq!(
        Generator::Uniform { vertices, degree }.generate(6).unwrap(),
        want
    );

    for (rows, cols) in [(1, 2), (5, 1), (7, 9), (30, 4)] {
        let mut rng = SplitMix::new(7);
        let mut edges = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                let v = r * cols + c;
                if c + 1 < cols {
                    edges.push((v, v + 1, weight(&mut rng)));
                }
                if r + 1 < rows {
                    edges.push((v, v + cols, weight(&mut rng)));
                }
            }
        }
        let want = Graph::from_arcs((rows * cols) as usize, &both_ways(&edges), true);
        let got = Generator::Grid { rows, cols }.generate(7);
        assert_eq!(got.unwrap(), want.unwrap(), "{rows} x {cols}");
    }
}

/// The graph `thicket graph gen` writes is the generated graph simplified, the same on
/// one thread and on several.
#[test]
fn the_simple_graph_is_the_generated_one_simplified_on_any_thread_count() {
    for generator in [
        Generator::Kronecker {
            scale: 11,
            edge_factor: 16,
        },
        Generator::Uniform {
            vertices: 3000,
            degree: 9,
        },
        Generator::Grid { rows: 33, cols: 17 },
        Generator::VigerLatapy {
            vertices: 500,
            degree: 6,
        },
    ] {
        let want = generator.generate(3).unwrap().simplified();
        for threads in [1, 2, 5] {
            let progress = Progress::hidden();
            let got = thicket_core::on_threads(threads, || generator.generate_simple(3, &progress))
                .unwrap()
                .unwrap();
            assert_eq!(got.graph, want, "{generator:?} on {threads} threads");
            assert!(progress.position() <= generator.work().unwrap());
        }
    }
}

#[test]
fn viger_latapy_graphs_are_simple_and_connected() {
    let g = Generator::VigerLatapy {
        vertices: 2000,
        degree: 12,
    }
    .generate(9)
    .unwrap();
    let stats = g.stats();
    assert_eq!((stats.self_loops, stats.parallel_arcs), (0, 0));
    assert!(
        (stats.mean_out_degree - 12.0).abs() < 1.0,
        "{}",
        stats.mean_out_degree
    );
    let levels = crate::cpu::bfs::serial(&g, 0).levels;
    assert!(levels.iter().all(|&l| l != crate::UNREACHED));
}

/// Every mean degree of the achievable range is met exactly (n x degree even), the graph
/// simple and connected, from the sparsest to the complete graph.
#[test]
fn viger_latapy_graphs_meet_every_achievable_degree() {
    for (vertices, degree) in [
        (100, 2),
        (100, 12),
        (100, 30),
        (100, 50),
        (100, 80),
        (100, 99),
        (3, 2),
        (2, 1),
        (1000, 7),
    ] {
        let g = Generator::VigerLatapy { vertices, degree }
            .generate(4)
            .unwrap();
        let stats = g.stats();
        assert_eq!((stats.self_loops, stats.parallel_arcs), (0, 0));
        assert_eq!(
            g.arcs(),
            2 * (u64::from(vertices) * u64::from(degree) / 2),
            "{vertices} {degree}"
        );
        let levels = crate::cpu::bfs::serial(&g, 0).levels;
        assert!(
            levels.iter().all(|&l| l != crate::UNREACHED),
            "{vertices} {degree}"
        );
    }
}

#[test]
fn parameters_a_generator_cannot_meet_are_refused_with_the_range() {
    let refused = |g: Generator| g.generate(1).unwrap_err().to_string();
    let vl = |vertices, degree| refused(Generator::VigerLatapy { vertices, degree });
    assert!(vl(100, 100).ends_with(
        "mean degree 100: a simple connected graph of 100 vertices has mean degree 2 to 99"
    ));
    assert!(vl(100, 1).contains("2 to 99"));
    assert!(vl(3, 5).ends_with("has mean degree only 2"));
    assert!(vl(1, 2).contains("needs 2 vertices or more"));
    let uniform = refused(Generator::Uniform {
        vertices: 100,
        degree: 0,
    });
    assert!(uniform.contains("has no edges"), "{uniform}");
    assert!(refused(Generator::Grid { rows: 1, cols: 1 }).contains("has no edges"));
    assert!(refused(Generator::Kronecker {
        scale: 4,
        edge_factor: 0
    })
    .contains("edge factor 0"));
    let huge = Generator::Uniform {
        vertices: 1 << 31,
        degree: 8,
    }
    .generate(1)
    .unwrap_err();
    assert!(
        matches!(huge, Error::TooLarge(_)) || huge.to_string().contains("2^33"),
        "{huge}"
    );
}

#[test]
fn sizes_outside_the_limits_are_refused() {
    assert!(Generator::Kronecker {
        scale: 0,
        edge_factor: 16
    }
    .generate(1)
    .is_err());
    assert!(Generator::Grid { rows: 0, cols: 5 }.generate(1).is_err());
    // Found by the fuzz target graph_gen_spec: the edge count overflowed.
    let widest = Generator::Grid {
        rows: u32::MAX,
        cols: u32::MAX,
    };
    assert!(widest
        .size()
        .unwrap_err()
        .to_string()
        .contains("2^33 edges"));
    assert!(Generator::VigerLatapy {
        vertices: 5,
        degree: 9
    }
    .generate(1)
    .is_err());
}
