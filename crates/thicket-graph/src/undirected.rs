//! The graph every search reads (each vertex's arcs sorted by head, no self-loop, parallel
//! arcs merged into the lightest), built on every core from a list of undirected edges by a
//! two-level bucket sort of packed (tail, head, weight) keys, each level's writes kept
//! within a cache:
//!
//! 1. *Partition*: each chunk of edges counts its arcs (both directions, self-loops left
//!    out) per bucket of consecutive tails; the counts give each chunk its own run of slots
//!    in every bucket, and the chunk writes its arcs' keys there, one sequential stream per
//!    bucket (placing each arc straight into its row would scatter the writes over the
//!    whole array).
//! 2. *Rows*: each bucket (a few hundred thousand keys, one thread's) is placed by tail into
//!    a scratch buffer that fits the core's cache, each row sorted (heads, then weights) and
//!    its repeated heads dropped (the lightest kept), the kept keys written back compacted.
//! 3. *Unpack*: the kept keys' heads and weights copied into the final arrays at the offsets
//!    the kept counts give.
//!
//! Keys within a bucket may land in any order, since each row is sorted: the graph is the
//! same on any number of threads.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use thicket_core::{Error, Progress, Result};

use crate::graph::{split_by_ranges, split_counts, Graph};

/// One undirected edge: its two ends and its weight.
pub(crate) type Edge = (u32, u32, u32);

/// Bits of a weight in a key: every generator's weights are 1..=255.
const WEIGHT_BITS: u32 = 8;
/// Edges one partitioning task reads (its counts per bucket are one row of a table).
const CHUNK_EDGES: usize = 1 << 20;
/// Arcs per bucket, about: a bucket's keys and its scratch copy stay in a core's cache.
const BUCKET_ARCS: u64 = 1 << 19;
/// The most buckets, as a power of two: a partitioning task writes one stream per bucket,
/// and many more streams would miss the TLB on most writes.
const MAX_BUCKET_BITS: u32 = 11;

/// `AtomicU64` views `u64` memory below: the two must share size and alignment.
const _: () = assert!(
    std::mem::size_of::<AtomicU64>() == std::mem::size_of::<u64>()
        && std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>()
);

/// The most bytes [`simple_graph`] holds at once for `vertices` vertices and the `edges`
/// it is given (counted with them); `None` past 64 bits. While partitioning: the edges, two
/// keys (8 bytes) per edge, the kept counts; while unpacking: the keys, the final heads and
/// weights, the offsets.
pub(crate) fn bytes(vertices: u64, edges: u64) -> Option<u64> {
    let arcs = edges.checked_mul(2)?;
    let per_vertex = vertices.checked_add(1)?.checked_mul(16)?;
    let partitioning = edges
        .checked_mul(12)?
        .checked_add(arcs.checked_mul(8)?)?
        .checked_add(per_vertex)?;
    let unpacking = arcs.checked_mul(16)?.checked_add(per_vertex)?;
    Some(partitioning.max(unpacking))
}

/// How a key packs an arc: from the top, its tail's place within its bucket, its head, its
/// weight; so a bucket's keys order its arcs by tail, then head, then weight.
#[derive(Debug, Clone, Copy)]
struct KeyLayout {
    /// Bits of a vertex id (the head's field).
    head_bits: u32,
    /// Bits of a tail's place within its bucket: a bucket is 2^span_bits consecutive tails.
    span_bits: u32,
}

impl KeyLayout {
    /// The layout for `vertices` vertices (at most 2^31) and about `arcs` arcs: buckets of
    /// about `bucket_arcs` arcs, at most 2^[`MAX_BUCKET_BITS`] of them unless a key needs
    /// fewer tails per bucket to fit 64 bits.
    fn new(vertices: usize, arcs: u64, bucket_arcs: u64) -> KeyLayout {
        let head_bits = usize::BITS - vertices.saturating_sub(1).leading_zeros();
        let wanted = (arcs / bucket_arcs)
            .max(1)
            .next_power_of_two()
            .trailing_zeros();
        let to_fit = (2 * head_bits + WEIGHT_BITS).saturating_sub(u64::BITS);
        let bucket_bits = wanted.min(MAX_BUCKET_BITS).max(to_fit).min(head_bits);
        KeyLayout {
            head_bits,
            span_bits: head_bits - bucket_bits,
        }
    }

    /// How many buckets.
    fn buckets(self) -> usize {
        1 << (self.head_bits - self.span_bits)
    }

