//! The graphs derived from a [`GraphView`]: its reverse, its symmetric closure, its simple
//! form (sorted, self-loops dropped, parallel arcs merged into the lightest), and what it
//! says of itself (simple, symmetric, its degree statistics).

use rayon::prelude::*;

use super::{
    split_by_ranges, split_counts, vertex_ranges, Arc, Graph, GraphStats, GraphView, SLICE_ARCS,
};

impl GraphView<'_> {
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
