//! A directed graph in compressed sparse rows: 64-bit arc offsets, 32-bit vertex ids and
//! optional 32-bit weights, built from CSR arrays or a list of edges (parallel arcs and
//! self-loops kept, and counted) and checked as it is built, so that every search can index
//! it without a bounds panic; with its reverse for the searches that look at in-neighbours.
//! Every search reads a [`GraphView`]: an owned [`Graph`]'s arrays, or a caller's arrays
//! borrowed where they are ([`GraphView::from_csr`], checked the same way), so that a graph
//! held elsewhere (numpy's arrays in the Python package) is searched without a copy.

mod derived;

use rayon::prelude::*;
use thicket_core::{Error, Result};

/// One arc: tail, head, weight (1 for an unweighted graph).
pub type Arc = (u32, u32, u32);

/// A graph in CSR form: the arcs out of vertex `v` are `targets[offsets\[v\]..offsets[v + 1]]`
/// (and their weights at the same positions).
///
/// Built by [`Graph::from_csr`], [`Graph::from_edges`], [`Graph::from_weighted_edges`], a
/// file reader or a generator, each of which checks what it is given: a `Graph` always has
/// offsets from 0 that never decrease and end at the arc count, heads that are vertices, and
/// one weight per arc if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// One entry per vertex and one more: where each vertex's arcs start.
    pub(crate) offsets: Vec<u64>,
    /// The arcs' heads.
    pub(crate) targets: Vec<u32>,
    /// The arcs' weights, if the graph has them.
    pub(crate) weights: Option<Vec<u32>>,
}

/// A graph's CSR arrays, borrowed: what the searches read. [`Graph::view`] gives an owned
/// graph's; [`GraphView::from_csr`] checks a caller's arrays as [`Graph::from_csr`] does and
/// borrows them where they are (a scale-20 Kronecker graph's arcs are 134 MB that a copy
/// would take).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphView<'a> {
    /// One entry per vertex and one more: where each vertex's arcs start.
    pub(crate) offsets: &'a [u64],
    /// The arcs' heads.
    pub(crate) targets: &'a [u32],
    /// The arcs' weights, if the graph has them.
    pub(crate) weights: Option<&'a [u32]>,
}

/// What `thicket graph info` reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GraphStats {
    /// Vertices.
    pub vertices: usize,
    /// Arcs (directed edges), parallel arcs and self-loops included.
    pub arcs: u64,
    /// Arcs from a vertex to itself.
    pub self_loops: u64,
    /// Arcs beyond the first between the same ordered pair of vertices.
    pub parallel_arcs: u64,
    /// Vertices with no arc in or out.
    pub isolated: usize,
    /// The largest out-degree.
    pub max_out_degree: u64,
    /// Arcs per vertex.
    pub mean_out_degree: f64,
    /// Whether every arc u -> v has an arc v -> u (of the same weight).
    pub symmetric: bool,
    /// The smallest and largest weight, if weighted.
    pub weight_range: Option<(u32, u32)>,
}

/// Arcs per slice of vertices handed to one thread.
const SLICE_ARCS: u64 = 1 << 16;

/// Ranges of vertices of about `arcs` arcs each (a vertex of more arcs is a range alone),
/// covering every vertex.
pub(crate) fn vertex_ranges(offsets: &[u64], arcs: u64) -> Vec<(usize, usize)> {
    let n = offsets.len() - 1;
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < n {
        let goal = offsets[start] + arcs;
        let end = offsets.partition_point(|&o| o < goal).clamp(start + 1, n);
        ranges.push((start, end));
        start = end;
    }
    ranges
}

/// `items` (one per arc) cut at `ranges` of vertices, each piece with its range.
pub(crate) fn split_by_ranges<'a, T>(
    items: &'a mut [T],
    offsets: &[u64],
    ranges: &[(usize, usize)],
) -> Vec<((usize, usize), &'a mut [T])> {
    let mut rest = items;
    let mut pieces = Vec::with_capacity(ranges.len());
    for &(from, to) in ranges {
        let (piece, tail) = rest.split_at_mut((offsets[to] - offsets[from]) as usize);
        rest = tail;
        pieces.push(((from, to), piece));
    }
    pieces
}

