//! The graph every search reads (each vertex's arcs sorted by head, no self-loop, parallel
//! arcs merged into the lightest), built on every core from a list of undirected edges, as
//! GAPBS builds the graphs it generates: each edge's two arcs counted per tail, placed
//! through atomic cursors (the order they land in within a row does not matter, since each
//! row is sorted next, so the graph is the same on any number of threads), each row sorted
//! and its repeated heads dropped, then the rows packed into the final arrays.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use thicket_core::{Error, Progress, Result};

use crate::graph::{split_by_ranges, split_counts, vertex_ranges, Graph};

/// One undirected edge: its two ends and its weight.
pub(crate) type Edge = (u32, u32, u32);

/// Edges placed between two reports of progress.
const BLOCK_EDGES: usize = 1 << 22;
/// Arcs per slice of vertices one thread sorts.
const SLICE_ARCS: u64 = 1 << 16;

/// `AtomicU64` views `u64` memory below: the two must share size and alignment.
const _: () = assert!(
    std::mem::size_of::<AtomicU64>() == std::mem::size_of::<u64>()
        && std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>()
);

/// The most bytes [`simple_graph`] holds at once for `vertices` vertices and the `edges`
/// it is given (counted with them); `None` past 64 bits. While placing: the edges, two
/// packed arcs (8 bytes) per edge, offsets and cursors; while packing: the packed arcs, the
/// final heads and weights, two offsets.
pub(crate) fn bytes(vertices: u64, edges: u64) -> Option<u64> {
    let arcs = edges.checked_mul(2)?;
    let per_vertex = vertices.checked_add(1)?.checked_mul(16)?;
    let placing = edges
        .checked_mul(12)?
        .checked_add(arcs.checked_mul(8)?)?
        .checked_add(per_vertex)?;
    let packing = arcs.checked_mul(16)?.checked_add(per_vertex)?;
    Some(placing.max(packing))
}

/// A vector of `len` copies of `value`, filled on every core, or [`Error::TooLarge`] naming
/// `what` where the memory cannot be had.
fn filled<T: Copy + Send + Sync>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::TooLarge(format!("{what} does not fit in memory")))?;
    v.par_extend(rayon::iter::repeat_n(value, len));
    Ok(v)
}

/// A head and its weight in one word, ordered by head, then weight.
fn pack(head: u32, weight: u32) -> u64 {
    (u64::from(head) << 32) | u64::from(weight)
}

/// The head of a packed arc.
fn head(packed: u64) -> u32 {
    (packed >> 32) as u32
}