    /// The bucket of the arcs out of `tail`.
    fn bucket(self, tail: u32) -> usize {
        (tail >> self.span_bits) as usize
    }

    /// Each bucket's vertices, a range of `0..vertices` (the last ones may be empty).
    fn ranges(self, vertices: usize) -> Vec<(usize, usize)> {
        (0..self.buckets())
            .map(|b| {
                let start = (b << self.span_bits).min(vertices);
                (start, ((b + 1) << self.span_bits).min(vertices))
            })
            .collect()
    }

    /// The key of the arc `tail` -> `head` of `weight` (below 2^[`WEIGHT_BITS`]).
    fn key(self, tail: u32, head: u32, weight: u32) -> u64 {
        let place = u64::from(tail) & ((1 << self.span_bits) - 1);
        (place << (self.head_bits + WEIGHT_BITS))
            | (u64::from(head) << WEIGHT_BITS)
            | u64::from(weight)
    }

    /// A key's tail's place within its bucket.
    fn place(self, key: u64) -> usize {
        (key >> (self.head_bits + WEIGHT_BITS)) as usize
    }

    /// A key's head.
    fn head(self, key: u64) -> u32 {
        ((key >> WEIGHT_BITS) & ((1 << self.head_bits) - 1)) as u32
    }

    /// A key's weight.
    fn weight(key: u64) -> u32 {
        (key & ((1 << WEIGHT_BITS) - 1)) as u32
    }
}

/// The simple symmetric graph of `vertices` vertices whose arcs are both directions of each
/// of `edges` (ends below `vertices`, checked by the caller; weights below 256, as every
/// generator draws them), self-loops dropped and parallel arcs merged into the lightest: the
/// graph `Graph::from_arcs(..).simplified()` gives, built on every core of the caller's
/// pool. `progress` moves by two units per edge partitioned and one per arc sorted.
pub(crate) fn simple_graph(
    vertices: usize,
    edges: Vec<Edge>,
    progress: &Progress,
) -> Result<Graph> {
    build(vertices, edges, BUCKET_ARCS, CHUNK_EDGES, progress)
}

/// [`simple_graph`] with buckets of about `bucket_arcs` arcs, partitioned `chunk_edges` edges
/// to a task (the tests make them small, so that small graphs have many).
fn build(
    vertices: usize,
    edges: Vec<Edge>,
    bucket_arcs: u64,
    chunk_edges: usize,
    progress: &Progress,
) -> Result<Graph> {
    let what = format!("a graph of {vertices} vertices and {} edges", edges.len());
    let layout = KeyLayout::new(vertices, 2 * edges.len() as u64, bucket_arcs);
    let (mut keys, bucket_starts) = partition(&edges, layout, chunk_edges, progress, &what)?;
    drop(edges);
    let ranges = layout.ranges(vertices);
    // `kept[v + 1]` is how many of v's arcs remain, then (summed) where v + 1's start.
    let mut kept = zeroed::<u64>(vertices + 1, &what)?;
    split_at_starts(&mut keys, &bucket_starts)
        .into_par_iter()
        .zip(split_counts(&mut kept[1..], &ranges))
        .for_each_init(Scratch::default, |scratch, (bucket, counts)| {
            simplify_rows(bucket, counts, layout, scratch);
            progress.inc(bucket.len() as u64);
        });
    for v in 0..vertices {
        kept[v + 1] += kept[v];
    }
    let total = kept[vertices] as usize;
    let mut targets = zeroed::<u32>(total, &what)?;
    let mut weights = zeroed::<u32>(total, &what)?;
    split_at_starts(&mut keys, &bucket_starts)
        .into_par_iter()
        .zip(split_by_ranges(&mut targets, &kept, &ranges))
        .zip(split_by_ranges(&mut weights, &kept, &ranges))
        .for_each(|((bucket, (_, heads)), (_, weights))| {
            for ((&key, head), weight) in bucket.iter().zip(heads).zip(weights.iter_mut()) {
                *head = layout.head(key);
                *weight = KeyLayout::weight(key);
            }
        });
    Ok(Graph {
        offsets: kept,
        targets,
        weights: Some(weights),
    })
}