/// `counts` (one per vertex) cut at `ranges`.
pub(crate) fn split_counts<'a>(
    counts: &'a mut [u64],
    ranges: &[(usize, usize)],
) -> Vec<&'a mut [u64]> {
    let mut rest = counts;
    let mut pieces = Vec::with_capacity(ranges.len());
    for &(from, to) in ranges {
        let (piece, tail) = rest.split_at_mut(to - from);
        rest = tail;
        pieces.push(piece);
    }
    pieces
}

/// The most vertices a graph has: ids are 32-bit and `u32::MAX` means "no vertex".
fn check_vertices(vertices: usize) -> Result<()> {
    if vertices >= u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "{vertices} vertices: at most {} fit 32-bit ids",
            u32::MAX - 1
        )));
    }
    Ok(())
}

/// Weight `at` as the searches take it: a whole number in `0..=u32::MAX` (distances are exact
/// integers); a negative, NaN, fractional or larger weight is refused.
fn checked_weight(value: f64, at: usize) -> Result<u32> {
    if value.is_nan() || value < 0.0 {
        return Err(Error::InvalidInput(format!(
            "weight {at} is {value}: shortest paths need weights >= 0"
        )));
    }
    if value.fract() != 0.0 || value > f64::from(u32::MAX) {
        return Err(Error::InvalidInput(format!(
            "weight {at} is {value}: weights are whole numbers up to {} (the searches bucket \
             distances as integers, as GAPBS does; scale fractional weights to whole numbers, \
             e.g. round(w * 1000))",
            u32::MAX
        )));
    }
    Ok(value as u32)
}

/// `len` copies of `value`, or `None` where the memory cannot be had (a size a file or a
/// generator asked for must end in an error, never an abort).
fn filled<T: Copy>(len: usize, value: T) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize(len, value);
    Some(v)
}

/// The bytes [`Graph::from_arcs`] takes for `vertices` vertices and `arcs` arcs beside the
/// arc list it is given (offsets and their cursor, heads, weights); `None` past 64 bits.
pub(crate) fn build_bytes(vertices: u64, arcs: u64, weighted: bool) -> Option<u64> {
    let per_arc = if weighted { 8 } else { 4 };
    vertices
        .checked_add(1)?
        .checked_mul(16)?
        .checked_add(arcs.checked_mul(per_arc)?)
}

/// Checks CSR arrays as [`Graph::from_csr`] describes them: offsets from 0, never
/// decreasing, ending at the arc count, and every head a vertex (the arcs checked on every
/// core: tens of millions for a large graph).
fn check_csr(offsets: &[u64], targets: &[u32]) -> Result<()> {
    let Some(vertices) = offsets.len().checked_sub(1) else {
        return Err(Error::InvalidInput(
            "the offsets need one entry per vertex and one more".into(),
        ));
    };
    check_vertices(vertices)?;
    if offsets[0] != 0 {
        return Err(Error::InvalidInput(format!(
            "the offsets start at {}, not 0",
            offsets[0]
        )));
    }
    if let Some(v) = (0..vertices).find(|&v| offsets[v + 1] < offsets[v]) {
        return Err(Error::InvalidInput(format!(
            "the offsets decrease after vertex {v} ({} then {})",
            offsets[v],
            offsets[v + 1]
        )));
    }
    if offsets[vertices] != targets.len() as u64 {
        return Err(Error::InvalidInput(format!(
            "the offsets end at {}, not at the {} arcs",
            offsets[vertices],
            targets.len()
        )));
    }
    // Slices of the arcs tested whole on every core, without a branch per arc (rayon's
    // `position_first` per arc took a second for 31 M arcs), then the first searched.
    const SLICE: usize = 1 << 18;
    let outside = |&v: &u32| v as usize >= vertices;
    if let Some(at) = targets
        .par_chunks(SLICE)
        .position_first(|slice| slice.iter().fold(false, |any, v| any | outside(v)))
        .and_then(|slice| {
            let start = slice * SLICE;
            targets[start..]
                .iter()
                .position(outside)
                .map(|at| start + at)
        })
    {
        return Err(Error::InvalidInput(format!(
            "arc {at} ends at {}, outside 0..{vertices}",
            targets[at]
        )));
    }
    Ok(())
}

/// `weights` for `arcs` arcs: a count that differs is bad input.
fn weight_count(weights: usize, arcs: usize) -> Error {
    Error::InvalidInput(format!("{weights} weights for {arcs} arcs"))
}

