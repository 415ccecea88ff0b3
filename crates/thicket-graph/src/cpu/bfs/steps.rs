//! The levels of the direction-optimizing BFS and the one array they share.
//!
//! Each vertex has one 32-bit slot: its parent once found, and until then a tag at or above
//! the vertex count that holds its out-degree. A top-down step reads the slot of a neighbour,
//! claims it and learns its degree (for the switch to bottom-up) in one cache line; a
//! bottom-up step reads the slots in order. Levels are not written during the search: the
//! queue and the bitmaps of the levels say which vertices each level found.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::atomic;
use super::frontier::{is_set, Buffer, Queue};
use super::InNeighbours;
use crate::graph::GraphView;
use crate::UNREACHED;

/// Frontier arcs per parallel task of a top-down level, at most.
pub(super) const ARCS_PER_TASK: u64 = 4096;
/// Frontier arcs per parallel task of a top-down level, at least: a level of few arcs is cut
/// into about four tasks a thread down to this size, as every arc may cost a cache miss.
const FEWEST_ARCS_PER_TASK: u64 = 128;
/// Frontier vertices whose degrees a top-down level reads per parallel task, at least: rayon
/// does not split a frontier under twice this, which is read on the calling thread, as is a
/// level of fewer than [`SERIAL_ARCS`] frontier arcs: waking the pool for a few hundred cache
/// misses cost more than the misses (docs/benchmarks.md, "Graphs").
const DEGREES_PER_TASK: usize = 128;
/// See [`DEGREES_PER_TASK`].
const SERIAL_ARCS: u64 = 512;
/// Frontier vertices from which a top-down level is split by vertices rather than arcs.
pub(super) const SPLIT_BY_VERTICES: usize = 4096;
/// Frontier vertices per parallel task of a level split by vertices (at least).
const VERTICES_PER_TASK: usize = 64;
/// 64-bit words of the bottom-up bitmaps per parallel task (64 vertices a word).
const WORDS: usize = 16;

/// Every vertex's slot: a parent (below the vertex count) or, unvisited, a degree tag.
pub(super) struct Slots<'a> {
    slots: &'a [AtomicU32],
    /// The vertex count, the lowest tag.
    n: u32,
}

