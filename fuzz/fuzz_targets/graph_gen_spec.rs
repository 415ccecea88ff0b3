//! `thicket graph gen`'s parameters (kind, two sizes, seed) from any bytes: `Generator::size`
//! refuses in one line or accepts, and an accepted small graph is generated with the size it
//! promised (a Viger-Latapy graph simple, connected and of the mean degree asked).
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_graph::Generator;

/// Graphs up to this many edges are generated, not only checked.
const GENERATED_EDGES: u64 = 1 << 12;

fuzz_target!(|data: &[u8]| {
    if data.len() < 17 {
        return;
    }
    let word = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let (a, b) = (word(1), word(5));
    let seed = u64::from_le_bytes(data[9..17].try_into().expect("8 bytes"));
    let generator = match data[0] % 4 {
        0 => Generator::Kronecker {
            scale: a,
            edge_factor: b,
        },
        1 => Generator::Uniform {
            vertices: a,
            degree: b,
        },
        2 => Generator::Grid { rows: a, cols: b },
        _ => Generator::VigerLatapy {
            vertices: a,
            degree: b,
        },
    };
    let (vertices, edges) = match generator.size() {
        Ok(size) => size,
        Err(e) => {
            let message = e.to_string();
            assert!(!message.trim_end().contains('\n'), "{message}");
            return;
        }
    };
    if edges > GENERATED_EDGES || vertices > GENERATED_EDGES {
        return;
    }
    let graph = generator
        .generate(seed)
        .expect("an accepted small graph is generated");
    assert_eq!(graph.vertices() as u64, vertices);
    assert!(graph.arcs() <= 2 * edges);
    if let Generator::VigerLatapy { .. } = generator {
        let stats = graph.stats();
        assert_eq!((stats.self_loops, stats.parallel_arcs), (0, 0));
        assert_eq!(graph.arcs(), 2 * edges);
        let options = thicket_graph::SearchOptions {
            run: thicket_core::RunOptions {
                backend: thicket_core::Backend::Cpu,
                ..thicket_core::RunOptions::default()
            },
            strategy: Some(thicket_graph::Strategy::Serial),
            ..thicket_graph::SearchOptions::default()
        };
        let run = thicket_graph::bfs(&graph, &[0], &options).expect("a search");
        assert_eq!(run.output.searches[0].reached, vertices, "connected");
    }
});