/// `weights` as the searches take them, each a whole number in `0..=u32::MAX` (a negative,
/// NaN, fractional or larger weight is an [`Error::InvalidInput`] naming the first): the
/// weights a caller holds as floating point (scipy's matrices), for [`GraphView::from_csr`].
pub fn whole_weights(weights: &[f64]) -> Result<Vec<u32>> {
    weights
        .iter()
        .enumerate()
        .map(|(at, &x)| checked_weight(x, at))
        .collect()
}

impl Graph {
    /// The graph of the CSR arrays `offsets` (one per vertex and one more, from 0, never
    /// decreasing, ending at the arc count) and `targets` (each arc's head), with `weights`
    /// (one per arc, whole numbers `0..=u32::MAX`) if given. Anything else is an
    /// [`Error::InvalidInput`] naming the first fault.
    pub fn from_csr(
        offsets: Vec<u64>,
        targets: Vec<u32>,
        weights: Option<&[f64]>,
    ) -> Result<Graph> {
        check_csr(&offsets, &targets)?;
        let weights = weights
            .map(|w| {
                if w.len() != targets.len() {
                    return Err(weight_count(w.len(), targets.len()));
                }
                whole_weights(w)
            })
            .transpose()?;
        Ok(Graph {
            offsets,
            targets,
            weights,
        })
    }

    /// The unweighted graph of `vertices` vertices with the arcs `edges` (tail, head), in
    /// their order per tail; an id outside `0..vertices` is an [`Error::InvalidInput`].
    pub fn from_edges(vertices: usize, edges: &[(u32, u32)]) -> Result<Graph> {
        let arcs: Vec<Arc> = edges.iter().map(|&(u, v)| (u, v, 1)).collect();
        Graph::from_arcs(vertices, &arcs, false)
    }

    /// The weighted graph of `vertices` vertices with the arcs `edges` (tail, head, weight);
    /// an id outside `0..vertices` or a weight that is not a whole number in `0..=u32::MAX`
    /// (negative, NaN) is an [`Error::InvalidInput`].
    pub fn from_weighted_edges(vertices: usize, edges: &[(u32, u32, f64)]) -> Result<Graph> {
        let arcs = edges
            .iter()
            .enumerate()
            .map(|(at, &(u, v, w))| Ok((u, v, checked_weight(w, at)?)))
            .collect::<Result<Vec<Arc>>>()?;
        Graph::from_arcs(vertices, &arcs, true)
    }

    /// Builds the graph of `vertices` vertices from `arcs` (ids below `vertices`); `weighted`
    /// keeps the weights. Memory that cannot be had is an [`Error::TooLarge`].
    pub(crate) fn from_arcs(vertices: usize, arcs: &[Arc], weighted: bool) -> Result<Graph> {
        check_vertices(vertices)?;
        let too_large = || {
            Error::TooLarge(format!(
                "a graph of {vertices} vertices and {} arcs does not fit in memory",
                arcs.len()
            ))
        };
        let mut offsets = filled(vertices + 1, 0u64).ok_or_else(too_large)?;
        for &(u, v, _) in arcs {
            if u as usize >= vertices || v as usize >= vertices {
                return Err(Error::InvalidInput(format!(
                    "arc {u} -> {v} names a vertex outside 0..{vertices}"
                )));
            }
            offsets[u as usize + 1] += 1;
        }
        for v in 0..vertices {
            offsets[v + 1] += offsets[v];
        }
        let mut next = filled(vertices + 1, 0u64).ok_or_else(too_large)?;
        next.copy_from_slice(&offsets);
        let mut targets = filled(arcs.len(), 0u32).ok_or_else(too_large)?;
        let mut weights = match weighted {
            true => Some(filled(arcs.len(), 0u32).ok_or_else(too_large)?),
            false => None,
        };
        for &(u, v, w) in arcs {
            let at = next[u as usize] as usize;
            next[u as usize] += 1;
            targets[at] = v;
            if let Some(weights) = weights.as_mut() {
                weights[at] = w;
            }
        }
        Ok(Graph {
            offsets,
            targets,
            weights,
        })
    }

