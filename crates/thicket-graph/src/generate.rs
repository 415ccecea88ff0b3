//! Seeded graph generators (the same seed gives the same graph on every machine):
//! Graph500's Kronecker graph, a uniform random graph, a 2-D grid with random weights (a
//! road-like graph of thousands of levels), and a random simple connected graph of a given
//! average degree in the manner of Viger and Latapy (the thesis's graphs). Every generator
//! returns a symmetric graph (each edge as two arcs) with weights 1..=255.

use std::time::Instant;

use rayon::prelude::*;
use thicket_core::{Error, Progress, Result, SplitMix};

use crate::graph::{Arc, Graph};
use crate::undirected::Edge;

/// A graph made by [`Generator::generate_simple`], with the time of each stage.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The graph, simplified.
    pub graph: Graph,
    /// Seconds drawing the edges.
    pub generate_seconds: f64,
    /// Seconds building the graph from them.
    pub build_seconds: f64,
}

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
/// Kronecker's quadrant probabilities, cumulative: A = 0.57, then B, C (0.19 each), D.
const QUADRANTS: [f64; 3] = [0.57, 0.76, 0.95];
/// 2^53: [`SplitMix::unit`] divides a draw's top 53 bits by it.
const UNIT_SCALE: f64 = (1u64 << 53) as f64;

/// Where each edge's numbers start in the one stream of a generator whose edges draw the
/// same count of numbers each (Kronecker, uniform, grid): edge `k` is drawn from its own
/// place, so that the edges are drawn in parallel and are the ones drawn in order, on any
/// number of threads.
struct EdgeStream<'a> {
    /// The stream at edge 0.
    start: SplitMix,
    /// The generator.
    generator: Generator,
    /// Kronecker's renaming of the vertices (empty for the others).
    permutation: &'a [u32],
}

impl EdgeStream<'_> {
    /// Renames the ends of `edges` drawn by [`EdgeStream::edge`] by Kronecker's permutation
    /// (nothing for the others). A loop of nothing but lookups keeps many of these random
    /// reads of a table larger than the caches in flight at once; made between one edge's
    /// draws, each waited alone (at scale 22 the drawing took 2.7 times the CPU time).
    fn rename(&self, edges: &mut [Edge]) {
        if self.permutation.is_empty() {
            return;
        }
        edges.par_iter_mut().with_min_len(1 << 12).for_each(|e| {
            e.0 = self.permutation[e.0 as usize];
            e.1 = self.permutation[e.1 as usize];
        });
    }

    /// Numbers each edge draws: Kronecker scale quadrant choices then the weight; uniform
    /// two ends then the weight; a grid's edge its weight.
    fn draws(&self) -> u64 {
        match self.generator {
            Generator::Kronecker { scale, .. } => u64::from(scale) + 1,
            Generator::Uniform { .. } => 3,
            Generator::Grid { .. } | Generator::VigerLatapy { .. } => 1,
        }
    }

    /// Edge `k` of the stream, Kronecker's ends not yet renamed (see [`EdgeStream::rename`]).
    fn edge(&self, k: u64) -> Edge {
        let mut rng = self.start.clone();
        rng.skip(k * self.draws());
        match self.generator {
            Generator::Kronecker { scale, .. } => {
                // `unit()` is the draw's top 53 bits over 2^53, so r < p exactly where those
                // bits are below ceil(p 2^53): whole-number bounds, and the quadrant picked
                // without branches (a random branch mispredicts about every other draw).
                let [a, b, c] = QUADRANTS.map(|p| (p * UNIT_SCALE).ceil() as u64);
                let (mut u, mut v) = (0u32, 0u32);
                for _ in 0..scale {
                    let bits = rng.next_u64() >> 11;
                    let bu = u32::from(bits >= b);
                    let bv = u32::from(((bits >= a) & (bits < b)) | (bits >= c));
                    u = (u << 1) | bu;
                    v = (v << 1) | bv;
                }
                // The ids renamed later, by `rename`, many edges at a time.
                (u, v, weight(&mut rng))
            }
            Generator::Uniform { vertices, .. } => {
                let u = rng.below(u64::from(vertices)) as u32;
                let v = rng.below(u64::from(vertices)) as u32;
                (u, v, weight(&mut rng))
            }
            Generator::Grid { rows, cols } => {
                // Row by row, each vertex's right edge then its lower one (the last column
                // has no right edge, the last row no lower one): a row but the last has
                // 2 cols - 1 edges, the last row's are its cols - 1 right edges.
                let cols = u64::from(cols);
                let (row, at) = (k / (2 * cols - 1), k % (2 * cols - 1));
                let (col, down) = if row + 1 == u64::from(rows) {
                    (at, false)
                } else if at == 2 * cols - 2 {
                    (cols - 1, true)
                } else {
                    (at / 2, at % 2 == 1)
                };
                let u = row * cols + col;
                let v = if down { u + cols } else { u + 1 };
                (u as u32, v as u32, weight(&mut rng))
            }
            Generator::VigerLatapy { .. } => unreachable!("Viger-Latapy edges are drawn in order"),
        }
    }
}

