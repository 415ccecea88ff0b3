//! Shortest paths with non-negative integer weights on the CPU: Dijkstra's algorithm with a
//! binary heap (the reference; parallel arcs and self-loops need no care), and a parallel
//! delta-stepping (Meyer and Sanders 2003): vertices in buckets of width delta,
//! the lowest bucket relaxed by every thread at once, each thread keeping its own bins.

mod stepping;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::graph::GraphView;
use crate::{INFINITE, UNREACHED};

/// A shortest-path answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// Each vertex's distance ([`INFINITE`] where unreached).
    pub distances: Vec<u64>,
    /// Each vertex's predecessor on a shortest path ([`UNREACHED`] for the source and the
    /// unreached).
    pub parents: Vec<u32>,
}

/// Dijkstra's algorithm from `source`.
pub fn dijkstra(graph: GraphView<'_>, source: u32) -> Paths {
    let n = graph.vertices();
    let mut distances = vec![INFINITE; n];
    let mut parents = vec![UNREACHED; n];
    let mut heap = BinaryHeap::new();
    distances[source as usize] = 0;
    heap.push(Reverse((0u64, source)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > distances[u as usize] {
            continue;
        }
        for at in graph.arc_range(u) {
            let v = graph.targets[at];
            let through = d + u64::from(graph.weight(at));
            if through < distances[v as usize] {
                distances[v as usize] = through;
                parents[v as usize] = u;
                heap.push(Reverse((through, v)));
            }
        }
    }
    Paths { distances, parents }
}

/// A bucket width from the weights: the mean weight (GAPBS's rule of thumb for road-like
/// graphs is a small multiple of it), at least 1.
pub fn default_delta(graph: GraphView<'_>) -> u64 {
    match &graph.weights {
        Some(w) if !w.is_empty() => {
            (w.iter().map(|&x| u64::from(x)).sum::<u64>() / w.len() as u64).max(1)
        }
        _ => 1,
    }
}

/// Delta-stepping's distances as the search leaves them: in 32 bits where they fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distances {
    /// Each vertex's distance, [`UNREACHED`] where unreached.
    Narrow(Vec<u32>),
    /// Each vertex's distance, [`INFINITE`] where unreached.
    Wide(Vec<u64>),
}

impl Distances {
    /// The distances in 64 bits ([`INFINITE`] where unreached).
    pub fn widen(self) -> Vec<u64> {
        match self {
            Distances::Narrow(d) => widen(&d),
            Distances::Wide(d) => d,
        }
    }
}

/// 32-bit distances or BFS levels in 64 bits: [`UNREACHED`] (`u32::MAX`) becomes [`INFINITE`].
pub(crate) fn widen(narrow: &[u32]) -> Vec<u64> {
    narrow
        .par_iter()
        .map(|&d| match d {
            UNREACHED => INFINITE,
            d => u64::from(d),
        })
        .collect()
}

/// Delta-stepping from `source` with buckets of width `delta` (>= 1) on every thread of the
/// current rayon pool: the distances ([`tight_parents`] gives a shortest-path tree for them);
/// the tests' shorthand (the front door times [`delta_stepping_distances`] without the widening).
#[cfg(test)]
pub fn delta_stepping(graph: GraphView<'_>, source: u32, delta: u64) -> Vec<u64> {
    delta_stepping_distances(graph, source, delta).widen()
}

/// Delta-stepping's distances as the search leaves them (what GAPBS's delta-stepping
/// returns and times).
///
/// Distances are kept in 32 bits (half the memory traffic of the random accesses) and the
/// search reruns in 64 bits in the rare graph whose distances pass 2^32 - 2.
pub fn delta_stepping_distances(graph: GraphView<'_>, source: u32, delta: u64) -> Distances {
    let delta = delta.max(1);
    match stepping::run::<AtomicU32>(graph, source, delta) {
        Some(slots) => Distances::Narrow(slots.into_iter().map(AtomicU32::into_inner).collect()),
        None => Distances::Wide(
            stepping::run::<AtomicU64>(graph, source, delta)
                .unwrap_or_default()
                .into_iter()
                .map(AtomicU64::into_inner)
                .collect(),
        ),
    }
}