    /// The graph's arrays as the searches read them.
    pub fn view(&self) -> GraphView<'_> {
        GraphView {
            offsets: &self.offsets,
            targets: &self.targets,
            weights: self.weights.as_deref(),
        }
    }

    /// Where each vertex's arcs start in [`Graph::targets`], and the arc count last.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The arcs' heads, in CSR order.
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// The arcs' weights in CSR order, if the graph has them.
    pub fn weights(&self) -> Option<&[u32]> {
        self.weights.as_deref()
    }

    /// Vertices.
    pub fn vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Arcs.
    pub fn arcs(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The range of `v`'s arcs in `targets`.
    pub fn arc_range(&self, v: u32) -> std::ops::Range<usize> {
        self.view().arc_range(v)
    }

    /// `v`'s out-neighbours.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        self.view().neighbours(v)
    }

    /// `v`'s out-degree.
    pub fn degree(&self, v: u32) -> u64 {
        self.view().degree(v)
    }

    /// The weight of arc `at` (1 where the graph has none).
    pub fn weight(&self, at: usize) -> u32 {
        self.view().weight(at)
    }

    /// Every arc, in CSR order.
    pub fn arc_list(&self) -> Vec<Arc> {
        self.view().arc_list()
    }

    /// The graph with every arc reversed ([`GraphView::reversed`]).
    pub fn reversed(&self) -> Graph {
        self.view().reversed()
    }

    /// The graph with every arc also reversed ([`GraphView::symmetrised`]).
    pub fn symmetrised(&self) -> Graph {
        self.view().symmetrised()
    }

    /// The graph searches run on ([`GraphView::simplified`]).
    pub fn simplified(&self) -> Graph {
        self.view().simplified()
    }

    /// Whether the graph is as [`Graph::simplified`] leaves it ([`GraphView::is_simple`]).
    pub fn is_simple(&self) -> bool {
        self.view().is_simple()
    }

    /// Statistics for `thicket graph info`.
    pub fn stats(&self) -> GraphStats {
        self.view().stats()
    }

    /// Whether every arc has its reverse with the same weight (as many times).
    pub fn is_symmetric(&self) -> bool {
        self.view().is_symmetric()
    }
}

impl<'a> From<&'a Graph> for GraphView<'a> {
    fn from(graph: &'a Graph) -> GraphView<'a> {
        graph.view()
    }
}

impl<'a> GraphView<'a> {
    /// The CSR arrays `offsets` and `targets` of a graph, with `weights` (one per arc) if
    /// given, borrowed where they are after the checks of [`Graph::from_csr`] (weights a
    /// caller holds as floating point pass through [`whole_weights`] first).
    pub fn from_csr(
        offsets: &'a [u64],
        targets: &'a [u32],
        weights: Option<&'a [u32]>,
    ) -> Result<GraphView<'a>> {
        check_csr(offsets, targets)?;
        if let Some(w) = weights.filter(|w| w.len() != targets.len()) {
            return Err(weight_count(w.len(), targets.len()));
        }
        Ok(GraphView {
            offsets,
            targets,
            weights,
        })
    }

    /// An owned copy of the graph.
    pub fn to_graph(self) -> Graph {
        Graph {
            offsets: self.offsets.to_vec(),
            targets: self.targets.to_vec(),
            weights: self.weights.map(<[u32]>::to_vec),
        }
    }

    /// Where each vertex's arcs start in [`GraphView::targets`], and the arc count last.
    pub fn offsets(&self) -> &'a [u64] {
        self.offsets
    }

    /// The arcs' heads, in CSR order.
    pub fn targets(&self) -> &'a [u32] {
        self.targets
    }

    /// The arcs' weights in CSR order, if the graph has them.
    pub fn weights(&self) -> Option<&'a [u32]> {
        self.weights
    }

    /// Vertices.
    pub fn vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Arcs.
    pub fn arcs(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The range of `v`'s arcs in `targets`.
    pub fn arc_range(&self, v: u32) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// `v`'s out-neighbours.
    pub fn neighbours(&self, v: u32) -> &'a [u32] {
        &self.targets[self.arc_range(v)]
    }

    /// `v`'s out-degree.
    pub fn degree(&self, v: u32) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// The weight of arc `at` (1 where the graph has none).
    pub fn weight(&self, at: usize) -> u32 {
        self.weights.map_or(1, |w| w[at])
    }

    /// Every arc, in CSR order.
    pub fn arc_list(&self) -> Vec<Arc> {
        let mut arcs = Vec::with_capacity(self.targets.len());
        for u in 0..self.vertices() as u32 {
            for at in self.arc_range(u) {
                arcs.push((u, self.targets[at], self.weight(at)));
            }
        }
        arcs
    }
}

#[cfg(test)]
mod tests;