/// Edges drawn between two reports of progress.
const BLOCK_EDGES: u64 = 1 << 22;

impl Generator {
    /// Generates the graph from `seed`: each edge as two arcs (a self-loop as one), in the
    /// order drawn.
    pub fn generate(self, seed: u64) -> Result<Graph> {
        let (vertices, edges) = self.size()?;
        thicket_core::check_fits(&self.describe(vertices, edges), self.bytes(vertices, edges))?;
        let edges = self.edges(seed, &Progress::hidden())?;
        let mut arcs: Vec<Arc> = Vec::new();
        arcs.try_reserve_exact(2 * edges.len()).map_err(|_| {
            Error::TooLarge(format!(
                "{}: its arcs do not fit in memory",
                self.describe(vertices, edges.len() as u64)
            ))
        })?;
        for &(u, v, w) in &edges {
            arcs.push((u, v, w));
            if u != v {
                arcs.push((v, u, w));
            }
        }
        drop(edges);
        Graph::from_arcs(vertices as usize, &arcs, true)
    }

    /// The graph as `thicket graph gen` writes it and every search reads it:
    /// [`Generator::generate`]'s graph simplified (each vertex's arcs sorted by head,
    /// self-loops dropped, parallel arcs merged into the lightest), drawn and built on every
    /// core of the caller's pool, the same for a seed on any number of threads. `progress`
    /// counts [`Generator::work`] units; the answer carries each stage's time.
    pub fn generate_simple(self, seed: u64, progress: &Progress) -> Result<Generated> {
        let (vertices, edges) = self.size()?;
        let bytes = crate::undirected::bytes(vertices, edges)
            .and_then(|b| b.checked_add(self.own_bytes(vertices, edges)?));
        thicket_core::check_fits(&self.describe(vertices, edges), bytes)?;
        let started = Instant::now();
        let edges = self.edges(seed, progress)?;
        let generate_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let graph = crate::undirected::simple_graph(vertices as usize, edges, progress)?;
        Ok(Generated {
            graph,
            generate_seconds,
            build_seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The units of progress [`Generator::generate_simple`] counts: the edges drawn, twice
    /// the edges placed, the arcs sorted (at most twice the edges).
    pub fn work(self) -> Result<u64> {
        Ok(5 * self.size()?.1)
    }

    /// The edges from `seed`, in the order drawn: in parallel from their places in the one
    /// stream where every edge draws the same count of numbers, else in order.
    fn edges(self, seed: u64, progress: &Progress) -> Result<Vec<Edge>> {
        let (vertices, count) = self.size()?;
        let mut rng = SplitMix::new(seed);
        let permutation = match self {
            Generator::Kronecker { .. } => permutation(vertices as u32, &mut rng),
            Generator::VigerLatapy { vertices, degree } => {
                let pairs = simple_connected(vertices, degree, &mut rng);
                progress.inc(pairs.len() as u64);
                return Ok(pairs
                    .into_iter()
                    .map(|(u, v)| (u, v, weight(&mut rng)))
                    .collect());
            }
            Generator::Uniform { .. } | Generator::Grid { .. } => Vec::new(),
        };
        let stream = EdgeStream {
            start: rng,
            generator: self,
            permutation: &permutation,
        };
        let mut edges: Vec<Edge> = Vec::new();
        edges.try_reserve_exact(count as usize).map_err(|_| {
            Error::TooLarge(format!(
                "{}: its edges do not fit in memory",
                self.describe(vertices, count)
            ))
        })?;
        for first in (0..count).step_by(BLOCK_EDGES as usize) {
            let last = (first + BLOCK_EDGES).min(count);
            edges.par_extend((first..last).into_par_iter().map(|k| stream.edge(k)));
            stream.rename(&mut edges[first as usize..]);
            progress.inc(last - first);
        }
        Ok(edges)
    }

    /// What the graph is, as messages name it.
    fn describe(self, vertices: u64, edges: u64) -> String {
        let kind = match self {
            Generator::Kronecker { .. } => "a Kronecker graph",
            Generator::Uniform { .. } => "a uniform random graph",
            Generator::Grid { .. } => "a grid",
            Generator::VigerLatapy { .. } => "a Viger-Latapy graph",
        };
        format!("{kind} of {vertices} vertices and {edges} edges")
    }

    /// The most bytes [`Generator::generate`] holds at once (the edges drawn, the list of
    /// their arcs, the generator's own arrays, the CSR graph built from them); `None` past
    /// 64 bits.
    fn bytes(self, vertices: u64, edges: u64) -> Option<u64> {
        let arcs = edges.checked_mul(2)?;
        crate::graph::build_bytes(vertices, arcs, true)?
            .checked_add(arcs.checked_mul(12)?)?
            .checked_add(edges.checked_mul(12)?)?
            .checked_add(self.own_bytes(vertices, edges)?)
    }

    /// The bytes of the generator's own arrays beside its edges; `None` past 64 bits.
    fn own_bytes(self, vertices: u64, edges: u64) -> Option<u64> {
        match self {
            // The permutation of the ids.
            Generator::Kronecker { .. } => vertices.checked_mul(4),
            Generator::Uniform { .. } | Generator::Grid { .. } => Some(0),
            // Edge ends (up to 3/2 of the degree a vertex), pairs, the order edges are
            // dropped in, union-find parents; a dense graph lists every pair of vertices.
            Generator::VigerLatapy { .. } => {
                let sparse = edges
                    .checked_mul(28)?
                    .checked_add(vertices.checked_mul(4)?)?;
                let pairs = vertices.checked_mul(vertices.saturating_sub(1))? / 2;
                match 2 * edges > pairs {
                    true => sparse.checked_add(pairs.checked_mul(8)?),
                    false => Some(sparse),
                }
            }
        }
    }

    /// The vertices and edges the graph will have, or the refusal [`Generator::generate`]
    /// gives before it allocates anything: a size past the limits (2^31 vertices, 2^33
    /// edges), no edges at all, or a parameter the generator cannot meet, with the range it
    /// can.
    pub fn size(self) -> Result<(u64, u64)> {
        let refuse = |what: String| Err(Error::InvalidInput(what));
        let (n, m) = match self {
            Generator::Kronecker { scale, edge_factor } => {
                if !(1..=31).contains(&scale) {
                    return refuse(format!("Kronecker scale {scale}: it must be 1 to 31"));
                }
                if edge_factor == 0 {
                    return refuse("Kronecker edge factor 0: it must be 1 or more".into());
                }
                (1u64 << scale, u64::from(edge_factor) << scale)
            }
            Generator::Uniform { vertices, degree } => {
                let n = u64::from(vertices);
                let m = n * u64::from(degree) / 2;
                if m == 0 {
                    return refuse(format!(
                        "a uniform graph of {vertices} vertices and mean degree {degree} has no \
                         edges: it needs vertices x degree of 2 or more"
                    ));
                }
                (n, m)
            }
            Generator::Grid { rows, cols } => {
                let (r, c) = (u64::from(rows), u64::from(cols));
                // Saturating: a grid of 2^32 - 1 squared passes 64 bits, and the limits
                // below refuse it.
                let m = (r * c.saturating_sub(1)).saturating_add(r.saturating_sub(1) * c);
                if m == 0 {
                    return refuse(format!(
                        "a {rows} x {cols} grid has no edges: it needs 2 vertices or more"
                    ));
                }
                (r * c, m)
            }
            Generator::VigerLatapy { vertices, degree } => {
                let Some((low, high)) = viger_latapy_degrees(vertices) else {
                    return refuse(format!(
                        "a simple connected graph of {vertices} vertices has no edges: it \
                         needs 2 vertices or more"
                    ));
                };
                if !(low..=high).contains(&degree) {
                    let range = match low == high {
                        true => format!("only {low}"),
                        false => format!("{low} to {high}"),
                    };
                    return refuse(format!(
                        "mean degree {degree}: a simple connected graph of {vertices} \
                         vertices has mean degree {range}"
                    ));
                }
                let n = u64::from(vertices);
                (n, n * u64::from(degree) / 2)
            }
        };
        if n > MAX_VERTICES || m > MAX_EDGES {
            return refuse(format!(
                "{n} vertices and {m} edges: a generated graph has at most 2^31 vertices and \
                 2^33 edges"
            ));
        }
        Ok((n, m))
    }
}

/// The mean degrees a simple connected graph of `n` vertices can have, where the graph has
/// n x degree / 2 edges (rounded down): at least n - 1 edges (connected), at most every pair
/// (n - 1 each); `None` for fewer than 2 vertices.
fn viger_latapy_degrees(n: u32) -> Option<(u32, u32)> {
    match n {
        0 | 1 => None,
        2 => Some((1, 1)),
        _ => Some((2, n - 1)),
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

/// The edges of a simple connected graph of `n` vertices and n x `degree` / 2 edges (rounded
/// down), `degree` within [`viger_latapy_degrees`], its degrees spread around `degree`.
fn simple_connected(n: u32, degree: u32, rng: &mut SplitMix) -> Vec<(u32, u32)> {
    let target = u64::from(n) * u64::from(degree) / 2;
    let pairs = u64::from(n) * (u64::from(n) - 1) / 2;
    if 2 * target > pairs {
        return dense_connected(n, target, rng);
    }
    let mut edges = paired(n, degree, rng);
    join_components(n, &mut edges, rng);
    edges.sort_unstable();
    if (edges.len() as u64) < target {
        add_random_edges(n, &mut edges, target, rng);
    } else {
        drop_cycle_edges(n, &mut edges, target, rng);
    }
    edges
}

/// Random pairing of edge ends, each vertex given from degree / 2 to 3 x degree / 2 of them,
/// loops and repeated edges dropped: the edges sorted.
fn paired(n: u32, degree: u32, rng: &mut SplitMix) -> Vec<(u32, u32)> {
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
    shuffle(&mut ends, rng);
    let mut edges: Vec<(u32, u32)> = ends
        .chunks_exact(2)
        .filter(|p| p[0] != p[1])
        .map(|p| (p[0].min(p[1]), p[0].max(p[1])))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    edges
}

fn shuffle<T>(items: &mut [T], rng: &mut SplitMix) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i as u64 + 1) as usize);
    }
}

/// Union-find's root of `v`, halving the path on the way.
fn root(parent: &mut [u32], mut v: u32) -> u32 {
    while parent[v as usize] != v {
        parent[v as usize] = parent[parent[v as usize] as usize];
        v = parent[v as usize];
    }
    v
}

/// Joins the components of `edges`: each one's smallest vertex to a random vertex already
/// joined (the new edges appended).
fn join_components(n: u32, edges: &mut Vec<(u32, u32)>, rng: &mut SplitMix) {
    let mut parent: Vec<u32> = (0..n).collect();
    for &(u, v) in edges.iter() {
        let (a, b) = (root(&mut parent, u), root(&mut parent, v));
        parent[a.max(b) as usize] = a.min(b);
    }
    for v in 1..n {
        if root(&mut parent, v) == v {
            let any = rng.below(u64::from(v)) as u32;
            edges.push((any, v));
        }
    }
}

/// A random pair of distinct vertices, smaller first.
fn random_pair(n: u32, rng: &mut SplitMix) -> (u32, u32) {
    let u = rng.below(u64::from(n)) as u32;
    let mut v = rng.below(u64::from(n) - 1) as u32;
    if v >= u {
        v += 1;
    }
    (u.min(v), u.max(v))
}

/// Adds random edges absent from the sorted `edges` until there are `target` (at most half of
/// all pairs, so that most draws are new); `edges` stays sorted.
fn add_random_edges(n: u32, edges: &mut Vec<(u32, u32)>, target: u64, rng: &mut SplitMix) {
    while (edges.len() as u64) < target {
        let missing = (target - edges.len() as u64) as usize;
        let mut drawn: Vec<(u32, u32)> = (0..missing).map(|_| random_pair(n, rng)).collect();
        drawn.sort_unstable();
        drawn.dedup();
        drawn.retain(|pair| edges.binary_search(pair).is_err());
        shuffle(&mut drawn, rng);
        drawn.truncate(missing);
        edges.extend(drawn);
        edges.sort_unstable();
    }
}

/// Drops random edges that close a cycle (the graph stays connected) until `target` are
/// left; `edges` (connected, at least `target` >= n - 1 of them) stays sorted.
fn drop_cycle_edges(n: u32, edges: &mut Vec<(u32, u32)>, target: u64, rng: &mut SplitMix) {
    let mut excess = edges.len() - target as usize;
    if excess == 0 {
        return;
    }
    let mut order: Vec<usize> = (0..edges.len()).collect();
    shuffle(&mut order, rng);
    let mut parent: Vec<u32> = (0..n).collect();
    let mut dropped = vec![false; edges.len()];
    // A spanning tree in reverse random order keeps its edges; the other edges, met in
    // that order, close a cycle and may go.
    for &at in order.iter().rev() {
        let (u, v) = edges[at];
        let (a, b) = (root(&mut parent, u), root(&mut parent, v));
        if a != b {
            parent[a.max(b) as usize] = a.min(b);
        } else if excess > 0 {
            dropped[at] = true;
            excess -= 1;
        }
    }
    let mut at = 0;
    edges.retain(|_| {
        at += 1;
        !dropped[at - 1]
    });
}

/// A simple connected graph of `n` vertices and `target` edges, more than half of all pairs:
/// a random tree, then every other pair listed and `target` - (n - 1) of them picked.
fn dense_connected(n: u32, target: u64, rng: &mut SplitMix) -> Vec<(u32, u32)> {
    let order = permutation(n, rng);
    let mut edges: Vec<(u32, u32)> = (1..n as usize)
        .map(|i| {
            let (u, v) = (order[i], order[rng.below(i as u64) as usize]);
            (u.min(v), u.max(v))
        })
        .collect();
    edges.sort_unstable();
    let mut others: Vec<(u32, u32)> = (0..n)
        .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
        .filter(|pair| edges.binary_search(pair).is_err())
        .collect();
    let keep = target as usize - edges.len();
    for i in 0..keep {
        let j = i + rng.below((others.len() - i) as u64) as usize;
        others.swap(i, j);
    }
    edges.extend_from_slice(&others[..keep]);
    edges.sort_unstable();
    edges
}

#[cfg(test)]
mod tests;