/// The simple symmetric graph of `vertices` vertices whose arcs are both directions of each
/// of `edges` (ends below `vertices`, checked by the caller), self-loops dropped and parallel
/// arcs merged into the lightest: the graph `Graph::from_arcs(..).simplified()` gives, built
/// on every core of the caller's pool. `progress` moves by two units per edge placed and
/// one per arc sorted.
pub(crate) fn simple_graph(
    vertices: usize,
    edges: Vec<Edge>,
    progress: &Progress,
) -> Result<Graph> {
    let what = format!("a graph of {vertices} vertices and {} edges", edges.len());
    // Arcs per tail, self-loops left out.
    let mut counts = filled(vertices + 1, 0u64, &what)?;
    {
        let tally = atomic_view(&mut counts);
        edges
            .par_iter()
            .with_min_len(1 << 12)
            .for_each(|&(u, v, _)| {
                if u != v {
                    tally[u as usize].fetch_add(1, Ordering::Relaxed);
                    tally[v as usize].fetch_add(1, Ordering::Relaxed);
                }
            });
    }
    let mut offsets = counts;
    let mut sum = 0u64;
    for slot in offsets.iter_mut() {
        let count = *slot;
        *slot = sum;
        sum += count;
    }
    let arcs = sum as usize;
    let mut packed = filled(arcs, 0u64, &what)?;
    let mut cursors = offsets.clone();
    {
        // Every slot of `packed` is written by the one thread whose cursor claimed it.
        let (slots, next) = (atomic_view(&mut packed), atomic_view(&mut cursors));
        let place = |tail: u32, arc: u64| {
            let at = next[tail as usize].fetch_add(1, Ordering::Relaxed);
            slots[at as usize].store(arc, Ordering::Relaxed);
        };
        for block in edges.chunks(BLOCK_EDGES) {
            block
                .par_iter()
                .with_min_len(1 << 12)
                .for_each(|&(u, v, w)| {
                    if u != v {
                        place(u, pack(v, w));
                        place(v, pack(u, w));
                    }
                });
            progress.inc(2 * block.len() as u64);
        }
    }
    drop((edges, cursors));
    // Each row sorted (heads, then weights: the lightest of parallel arcs first) and its
    // repeated heads dropped in place; `kept[v + 1]` is how many of v's arcs remain.
    let ranges = vertex_ranges(&offsets, SLICE_ARCS);
    let mut kept = filled(vertices + 1, 0u64, &what)?;
    split_by_ranges(&mut packed, &offsets, &ranges)
        .into_par_iter()
        .zip(split_counts(&mut kept[1..], &ranges))
        .for_each(|((range, slice), counts)| {
            let base = offsets[range.0] as usize;
            for (v, count) in (range.0..range.1).zip(counts.iter_mut()) {
                let row = &mut slice[offsets[v] as usize - base..offsets[v + 1] as usize - base];
                row.sort_unstable();
                let mut len = 0;
                for at in 0..row.len() {
                    if len == 0 || head(row[len - 1]) != head(row[at]) {
                        row[len] = row[at];
                        len += 1;
                    }
                }
                *count = len as u64;
            }
            progress.inc(offsets[range.1] - offsets[range.0]);
        });
    for v in 0..vertices {
        kept[v + 1] += kept[v];
    }
    let total = kept[vertices] as usize;
    let mut targets = filled(total, 0u32, &what)?;
    let mut weights = filled(total, 0u32, &what)?;
    let packed = &packed;
    let outputs = split_by_ranges(&mut targets, &kept, &ranges)
        .into_iter()
        .zip(split_by_ranges(&mut weights, &kept, &ranges));
    outputs
        .collect::<Vec<_>>()
        .into_par_iter()
        .for_each(|((range, heads), (_, weights))| {
            let mut at = 0;
            for v in range.0..range.1 {
                let len = (kept[v + 1] - kept[v]) as usize;
                let start = offsets[v] as usize;
                for &arc in &packed[start..start + len] {
                    heads[at] = head(arc);
                    weights[at] = arc as u32;
                    at += 1;
                }
            }
        });
    Ok(Graph {
        offsets: kept,
        targets,
        weights: Some(weights),
    })
}

/// `values` seen as atomics, for threads that claim and fill slots of one array (the
/// exclusive borrow keeps every plain access away while the view lives).
fn atomic_view(values: &mut [u64]) -> &[AtomicU64] {
    // SAFETY: AtomicU64 has the size, alignment (asserted above) and bit validity of u64;
    // the memory comes from an exclusive borrow, so it may be written, and nothing else
    // reaches it while the returned view borrows it.
    unsafe { &*(values as *mut [u64] as *const [AtomicU64]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Arc;

    /// The reference: every arc listed, built serially and simplified.
    fn by_list(vertices: usize, edges: &[Edge]) -> Graph {
        let mut arcs: Vec<Arc> = Vec::new();
        for &(u, v, w) in edges {
            arcs.push((u, v, w));
            if u != v {
                arcs.push((v, u, w));
            }
        }
        Graph::from_arcs(vertices, &arcs, true)
            .unwrap()
            .simplified()
    }

    #[test]
    fn the_built_graph_is_the_simplified_list_on_any_thread_count() {
        let mut rng = thicket_core::SplitMix::new(8);
        for (n, m) in [(1u64, 3usize), (6, 50), (300, 5000), (5000, 300_000)] {
            let edges: Vec<Edge> = (0..m)
                .map(|_| {
                    (
                        rng.below(n) as u32,
                        rng.below(n) as u32,
                        1 + rng.below(4) as u32,
                    )
                })
                .collect();
            let want = by_list(n as usize, &edges);
            for threads in [1, 3] {
                let got = thicket_core::on_threads(threads, || {
                    simple_graph(n as usize, edges.clone(), &Progress::hidden())
                })
                .unwrap()
                .unwrap();
                assert_eq!(got, want, "{n} {m} on {threads} threads");
                assert!(got.is_simple());
            }
        }
    }
}
