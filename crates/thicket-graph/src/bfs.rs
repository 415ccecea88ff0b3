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

/// Frontier vertices per parallel task of a top-down level.
const CHUNK: usize = 256;

/// A direction-optimizing BFS from `source` on the current rayon pool; `reverse` is the
/// graph of in-neighbours (the graph itself where it is symmetric), `None`: top-down only.
pub fn direction_optimizing(graph: &Graph, reverse: Option<&Graph>, source: u32) -> Search {
    let n = graph.vertices();
    let levels: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHED)).collect();
    let parents: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHED)).collect();
    levels[source as usize].store(0, Ordering::Relaxed);
    let mut frontier = vec![source];
    let mut frontier_edges = graph.degree(source);
    let mut unexplored = graph.arcs();
    let mut level = 0u32;
    let mut bottom = false;
    let mut bottom_up_levels = 0;
    let mut previous = 0usize;
    while !frontier.is_empty() {
        unexplored = unexplored.saturating_sub(frontier_edges);
        bottom = match (bottom, reverse) {
            (_, None) => false,
            (false, Some(_)) => frontier_edges > unexplored / ALPHA,
            (true, Some(_)) => {
                !((frontier.len() as u64) < n as u64 / BETA && frontier.len() < previous)
            }
        };
        previous = frontier.len();
        level += 1;
        frontier = match (bottom, reverse) {
            (true, Some(reverse)) => {
                bottom_up_levels += 1;
                bottom_up(reverse, &levels, &parents, level)
            }
            _ => top_down(graph, &frontier, &levels, &parents, level),
        };
        frontier_edges = frontier.par_iter().map(|&v| graph.degree(v)).sum();
    }
    Search {
        levels: levels.into_iter().map(AtomicU32::into_inner).collect(),
        parents: parents.into_iter().map(AtomicU32::into_inner).collect(),
        bottom_up_levels,
    }
}

fn top_down(
    graph: &Graph,
    frontier: &[u32],
    levels: &[AtomicU32],
    parents: &[AtomicU32],
    level: u32,
) -> Vec<u32> {
    frontier
        .par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            let mut found = Vec::new();
            for &u in chunk {
                for &v in graph.neighbours(u) {
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
                        found.push(v);
                    }
                }
            }
            found
        })
        .collect()
}

fn bottom_up(reverse: &Graph, levels: &[AtomicU32], parents: &[AtomicU32], level: u32) -> Vec<u32> {
    (0..reverse.vertices() as u32)
        .into_par_iter()
        .with_min_len(1024)
        .filter(|&v| {
            if levels[v as usize].load(Ordering::Relaxed) != UNREACHED {
                return false;
            }
            // Only v's own task writes v, and a vertex labelled this level is not level - 1.
            for &u in reverse.neighbours(v) {
                if levels[u as usize].load(Ordering::Relaxed) == level - 1 {
                    levels[v as usize].store(level, Ordering::Relaxed);
                    parents[v as usize].store(u, Ordering::Relaxed);
                    return true;
                }
            }
            false
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
}