/// The keys of every arc of `edges` but self-loops, grouped by bucket, and where each bucket
/// starts (one more entry: the arc count), the edges read `chunk_edges` to a task. `progress`
/// moves by two units per edge.
fn partition(
    edges: &[Edge],
    layout: KeyLayout,
    chunk_edges: usize,
    progress: &Progress,
    what: &str,
) -> Result<(Vec<u64>, Vec<usize>)> {
    let buckets = layout.buckets();
    // Each chunk's arcs per bucket, and its heaviest weight.
    let tallies: Vec<(Vec<usize>, u32)> = edges
        .par_chunks(chunk_edges)
        .map(|chunk| {
            let mut tally = vec![0usize; buckets];
            let mut heaviest = 0;
            for &(u, v, w) in chunk {
                if u != v {
                    tally[layout.bucket(u)] += 1;
                    tally[layout.bucket(v)] += 1;
                    heaviest = heaviest.max(w);
                }
            }
            (tally, heaviest)
        })
        .collect();
    if let Some(w) = tallies.iter().map(|t| t.1).find(|&w| w >> WEIGHT_BITS != 0) {
        return Err(Error::InvalidInput(format!(
            "{what}: weight {w}, where a generated graph's weights are below 256"
        )));
    }
    // Each chunk's first slot in each bucket: buckets in order, chunks in order within each.
    let mut cursors: Vec<Vec<usize>> = tallies.into_iter().map(|t| t.0).collect();
    let mut bucket_starts = Vec::with_capacity(buckets + 1);
    let mut next = 0;
    for b in 0..buckets {
        bucket_starts.push(next);
        for cursor in cursors.iter_mut() {
            let count = cursor[b];
            cursor[b] = next;
            next += count;
        }
    }
    bucket_starts.push(next);
    let mut keys = zeroed::<u64>(next, what)?;
    {
        // Every slot is written once, by the one chunk whose run holds it.
        let slots = atomic_view(&mut keys);
        edges
            .par_chunks(chunk_edges)
            .zip(cursors.par_iter_mut())
            .for_each(|(chunk, cursor)| {
                let mut place = |tail: u32, key: u64| {
                    let at = &mut cursor[layout.bucket(tail)];
                    slots[*at].store(key, Ordering::Relaxed);
                    *at += 1;
                };
                for &(u, v, w) in chunk {
                    if u != v {
                        place(u, layout.key(u, v, w));
                        place(v, layout.key(v, u, w));
                    }
                }
                progress.inc(2 * chunk.len() as u64);
            });
    }
    Ok((keys, bucket_starts))
}

/// One thread's buffers for [`simplify_rows`], kept from bucket to bucket.
#[derive(Default)]
struct Scratch {
    /// The bucket's keys placed by tail.
    keys: Vec<u64>,
    /// Where each tail's keys start in `keys` (one more entry: the bucket's length).
    starts: Vec<usize>,
}

/// Sorts one bucket's `keys` into rows (by tail, then head, then weight), keeps each row's
/// first key per head (the lightest arc) at the front of `keys`, in order, and sets `kept`
/// (one per tail of the bucket) to how many each row kept.
fn simplify_rows(keys: &mut [u64], kept: &mut [u64], layout: KeyLayout, scratch: &mut Scratch) {
    let rows = kept.len();
    let starts = &mut scratch.starts;
    starts.clear();
    starts.resize(rows + 1, 0);
    for &key in keys.iter() {
        starts[layout.place(key) + 1] += 1;
    }
    for row in 0..rows {
        starts[row + 1] += starts[row];
    }
    if scratch.keys.len() < keys.len() {
        scratch.keys.resize(keys.len(), 0);
    }
    let placed = &mut scratch.keys[..keys.len()];
    // Each row's start serves as its cursor, moved along as its keys land: afterwards
    // `starts[r]` is where row r ends (and row r + 1 begins).
    for &key in keys.iter() {
        let cursor = &mut starts[layout.place(key)];
        placed[*cursor] = key;
        *cursor += 1;
    }
    let mut at = 0;
    let mut begin = 0;
    for (row, count) in kept.iter_mut().enumerate() {
        let end = starts[row];
        let arcs = &mut placed[begin..end];
        arcs.sort_unstable();
        let first = at;
        let mut last_head = None;
        for &key in arcs.iter() {
            let head = layout.head(key);
            if last_head != Some(head) {
                keys[at] = key;
                at += 1;
                last_head = Some(head);
            }
        }
        *count = (at - first) as u64;
        begin = end;
    }
}

/// `keys` cut into buckets at `starts` (each bucket's first key, then the key count).
fn split_at_starts<'a>(keys: &'a mut [u64], starts: &[usize]) -> Vec<&'a mut [u64]> {
    let mut rest = keys;
    let mut buckets = Vec::with_capacity(starts.len().saturating_sub(1));
    for pair in starts.windows(2) {
        let (bucket, tail) = rest.split_at_mut(pair[1] - pair[0]);
        rest = tail;
        buckets.push(bucket);
    }
    buckets
}