/// A shortest-path tree for `distances` from `source`: each reached vertex's parent over a
/// tight arc (d\[u\] + w = d\[v\]), in one parallel pass over the arcs.
pub fn tight_parents(graph: GraphView<'_>, source: u32, distances: &[u64]) -> Vec<u32> {
    let n = graph.vertices();
    let chosen: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHED)).collect();
    (0..n as u32)
        .into_par_iter()
        .with_min_len(1024)
        .for_each(|u| {
            let du = distances[u as usize];
            if du == INFINITE {
                return;
            }
            for at in graph.arc_range(u) {
                let v = graph.targets[at] as usize;
                if v != source as usize && du + u64::from(graph.weight(at)) == distances[v] {
                    chosen[v].store(u, Ordering::Relaxed);
                }
            }
        });
    chosen.into_iter().map(AtomicU32::into_inner).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    #[test]
    fn delta_stepping_equals_dijkstra_at_every_delta() {
        for (generator, seed) in [
            (
                Generator::Kronecker {
                    scale: 11,
                    edge_factor: 8,
                },
                5,
            ),
            (Generator::Grid { rows: 30, cols: 30 }, 6),
        ] {
            let g = generator.generate(seed).unwrap();
            let want = dijkstra(g.view(), 3);
            crate::verify::sssp(g.view(), 3, &want.distances, Some(&want.parents)).unwrap();
            for delta in [1, 7, default_delta(g.view()), 1000] {
                let got = delta_stepping(g.view(), 3, delta);
                assert_eq!(got, want.distances, "{generator:?}, delta {delta}");
                let parents = tight_parents(g.view(), 3, &got);
                crate::verify::sssp(g.view(), 3, &got, Some(&parents)).unwrap();
            }
        }
    }

    #[test]
    fn wide_distances_and_far_buckets_equal_dijkstra_on_any_team() {
        let g = Generator::Uniform {
            vertices: 2000,
            degree: 6,
        }
        .generate(7)
        .unwrap();
        // Weights up to 5.1e9: distances pass 32 bits (the search reruns in 64), and most
        // buckets lie past the ring of a small delta.
        let wide = crate::graph::Graph {
            weights: g
                .weights
                .as_ref()
                .map(|w| w.iter().map(|&x| x.saturating_mul(20_000_000)).collect()),
            ..g.clone()
        };
        assert!(matches!(
            delta_stepping_distances(g.view(), 11, 1),
            Distances::Narrow(_)
        ));
        assert!(matches!(
            delta_stepping_distances(wide.view(), 11, 1),
            Distances::Wide(_)
        ));
        for graph in [g.view(), wide.view()] {
            let want = dijkstra(graph, 11).distances;
            for threads in [1, 3] {
                let pool = thicket_core::pool(threads).unwrap();
                for delta in [1, 1000, u64::MAX / 2] {
                    let got = pool.install(|| delta_stepping(graph, 11, delta));
                    assert_eq!(got, want, "{threads} threads, delta {delta}");
                }
            }
        }
    }

    #[test]
    fn narrow_distances_widen_with_the_unreached_infinite() {
        let narrow = Distances::Narrow(vec![0, 7, u32::MAX, u32::MAX - 1]);
        assert_eq!(narrow.widen(), [0, 7, INFINITE, u64::from(u32::MAX - 1)]);
        assert_eq!(
            Distances::Wide(vec![1 << 40, INFINITE]).widen(),
            [1 << 40, INFINITE]
        );
    }

    #[test]
    fn unit_weights_give_the_bfs_levels() {
        let g = Generator::Grid { rows: 20, cols: 20 }.generate(1).unwrap();
        let unweighted = crate::graph::Graph {
            weights: None,
            ..g.clone()
        };
        let levels = crate::cpu::bfs::serial(g.view(), 5).levels;
        let distances = dijkstra(unweighted.view(), 5).distances;
        assert!(levels
            .iter()
            .zip(&distances)
            .all(|(&l, &d)| u64::from(l) == d));
    }
}
