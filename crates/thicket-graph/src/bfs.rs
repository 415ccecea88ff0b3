//! BFS on the CPU: a serial queue (the reference), and a multicore direction-optimizing
//! search (Beamer, Asanović and Patterson, SC 2012): top-down levels expand the frontier in
//! parallel chunks, bottom-up levels let every unvisited vertex look for a parent among its
//! in-neighbours, and the search switches between them on the frontier's edges and size.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::graph::Graph;
use crate::UNREACHED;

/// Beamer's α: bottom-up once the frontier's edges pass the unexplored edges / α.
pub const ALPHA: u64 = 15;
/// Beamer's β: top-down again once the frontier has fewer than n / β vertices and shrinks.
pub const BETA: u64 = 18;

/// A BFS answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// Each vertex's level ([`UNREACHED`] where none).
    pub levels: Vec<u32>,
    /// Each vertex's parent ([`UNREACHED`] for the source and unreached vertices).
    pub parents: Vec<u32>,
    /// Levels searched bottom-up.
    pub bottom_up_levels: u32,
}

/// A serial BFS from `source` with a FIFO queue.
pub fn serial(graph: &Graph, source: u32) -> Search {
    let n = graph.vertices();
    let mut levels = vec![UNREACHED; n];
    let mut parents = vec![UNREACHED; n];
    let mut queue = std::collections::VecDeque::with_capacity(n);
    levels[source as usize] = 0;
    queue.push_back(source);
    while let Some(u) = queue.pop_front() {
        let next = levels[u as usize] + 1;
        for &v in graph.neighbours(u) {
            if levels[v as usize] == UNREACHED {
                levels[v as usize] = next;
                parents[v as usize] = u;
                queue.push_back(v);
            }
        }
    }
    Search {
        levels,
        parents,
        bottom_up_levels: 0,
    }
}

/// Frontier arcs per parallel task of a top-down level.
const ARCS_PER_TASK: u64 = 4096;
/// 64-bit words of the bottom-up bitmaps per parallel task (64 vertices a word).
const WORDS: usize = 16;

/// A direction-optimizing BFS from `source` on the current rayon pool; `reverse` is the
/// graph of in-neighbours (the graph itself where it is symmetric), `None`: top-down only.
///
/// Top-down levels keep the frontier as a list; bottom-up levels as bitmaps (the frontier
/// one bit per vertex, so that the in-neighbour tests stay in cache), each task owning whole
/// words of the next bitmap; the list is rebuilt from the bitmap when the search turns back.
pub fn direction_optimizing(graph: &Graph, reverse: Option<&Graph>, source: u32) -> Search {
    let n = graph.vertices();
    // Filled in parallel: the first touch of fresh pages is a large part of a search's time.
    let unreached = || {
        (0..n)
            .into_par_iter()
            .map(|_| AtomicU32::new(UNREACHED))
            .collect::<Vec<_>>()
    };
    let (levels, parents) = (unreached(), unreached());
    levels[source as usize].store(0, Ordering::Relaxed);
    let mut frontier = vec![source];
    let mut frontier_edges = graph.degree(source);
    let mut unexplored = graph.arcs();
    let mut level = 0u32;
    let mut bottom_up_levels = 0;
    while !frontier.is_empty() {
        match reverse {
            Some(reverse) if frontier_edges > unexplored / ALPHA => {
                let words = n.div_ceil(64);
                let mut front = vec![0u64; words];
                for &v in &frontier {
                    front[v as usize / 64] |= 1 << (v % 64);
                }
                let mut next = vec![0u64; words];
                let mut awake = frontier.len() as u64;
                loop {
                    let previous = awake;
                    level += 1;
                    bottom_up_levels += 1;
                    awake = bottom_up(reverse, &levels, &parents, level, &front, &mut next);
                    std::mem::swap(&mut front, &mut next);
                    if awake == 0 || (awake < previous && awake <= n as u64 / BETA) {
                        break;
                    }
                }
                frontier = bitmap_to_list(&front);
                frontier_edges = frontier.par_iter().map(|&v| graph.degree(v)).sum();
            }
            _ => {
                unexplored = unexplored.saturating_sub(frontier_edges);
                level += 1;
                (frontier, frontier_edges) = top_down(graph, &frontier, &levels, &parents, level);
            }
        }
    }
    Search {
        levels: levels.into_iter().map(AtomicU32::into_inner).collect(),
        parents: parents.into_iter().map(AtomicU32::into_inner).collect(),
        bottom_up_levels,
    }
}