/// Plain integers, whose all-zero bytes are the value 0.
trait Integer: Copy {}
impl Integer for u32 {}
impl Integer for u64 {}

/// `len` zeros, or [`Error::TooLarge`] naming `what` where the memory cannot be had: memory
/// the allocator hands out already zeroed (a large block comes from the OS as zero pages),
/// so nothing is written before the build writes it.
fn zeroed<T: Integer>(len: usize, what: &str) -> Result<Vec<T>> {
    let too_large = || Error::TooLarge(format!("{what} does not fit in memory"));
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| too_large())?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout's size is not zero.
    let memory = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if memory.is_null() {
        return Err(too_large());
    }
    // SAFETY: the global allocator gave `memory` for `Layout::array::<T>(len)`: T's alignment
    // and exactly `len` T's, the capacity given; its bytes are zero, a valid u32 or u64 (the
    // only `Integer`s), so all `len` elements are initialised.
    Ok(unsafe { Vec::from_raw_parts(memory, len, len) })
}

/// `values` seen as atomics, for threads that fill disjoint slots of one array (the
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

    /// `m` random edges among `n` vertices, weights 1..=4 (parallel arcs of several weights).
    fn random_edges(n: u64, m: usize, rng: &mut thicket_core::SplitMix) -> Vec<Edge> {
        (0..m)
            .map(|_| {
                (
                    rng.below(n) as u32,
                    rng.below(n) as u32,
                    1 + rng.below(4) as u32,
                )
            })
            .collect()
    }

    #[test]
    fn the_built_graph_is_the_simplified_list_on_any_thread_count() {
        let mut rng = thicket_core::SplitMix::new(8);
        for (n, m) in [(1u64, 3usize), (6, 50), (300, 5000), (5000, 300_000)] {
            let edges = random_edges(n, m, &mut rng);
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

    /// Many buckets and chunks (the default sizes give a small graph one of each), vertex
    /// counts that leave the last buckets part-full or empty, rows of one hub.
    #[test]
    fn many_small_buckets_and_chunks_build_the_same_graph() {
        let mut rng = thicket_core::SplitMix::new(9);
        for (n, m) in [(2u64, 40usize), (37, 900), (1000, 20_000), (4097, 70_000)] {
            let mut edges = random_edges(n, m, &mut rng);
            edges.extend((0..m as u32 / 4).map(|v| (0, v % n as u32, 3)));
            let want = by_list(n as usize, &edges);
            for (bucket_arcs, chunk_edges) in [(1, 1), (16, 7), (500, 1000), (1 << 19, 1 << 20)] {
                let progress = Progress::hidden();
                let got = thicket_core::on_threads(3, || {
                    build(
                        n as usize,
                        edges.clone(),
                        bucket_arcs,
                        chunk_edges,
                        &progress,
                    )
                })
                .unwrap()
                .unwrap();
                assert_eq!(
                    got, want,
                    "{n} {m}, buckets of {bucket_arcs}, chunks of {chunk_edges}"
                );
                assert!(progress.position() <= 4 * edges.len() as u64);
            }
        }
    }

    /// Keys keep every field at the largest sizes: 2^31 vertices, weights up to 255.
    #[test]
    fn keys_hold_the_largest_ids_and_weights() {
        for (vertices, arcs) in [
            (1usize << 31, 1u64 << 20),
            (1 << 31, 1 << 34),
            (5, 8),
            (1, 1),
        ] {
            let layout = KeyLayout::new(vertices, arcs, BUCKET_ARCS);
            assert!(layout.buckets() <= 1 << MAX_BUCKET_BITS);
            let last = (vertices - 1) as u32;
            for (tail, head, weight) in [(last, last, 255), (0, last, 1), (last, 0, 0)] {
                let key = layout.key(tail, head, weight);
                assert_eq!(layout.head(key), head);
                assert_eq!(KeyLayout::weight(key), weight);
                assert_eq!(
                    (layout.bucket(tail) << layout.span_bits) + layout.place(key),
                    tail as usize
                );
            }
        }
    }

    #[test]
    fn a_weight_past_a_key_is_refused() {
        let err = simple_graph(3, vec![(0, 1, 256)], &Progress::hidden()).unwrap_err();
        assert!(err.to_string().contains("weight 256"), "{err}");
    }
}
