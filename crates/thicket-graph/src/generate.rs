//! Seeded graph generators (the same seed gives the same graph on every machine):
//! Graph500's Kronecker graph, a uniform random graph, a 2-D grid with random weights (a
//! road-like graph of thousands of levels), and a random simple connected graph of a given
//! average degree in the manner of Viger and Latapy (the thesis's graphs). Every generator
//! returns a symmetric graph (each edge as two arcs) with weights 1..=255.

use rayon::prelude::*;
use thicket_core::{Error, Result, SplitMix};

use crate::graph::{Arc, Graph};

/// The graphs `thicket graph gen` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// Graph500 Kronecker (A = 0.57, B = C = 0.19): 2^scale vertices, edge_factor · 2^scale
    /// edges, vertex ids permuted.
    Kronecker {
        /// log2 of the vertex count.
        scale: u32,
        /// Edges per vertex.
        edge_factor: u32,
    },
    /// `vertices` vertices and `degree` · `vertices` / 2 edges between uniform random ends.
    Uniform {
        /// Vertices.
        vertices: u32,
        /// Mean degree (arcs per vertex).
        degree: u32,
    },
    /// A rows × cols grid, each vertex joined to its right and lower neighbours.
    Grid {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
    },
    /// A random simple connected graph whose degrees are spread around `degree` (from
    /// degree / 2 to 3 · degree / 2), by random pairing of edge ends, dropping loops and
    /// repeated edges, and joining the components.
    VigerLatapy {
        /// Vertices.
        vertices: u32,
        /// Mean degree.
        degree: u32,
    },
}

/// A weight in 1..=255.
fn weight(rng: &mut SplitMix) -> u32 {
    1 + rng.below(255) as u32
}

/// The most vertices a generated graph may have.
const MAX_VERTICES: u64 = 1 << 31;
/// The most edges a generated graph may have.
const MAX_EDGES: u64 = 1 << 33;
/// Kronecker edges per parallel task.
const KRONECKER_CHUNK: u64 = 1 << 16;

/// Kronecker edges first..last (of the stream `rng` at edge 0, each edge `scale` + 1 draws:
/// scale quadrant choices, then the weight), their ends renamed by `permutation`, as arcs.
fn kronecker_edges(
    rng: &SplitMix,
    scale: u32,
    permutation: &[u32],
    first: u64,
    last: u64,
) -> Vec<Arc> {
    let mut rng = rng.clone();
    rng.skip(first * (u64::from(scale) + 1));
    let mut arcs = Vec::with_capacity(2 * (last - first) as usize);
    for _ in first..last {
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let (bu, bv) = match rng.unit() {
                r if r < 0.57 => (0, 0),
                r if r < 0.76 => (0, 1),
                r if r < 0.95 => (1, 0),
                _ => (1, 1),
            };
            u = (u << 1) | bu;
            v = (v << 1) | bv;
        }
        let w = weight(&mut rng);
        let (u, v) = (permutation[u as usize], permutation[v as usize]);
        arcs.push((u, v, w));
        if u != v {
            arcs.push((v, u, w));
        }
    }
    arcs
}

impl Generator {
    /// Generates the graph from `seed`.
    pub fn generate(self, seed: u64) -> Result<Graph> {
        let (vertices, edges) = self.size()?;
        let mut rng = SplitMix::new(seed);
        let mut arcs: Vec<Arc> = Vec::with_capacity(2 * edges as usize);
        let edge = |arcs: &mut Vec<Arc>, u: u32, v: u32, w: u32| {
            arcs.push((u, v, w));
            if u != v {
                arcs.push((v, u, w));
            }
        };
        match self {
            Generator::Kronecker { scale, .. } => {
                let permutation = permutation(vertices as u32, &mut rng);
                // Every edge draws the same count of numbers, so chunks of edges are drawn in
                // parallel from their places in the one stream: the graph is the one drawn in
                // order, on any number of threads (scale 24 took minutes on one).
                let chunks: Vec<Vec<Arc>> = (0..edges.div_ceil(KRONECKER_CHUNK))
                    .into_par_iter()
                    .map(|c| {
                        let first = c * KRONECKER_CHUNK;
                        let last = (first + KRONECKER_CHUNK).min(edges);
                        kronecker_edges(&rng, scale, &permutation, first, last)
                    })
                    .collect();
                for chunk in chunks {
                    arcs.extend(chunk);
                }
            }
            Generator::Uniform { .. } => {
                for _ in 0..edges {
                    let u = rng.below(vertices) as u32;
                    let v = rng.below(vertices) as u32;
                    let w = weight(&mut rng);
                    edge(&mut arcs, u, v, w);
                }
            }
            Generator::Grid { rows, cols } => {
                for r in 0..rows {
                    for c in 0..cols {
                        let v = r * cols + c;
                        if c + 1 < cols {
                            let w = weight(&mut rng);
                            edge(&mut arcs, v, v + 1, w);
                        }
                        if r + 1 < rows {
                            let w = weight(&mut rng);
                            edge(&mut arcs, v, v + cols, w);
                        }
                    }
                }
            }
            Generator::VigerLatapy { vertices, degree } => {
                for (u, v) in simple_connected(vertices, degree, &mut rng) {
                    let w = weight(&mut rng);
                    edge(&mut arcs, u, v, w);
                }
            }
        }
        Graph::from_arcs(vertices as usize, &arcs, true)
    }