impl<'a> Slots<'a> {
    /// The slots in `parents`, one per vertex, as [`unvisited`] fills them.
    pub(super) fn new(parents: &'a mut [u32]) -> Slots<'a> {
        Slots {
            n: parents.len() as u32,
            slots: atomic(parents),
        }
    }
}

/// Every vertex of `graph` unvisited but `source` (its own parent until [`into_parents`]).
///
/// Collected in parallel, never zeroed first: the first touch of fresh pages is a large part
/// of a search, and a zeroed allocation from reused memory would clear it on one thread.
pub(super) fn unvisited(graph: GraphView<'_>, source: u32) -> Vec<u32> {
    let n = graph.vertices() as u32;
    // Degrees past what the tags can hold are capped: they only steer the switch.
    let cap = u64::from(u32::MAX - n);
    (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|v| {
            if v == source {
                source
            } else {
                u32::MAX - graph.degree(v).min(cap) as u32
            }
        })
        .collect()
}

/// Turns the slots left by a search from `source` into parents: [`UNREACHED`] for the
/// source and the vertices not found.
pub(super) fn into_parents(parents: &mut [u32], source: u32) {
    let n = parents.len() as u32;
    // Every slot written, the tags by a select rather than a branch: whether a vertex was
    // found is a coin toss that a branch would mispredict half the time.
    parents.par_iter_mut().with_min_len(4096).for_each(|slot| {
        *slot = if *slot >= n { UNREACHED } else { *slot };
    });
    parents[source as usize] = UNREACHED;
}

/// One top-down level: appends the vertices found from the queue's window to the queue;
/// returns the sum of their out-degrees.
///
/// A level of fewer than [`SERIAL_ARCS`] arcs runs on the calling thread.
/// A small frontier's arcs are cut into tasks of up to [`ARCS_PER_TASK`] arcs (fewer where
/// the level has few, so that every thread gets some), not its vertices into tasks of so many
/// vertices: a Kronecker graph's second level is a hundred hubs holding most of the graph's
/// arcs, which a split by vertices leaves to one thread (measured in docs/benchmarks.md,
/// "Graphs").
/// A frontier of [`SPLIT_BY_VERTICES`] vertices or more is split by vertices: no vertex
/// holds much of its arcs, and its vertices' degrees are read once, not twice.
pub(super) fn top_down(graph: GraphView<'_>, queue: &Queue, slots: &Slots) -> u64 {
    if queue.len() >= SPLIT_BY_VERTICES {
        return by_vertices(graph, queue, slots, VERTICES_PER_TASK);
    }
    // ends[i]: the frontier's arcs up to and including vertex i's.
    let mut ends: Vec<u64> = (0..queue.len())
        .into_par_iter()
        .with_min_len(DEGREES_PER_TASK)
        .map(|i| graph.degree(queue.get(i)))
        .collect();
    let mut total = 0;
    for end in &mut ends {
        total += *end;
        *end = total;
    }
    if total < SERIAL_ARCS {
        // One task of the whole frontier: run where it is.
        return by_vertices(graph, queue, slots, queue.len());
    }
    let per_task = (total / (4 * rayon::current_num_threads() as u64))
        .clamp(FEWEST_ARCS_PER_TASK, ARCS_PER_TASK);
    (0..total.div_ceil(per_task))
        .into_par_iter()
        .map_init(
            || Buffer::new(queue),
            |found, task| {
                let first = task * per_task;
                let last = (first + per_task).min(total);
                let mut edges = 0;
                // The frontier vertex holding arc `first`, then its successors up to `last`.
                let mut i = ends.partition_point(|&end| end <= first);
                let mut at = first;
                while at < last {
                    let u = queue.get(i);
                    // Where u's arcs start among the frontier's: the previous vertex's end
                    // (its degree was read once, for `ends`).
                    let begin = if i == 0 { 0 } else { ends[i - 1] };
                    let stop = ends[i].min(last);
                    let row = graph.arc_range(u).start;
                    let heads =
                        &graph.targets[row + (at - begin) as usize..row + (stop - begin) as usize];
                    edges += visit(slots, u, heads, found);
                    at = stop;
                    i += 1;
                }
                edges
            },
        )
        .sum()
}

/// A top-down level in tasks of at least `min_len` frontier vertices each (rayon runs a
/// single task on the calling thread).
fn by_vertices(graph: GraphView<'_>, queue: &Queue, slots: &Slots, min_len: usize) -> u64 {
    (0..queue.len())
        .into_par_iter()
        .with_min_len(min_len.max(1))
        .map_init(
            || Buffer::new(queue),
            |found, i| {
                let u = queue.get(i);
                visit(slots, u, graph.neighbours(u), found)
            },
        )
        .sum()
}

/// Claims for `u` the unvisited vertices among `heads`, and queues them; returns the sum of
/// their out-degrees.
fn visit(slots: &Slots, u: u32, heads: &[u32], found: &mut Buffer) -> u64 {
    let (slots, n) = (slots.slots, slots.n);
    let mut edges = 0;
    for &v in heads {
        let slot = &slots[v as usize];
        let old = slot.load(Ordering::Relaxed);
        if old >= n
            && slot
                .compare_exchange(old, u, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            edges += u64::from(u32::MAX - old);
            found.push(v);
        }
    }
    edges
}

/// One bottom-up level: `next` gets the vertices that found a parent in `front`; returns
/// how many.
///
/// A vertex tries its likeliest parent first, from the compact array beside the lists: most
/// vertices a level finds find it there and never read their list, which is what a level
/// spends its time on (measured in docs/benchmarks.md, "Graphs").
pub(super) fn bottom_up(
    reverse: &InNeighbours,
    slots: &Slots,
    front: &[AtomicU64],
    next: &[AtomicU64],
) -> u64 {
    let (slots, n) = (slots.slots, slots.n);
    let (offsets, heads) = (reverse.graph.offsets, reverse.graph.targets);
    let likeliest = reverse.likeliest;
    next.par_chunks(WORDS)
        .enumerate()
        .with_max_len(1)
        .map(move |(task, words)| {
            // Copied out of the closure: the stores below would otherwise make every access
            // reload the slices from it.
            let (slots, offsets, heads, front, likeliest) =
                (slots, offsets, heads, front, likeliest);
            let mut awake = 0;
            for (k, word) in words.iter().enumerate() {
                let base = (task * WORDS + k) * 64;
                let mut bits = 0u64;
                for v in base..(base + 64).min(n as usize) {
                    // Only this task writes v's slot, and front holds only the level above.
                    if slots[v].load(Ordering::Relaxed) < n {
                        continue;
                    }
                    // A vertex with no in-neighbour (many of a Kronecker graph's) has no
                    // likeliest parent: its list is never read.
                    let first = likeliest[v];
                    if first == UNREACHED {
                        continue;
                    }
                    if is_set(front, first) {
                        slots[v].store(first, Ordering::Relaxed);
                        bits |= 1 << (v % 64);
                        awake += 1;
                        continue;
                    }
                    for &u in &heads[offsets[v] as usize..offsets[v + 1] as usize] {
                        if is_set(front, u) {
                            slots[v].store(u, Ordering::Relaxed);
                            bits |= 1 << (v % 64);
                            awake += 1;
                            break;
                        }
                    }
                }
                word.store(bits, Ordering::Relaxed);
            }
            awake
        })
        .sum()
}
