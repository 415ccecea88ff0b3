//! A directed graph in compressed sparse rows: 64-bit arc offsets, 32-bit vertex ids and
//! optional 32-bit weights, built from CSR arrays or a list of edges (parallel arcs and
//! self-loops kept, and counted) and checked as it is built, so that every search can index
//! it without a bounds panic; with its reverse for the searches that look at in-neighbours.
//! Every search reads a [`GraphView`]: an owned [`Graph`]'s arrays, or a caller's arrays
//! borrowed where they are ([`GraphView::from_csr`], checked the same way), so that a graph
//! held elsewhere (numpy's arrays in the Python package) is searched without a copy.

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

    /// The graph with every arc reversed (in-neighbours as out-neighbours): a transpose by
    /// counting, without a list of arcs.
    pub fn reversed(&self) -> Graph {
        let n = self.vertices();
        let mut offsets = vec![0u64; n + 1];
        for &v in self.targets {
            offsets[v as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; self.targets.len()];
        let mut weights = self.weights.as_ref().map(|w| vec![0u32; w.len()]);
        for u in 0..n as u32 {
            for at in self.arc_range(u) {
                let v = self.targets[at] as usize;
                let to = next[v] as usize;
                next[v] += 1;
                targets[to] = u;
                if let Some(weights) = weights.as_mut() {
                    weights[to] = self.weight(at);
                }
            }
        }
        Graph {
            offsets,
            targets,
            weights,
        }
    }

    /// The graph with every arc also reversed (an undirected graph as arcs both ways);
    /// self-loops are not doubled.
    pub fn symmetrised(&self) -> Graph {
        let mut arcs = self.arc_list();
        let back: Vec<Arc> = arcs
            .iter()
            .filter(|(u, v, _)| u != v)
            .map(|&(u, v, w)| (v, u, w))
            .collect();
        arcs.extend(back);
        Graph::from_arcs(self.vertices(), &arcs, self.weights.is_some())
            .expect("the symmetrisation of a valid graph is valid")
    }

    /// The graph searches run on: each vertex's arcs sorted by head, self-loops dropped and
    /// parallel arcs merged into the lightest (no distance or level changes), as GAPBS builds
    /// its graphs: fewer arcs to scan and neighbours in order. Each vertex's arcs are sorted
    /// on their own, slices of vertices on every core.
    pub fn simplified(&self) -> Graph {
        let n = self.vertices();
        let ranges = vertex_ranges(self.offsets, SLICE_ARCS);
        // Each vertex's (head, weight) pairs sorted, and how many survive the merge.
        let mut pairs: Vec<(u32, u32)> = (0..self.targets.len())
            .into_par_iter()
            .map(|at| (self.targets[at], self.weight(at)))
            .collect();
        let mut kept = vec![0u64; n + 1];
        split_by_ranges(&mut pairs, self.offsets, &ranges)
            .into_par_iter()
            .zip(split_counts(&mut kept[1..], &ranges))
            .for_each(|((range, slice), counts)| {
                let base = self.offsets[range.0] as usize;
                for (v, count) in (range.0..range.1).zip(counts.iter_mut()) {
                    let span = self.offsets[v] as usize - base..self.offsets[v + 1] as usize - base;
                    let row = &mut slice[span];
                    row.sort_unstable();
                    let mut last = None;
                    for &(head, _) in row.iter() {
                        if head as usize != v && last != Some(head) {
                            *count += 1;
                        }
                        last = Some(head);
                    }
                }
            });
        for v in 0..n {
            kept[v + 1] += kept[v];
        }
        let arcs = kept[n] as usize;
        let mut targets = vec![0u32; arcs];
        let mut weights = self.weights.as_ref().map(|_| vec![0u32; arcs]);
        let mut outputs: Vec<(&mut [u32], Option<&mut [u32]>)> = Vec::with_capacity(ranges.len());
        {
            let (mut rest_t, mut rest_w) = (&mut targets[..], weights.as_deref_mut());
            for &(from, to) in &ranges {
                let len = (kept[to] - kept[from]) as usize;
                let (head, tail) = rest_t.split_at_mut(len);
                rest_t = tail;
                let w = rest_w.take().map(|w| {
                    let (head, tail) = w.split_at_mut(len);
                    rest_w = Some(tail);
                    head
                });
                outputs.push((head, w));
            }
        }
        let pairs = &pairs;
        outputs
            .into_par_iter()
            .zip(&ranges)
            .for_each(|((out_t, mut out_w), &(from, to))| {
                let mut at = 0;
                for v in from..to {
                    let row = &pairs[self.offsets[v] as usize..self.offsets[v + 1] as usize];
                    let mut last = None;
                    for &(head, weight) in row {
                        if head as usize != v && last != Some(head) {
                            out_t[at] = head;
                            if let Some(w) = out_w.as_deref_mut() {
                                w[at] = weight;
                            }
                            at += 1;
                        }
                        last = Some(head);
                    }
                }
            });
        Graph {
            offsets: kept,
            targets,
            weights,
        }
    }

    /// Whether the graph is as [`GraphView::simplified`] leaves it: each vertex's heads strictly
    /// increasing, no self-loop.
    pub fn is_simple(&self) -> bool {
        (0..self.vertices() as u32).into_par_iter().all(|u| {
            let heads = self.neighbours(u);
            heads.windows(2).all(|w| w[0] < w[1]) && heads.binary_search(&u).is_err()
        })
    }

    /// Statistics for `thicket graph info`.
    pub fn stats(&self) -> GraphStats {
        let n = self.vertices();
        let mut self_loops = 0;
        let mut parallel = 0;
        let mut has_in = vec![false; n];
        let mut max_out = 0;
        for u in 0..n as u32 {
            let mut heads: Vec<u32> = self.neighbours(u).to_vec();
            max_out = max_out.max(heads.len() as u64);
            self_loops += heads.iter().filter(|&&v| v == u).count() as u64;
            heads.sort_unstable();
            parallel += heads.windows(2).filter(|w| w[0] == w[1]).count() as u64;
            for &v in &heads {
                has_in[v as usize] = true;
            }
        }
        let isolated = (0..n)
            .filter(|&v| !has_in[v] && self.degree(v as u32) == 0)
            .count();
        GraphStats {
            vertices: n,
            arcs: self.arcs(),
            self_loops,
            parallel_arcs: parallel,
            isolated,
            max_out_degree: max_out,
            mean_out_degree: if n == 0 {
                0.0
            } else {
                self.arcs() as f64 / n as f64
            },
            symmetric: self.is_symmetric(),
            weight_range: self
                .weights
                .as_ref()
                .and_then(|w| Some((*w.iter().min()?, *w.iter().max()?))),
        }
    }

    /// Whether every arc has its reverse with the same weight (as many times).
    pub fn is_symmetric(&self) -> bool {
        let mut forward = self.arc_list();
        let mut backward: Vec<Arc> = forward.iter().map(|&(u, v, w)| (v, u, w)).collect();
        forward.sort_unstable();
        backward.sort_unstable();
        forward == backward
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arcs_become_rows_with_parallel_arcs_and_loops_kept_and_counted() {
        let arcs = [(0, 1, 5), (0, 1, 3), (1, 1, 2), (2, 0, 1)];
        let g = Graph::from_arcs(4, &arcs, true).unwrap();
        assert_eq!(g.offsets, [0, 2, 3, 4, 4]);
        assert_eq!(g.neighbours(0), [1, 1]);
        assert_eq!(g.weight(1), 3);
        let stats = g.stats();
        assert_eq!(stats.self_loops, 1);
        assert_eq!(stats.parallel_arcs, 1);
        assert_eq!(stats.isolated, 1);
        assert_eq!(stats.max_out_degree, 2);
        assert!(!stats.symmetric);
        assert_eq!(stats.weight_range, Some((1, 5)));
        let sym = g.symmetrised();
        assert_eq!(sym.arcs(), 7);
        assert!(sym.is_symmetric());
        assert_eq!(g.reversed().neighbours(1), [0, 0, 1]);
        let simple = g.simplified();
        assert!(!g.is_simple() && simple.is_simple());
        assert_eq!(simple.neighbours(0), [1]);
        assert_eq!(simple.weight(0), 3);
        assert!(simple.neighbours(1).is_empty());
    }

    /// The simple graph as a list: every arc sorted, self-loops and all but the lightest of
    /// parallel arcs dropped (the reference [`Graph::simplified`] must match).
    fn simplified_by_sorting(g: &Graph) -> Graph {
        let mut arcs = g.arc_list();
        arcs.sort_unstable();
        arcs.dedup_by_key(|a| (a.0, a.1));
        arcs.retain(|a| a.0 != a.1);
        Graph::from_arcs(g.vertices(), &arcs, g.weights.is_some()).unwrap()
    }

    #[test]
    fn simplified_matches_the_sorted_list() {
        let mut rng = thicket_core::SplitMix::new(3);
        for (n, m) in [(1, 3), (5, 40), (300, 5000), (2000, 200_000)] {
            let arcs: Vec<Arc> = (0..m)
                .map(|_| {
                    (
                        rng.below(n) as u32,
                        rng.below(n) as u32,
                        rng.below(9) as u32,
                    )
                })
                .collect();
            let g = Graph::from_arcs(n as usize, &arcs, true).unwrap();
            let simple = g.simplified();
            assert_eq!(simple, simplified_by_sorting(&g), "{n} {m}");
            assert!(simple.is_simple());
        }
    }

    #[test]
    fn a_vertex_outside_the_graph_is_refused() {
        let err = Graph::from_arcs(2, &[(0, 2, 1)], false).unwrap_err();
        assert!(err.to_string().contains("0..2"), "{err}");
        let err = Graph::from_edges(2, &[(2, 0)]).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    }

    #[test]
    fn csr_arrays_are_checked_before_they_become_a_graph() {
        let g = Graph::from_csr(vec![0, 2, 3, 3], vec![1, 2, 0], Some(&[1.0, 4.0, 2.0])).unwrap();
        assert_eq!(g.neighbours(0), [1, 2]);
        assert_eq!(g.weights(), Some(&[1, 4, 2][..]));
        let refused =
            |offsets: Vec<u64>, targets: Vec<u32>, weights: Option<&[f64]>| match Graph::from_csr(
                offsets, targets, weights,
            ) {
                Err(Error::InvalidInput(why)) => why,
                other => panic!("accepted: {other:?}"),
            };
        assert!(refused(vec![], vec![], None).contains("one more"));
        assert!(refused(vec![1, 1], vec![0], None).contains("start at 1"));
        assert!(refused(vec![0, 2, 1], vec![0, 0], None).contains("decrease"));
        assert!(refused(vec![0, 1, 1], vec![0, 0], None).contains("end at 1"));
        assert!(refused(vec![0, 1], vec![1], None).contains("outside 0..1"));
        assert!(refused(vec![0, 1], vec![0], Some(&[])).contains("0 weights"));
        assert!(refused(vec![0, 1], vec![0], Some(&[-1.0])).contains("weights >= 0"));
        assert!(refused(vec![0, 1], vec![0], Some(&[f64::NAN])).contains("NaN"));
        assert!(refused(vec![0, 1], vec![0], Some(&[0.5])).contains("whole numbers"));
    }

    #[test]
    fn a_borrowed_graph_is_checked_as_an_owned_one() {
        let refused =
            |offsets: &[u64], targets: &[u32], weights: Option<&[u32]>| match GraphView::from_csr(
                offsets, targets, weights,
            ) {
                Err(Error::InvalidInput(why)) => why,
                other => panic!("accepted: {other:?}"),
            };
        assert!(refused(&[], &[], None).contains("one more"));
        assert!(refused(&[1, 1], &[0], None).contains("start at 1"));
        assert!(refused(&[0, 2, 1], &[0, 0], None).contains("decrease"));
        assert!(refused(&[0, 1, 1], &[0, 0], None).contains("end at 1"));
        assert!(refused(&[0, 1], &[1], None).contains("arc 0 ends at 1, outside 0..1"));
        assert!(refused(&[0, 1], &[0], Some(&[])).contains("0 weights"));
        let g = Graph::from_csr(vec![0, 2, 3, 3], vec![1, 2, 0], Some(&[1.0, 4.0, 2.0])).unwrap();
        let view = GraphView::from_csr(g.offsets(), g.targets(), g.weights()).unwrap();
        assert_eq!(view, g.view());
        assert_eq!(view.to_graph(), g);
        assert_eq!(whole_weights(&[1.0, 4.0]).unwrap(), [1, 4]);
        assert!(whole_weights(&[1.0, -4.0]).is_err());
    }

    /// The searches on a caller's arrays, borrowed, answer as they do on the owned graph: a
    /// graph with parallel arcs and self-loops (searched simplified) and a simple symmetric
    /// one (searched where it is, as its own reverse).
    #[test]
    fn a_borrowed_graph_is_searched_as_the_owned_one() {
        use crate::{bfs, search_view, sssp, Problem, SearchOptions, Strategy};
        let mut rng = thicket_core::SplitMix::new(5);
        let arcs: Vec<Arc> = (0..6000)
            .map(|_| {
                (
                    rng.below(700) as u32,
                    rng.below(700) as u32,
                    rng.below(9) as u32,
                )
            })
            .collect();
        let rough = Graph::from_arcs(700, &arcs, true).unwrap();
        let kronecker = crate::Generator::Kronecker {
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
            let view =
                GraphView::from_csr(graph.offsets(), graph.targets(), graph.weights()).unwrap();
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
                let borrowed = search_view(view, symmetric, problem, &sources, &options).unwrap();
                assert_eq!(borrowed.verified, Some(true), "{strategy:?}");
                let distances = |run: &crate::SearchRun| -> Vec<Vec<u64>> {
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

    #[test]
    fn weighted_edges_are_checked() {
        let g = Graph::from_weighted_edges(3, &[(0, 1, 2.0), (1, 2, 0.0)]).unwrap();
        assert_eq!(g.weights(), Some(&[2, 0][..]));
        for bad in [-3.0, f64::NAN, f64::INFINITY, 1.5] {
            let err = Graph::from_weighted_edges(2, &[(0, 1, bad)]).unwrap_err();
            assert!(matches!(err, Error::InvalidInput(_)), "{bad}: {err}");
        }
    }
}