    /// Vertices and edges, checked against the limits.
    fn size(self) -> Result<(u64, u64)> {
        let (n, m) = match self {
            Generator::Kronecker { scale, edge_factor } => {
                if !(1..=31).contains(&scale) {
                    return Err(Error::InvalidInput(format!(
                        "Kronecker scale {scale}: it must be 1 to 31"
                    )));
                }
                (1u64 << scale, u64::from(edge_factor) << scale)
            }
            Generator::Uniform { vertices, degree }
            | Generator::VigerLatapy { vertices, degree } => (
                u64::from(vertices),
                u64::from(vertices) * u64::from(degree) / 2,
            ),
            Generator::Grid { rows, cols } => {
                let n = u64::from(rows) * u64::from(cols);
                (n, 2 * n)
            }
        };
        if n == 0 || n > MAX_VERTICES || m > MAX_EDGES {
            return Err(Error::InvalidInput(format!(
                "{n} vertices and {m} edges: a generated graph has 1 to 2^31 vertices and at \
                 most 2^33 edges"
            )));
        }
        if let Generator::VigerLatapy { degree, .. } = self {
            if degree < 2 || u64::from(degree) >= n {
                return Err(Error::InvalidInput(format!(
                    "degree {degree}: a simple connected graph of {n} vertices needs 2 to {}",
                    n.saturating_sub(1)
                )));
            }
        }
        Ok((n, m))
    }
}

/// `count` random vertices with at least one arc, from `seed` (as GAPBS picks its sources);
/// empty where no vertex has an arc.
pub fn random_sources(graph: &Graph, count: usize, seed: u64) -> Vec<u32> {
    let candidates: Vec<u32> = (0..graph.vertices() as u32)
        .filter(|&v| graph.degree(v) > 0)
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let mut rng = SplitMix::new(seed);
    (0..count)
        .map(|_| candidates[rng.below(candidates.len() as u64) as usize])
        .collect()
}

/// A seeded random permutation of 0..n.
fn permutation(n: u32, rng: &mut SplitMix) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n).collect();
    for i in (1..n as usize).rev() {
        p.swap(i, rng.below(i as u64 + 1) as usize);
    }
    p
}

/// The edges of a simple connected graph whose degrees lie around `degree`.
fn simple_connected(n: u32, degree: u32, rng: &mut SplitMix) -> Vec<(u32, u32)> {
    let low = (degree / 2).max(1);
    let span = u64::from(degree - low) * 2 + 1;
    let mut ends: Vec<u32> = Vec::new();
    for v in 0..n {
        let d = low + rng.below(span) as u32;
        ends.extend(std::iter::repeat_n(v, d as usize));
    }
    if ends.len() % 2 == 1 {
        ends.pop();
    }
    for i in (1..ends.len()).rev() {
        ends.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut edges: Vec<(u32, u32)> = ends
        .chunks_exact(2)
        .filter(|p| p[0] != p[1])
        .map(|p| (p[0].min(p[1]), p[0].max(p[1])))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    // Join the components: each one's smallest vertex to a random vertex already joined.
    let mut parent: Vec<u32> = (0..n).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for &(u, v) in &edges {
        let (a, b) = (root(&mut parent, u), root(&mut parent, v));
        parent[a.max(b) as usize] = a.min(b);
    }
    let mut joined: Vec<u32> = Vec::new();
    for v in 0..n {
        if root(&mut parent, v) == v {
            if let Some(&any) = joined.get(rng.below(joined.len().max(1) as u64) as usize) {
                edges.push((any.min(v), any.max(v)));
            }
        }
        joined.push(v);
    }
    edges
}

#[cfg(test)]
mod tests {
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

    /// The parallel chunks give the graph of one stream drawn in order, edge after edge.
    #[test]
    fn kronecker_chunks_draw_the_one_stream_in_order() {
        let (scale, edge_factor) = (12u32, 20u32);
        let edges = u64::from(edge_factor) << scale;
        assert!(edges > KRONECKER_CHUNK && edges % KRONECKER_CHUNK != 0);
        let mut rng = SplitMix::new(5);
        let p = permutation(1 << scale, &mut rng);
        let mut arcs = Vec::new();
        for _ in 0..edges {
            let (mut u, mut v) = (0u32, 0u32);
            for _ in 0..scale {
                let r = rng.unit();
                u = (u << 1) | u32::from(r >= 0.76);
                v = (v << 1) | u32::from((0.57..0.76).contains(&r) || r >= 0.95);
            }
            let w = weight(&mut rng);
            let (u, v) = (p[u as usize], p[v as usize]);
            arcs.push((u, v, w));
            if u != v {
                arcs.push((v, u, w));
            }
        }
        let want = Graph::from_arcs(1 << scale, &arcs, true).unwrap();
        let got = Generator::Kronecker { scale, edge_factor }
            .generate(5)
            .unwrap();
        assert_eq!(got, want);
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
        let levels = crate::bfs::serial(&g, 0).levels;
        assert!(levels.iter().all(|&l| l != crate::UNREACHED));
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
        assert!(Generator::VigerLatapy {
            vertices: 5,
            degree: 9
        }
        .generate(1)
        .is_err());
    }
}