/// The next frontier and the sum of its out-degrees.
///
/// The frontier's arcs are cut into tasks of [`ARCS_PER_TASK`] arcs, not its vertices into
/// tasks of so many vertices: a Kronecker graph's second level is a hundred hubs holding
/// most of the graph's arcs, which a split by vertices leaves to one thread (measured at
/// scale 20 on 2 threads: that level 8.7-9.5 ms by vertices, 6.7 ms by arcs).
fn top_down(
    graph: &Graph,
    frontier: &[u32],
    levels: &[AtomicU32],
    parents: &[AtomicU32],
    level: u32,
) -> (Vec<u32>, u64) {
    // ends[i]: the frontier's arcs up to and including vertex i's.
    let mut ends: Vec<u64> = frontier.par_iter().map(|&u| graph.degree(u)).collect();
    let mut total = 0;
    for end in &mut ends {
        total += *end;
        *end = total;
    }
    let parts: Vec<(Vec<u32>, u64)> = (0..total.div_ceil(ARCS_PER_TASK))
        .into_par_iter()
        .map(|task| {
            let first = task * ARCS_PER_TASK;
            let last = (first + ARCS_PER_TASK).min(total);
            let mut found = Vec::new();
            let mut edges = 0;
            // The frontier vertex holding arc `first`, then its successors up to `last`.
            let mut i = ends.partition_point(|&end| end <= first);
            let mut at = first;
            while at < last {
                let u = frontier[i];
                // Where u's arcs start among the frontier's: the previous vertex's end (its
                // degree was read once, for `ends`).
                let begin = if i == 0 { 0 } else { ends[i - 1] };
                let stop = ends[i].min(last);
                let row = graph.arc_range(u).start;
                let heads =
                    &graph.targets[row + (at - begin) as usize..row + (stop - begin) as usize];
                for &v in heads {
                    let slot = &levels[v as usize];
                    if slot.load(Ordering::Relaxed) == UNREACHED
                        && slot
                            .compare_exchange(
                                UNREACHED,
                                level,
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            )
                            .is_ok()
                    {
                        parents[v as usize].store(u, Ordering::Relaxed);
                        edges += graph.degree(v);
                        found.push(v);
                    }
                }
                at = stop;
                i += 1;
            }
            (found, edges)
        })
        .collect();
    let edges = parts.iter().map(|p| p.1).sum();
    (parts.into_iter().flat_map(|p| p.0).collect(), edges)
}

/// One bottom-up level: `next` gets the vertices that found a parent in `front`; returns
/// how many.
fn bottom_up(
    reverse: &Graph,
    levels: &[AtomicU32],
    parents: &[AtomicU32],
    level: u32,
    front: &[u64],
    next: &mut [u64],
) -> u64 {
    let n = reverse.vertices();
    next.par_chunks_mut(WORDS)
        .enumerate()
        .map(|(task, words)| {
            let mut awake = 0;
            for (k, word) in words.iter_mut().enumerate() {
                *word = 0;
                let base = (task * WORDS + k) * 64;
                for v in base..(base + 64).min(n) {
                    // Only this task writes v, and front holds only the level above.
                    if levels[v].load(Ordering::Relaxed) != UNREACHED {
                        continue;
                    }
                    for &u in reverse.neighbours(v as u32) {
                        if front[u as usize / 64] >> (u % 64) & 1 == 1 {
                            levels[v].store(level, Ordering::Relaxed);
                            parents[v].store(u, Ordering::Relaxed);
                            *word |= 1 << (v % 64);
                            awake += 1;
                            break;
                        }
                    }
                }
            }
            awake
        })
        .sum()
}

/// The vertices whose bits are set, in increasing order.
fn bitmap_to_list(bits: &[u64]) -> Vec<u32> {
    bits.par_iter()
        .enumerate()
        .flat_map_iter(|(i, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros();
                    word &= word - 1;
                    (i * 64) as u32 + bit
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    #[test]
    fn direction_optimizing_levels_equal_the_serial_ones() {
        for (generator, seed) in [
            (
                Generator::Kronecker {
                    scale: 12,
                    edge_factor: 16,
                },
                1,
            ),
            (Generator::Grid { rows: 40, cols: 50 }, 2),
            (
                Generator::Uniform {
                    vertices: 3000,
                    degree: 3,
                },
                3,
            ),
        ] {
            let g = generator.generate(seed).unwrap();
            for source in [0, 17, 999] {
                let want = serial(&g, source);
                let got = direction_optimizing(&g, Some(&g), source);
                assert_eq!(got.levels, want.levels, "{generator:?} from {source}");
                crate::verify::bfs(&g, source, &got.levels, &got.parents).unwrap();
                let top_down_only = direction_optimizing(&g, None, source);
                assert_eq!(top_down_only.levels, want.levels);
                assert_eq!(top_down_only.bottom_up_levels, 0);
            }
        }
    }

    #[test]
    fn a_hub_split_over_many_tasks_finds_every_leaf_once() {
        // Two hubs, 0 and 1, with 3 × ARCS_PER_TASK + 5 leaves, every second leaf shared;
        // hub 0's arcs to every third leaf have no way back, so frontiers hold vertices of
        // no out-degree between the others.
        let leaves = 3 * ARCS_PER_TASK as u32 + 5;
        let mut arcs = vec![(0, 2, 1), (2, 0, 1), (0, 1, 1), (1, 0, 1)];
        for leaf in 3..3 + leaves {
            for hub in [0, 1] {
                if hub == 0 || leaf % 2 == 0 {
                    arcs.push((hub, leaf, 1));
                    if hub == 1 || leaf % 3 != 0 {
                        arcs.push((leaf, hub, 1));
                    }
                }
            }
        }
        let g = Graph::from_arcs(3 + leaves as usize + 1, &arcs, false).unwrap();
        for source in [0, 2, 7] {
            let want = serial(&g, source);
            let got = direction_optimizing(&g, None, source);
            assert_eq!(got.levels, want.levels, "from {source}");
            crate::verify::bfs(&g, source, &got.levels, &got.parents).unwrap();
        }
    }
}
