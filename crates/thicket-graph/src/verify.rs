//! Independent checks of a search's answer, in the way GAPBS verifies its kernels, in one pass
//! over the arcs (no search is rerun):
//! - BFS: the source is at level 0 with no parent; every arc u -> v from a reached u reaches
//!   v with level\[v\] <= level\[u\] + 1 (no arc skips a level, and nothing reachable is left
//!   out); every other reached vertex has a parent one level up with an arc to it.
//! - Shortest paths: the source is at 0; every arc u -> v from a reached u has
//!   d\[v\] <= d\[u\] + w; every other reached vertex has a tight incoming arc (d\[u\] + w = d\[v\]),
//!   its parent's where a parent is given.
//!
//! [`verify`] checks one source's answer of either; both checks run on the current rayon pool, vertex by vertex (a graph of half a billion arcs is
//! checked in seconds, not a minute per source); which of several faults is named may vary.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use thicket_core::{Error, Result};

use crate::graph::{Graph, GraphView};
use crate::report::SourcePaths;
use crate::strategy::Problem;
use crate::INFINITE;
use crate::UNREACHED;

/// Vertices per parallel task.
const VERTICES_PER_TASK: usize = 4096;

fn wrong(what: String) -> Error {
    Error::Verification(what)
}

/// Checks `answer`, one source's BFS hop counts or shortest-path distances with their parents,
/// on `graph`: `Ok(())` when it is right, else an [`Error::Verification`] naming a fault (an
/// answer of the wrong size or from a source outside the graph is one).
///
/// ```
/// use thicket_graph::{bfs, verify, Graph, Problem, SearchOptions};
///
/// let graph = Graph::from_edges(3, &[(0, 1), (1, 2)])?;
/// let mut answer = bfs(&graph, &[0], &SearchOptions::default())?.output.paths.remove(0);
/// verify(&graph, Problem::Bfs, &answer)?;
/// answer.distances[2] = 1;
/// assert!(verify(&graph, Problem::Bfs, &answer).is_err());
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn verify(graph: &Graph, problem: Problem, answer: &SourcePaths) -> Result<()> {
    let graph = graph.view();
    let (n, source) = (graph.vertices(), answer.source);
    if source as usize >= n {
        return Err(wrong(format!(
            "the source {source} is not a vertex (0..{n})"
        )));
    }
    if answer.parents.len() != n {
        return Err(wrong(format!(
            "{} parents for {n} vertices",
            answer.parents.len()
        )));
    }
    match problem {
        Problem::Bfs => {
            let levels = answer
                .distances
                .iter()
                .map(|&d| match d {
                    INFINITE => Ok(UNREACHED),
                    d if d < u64::from(UNREACHED) => Ok(d as u32),
                    d => Err(wrong(format!("hop count {d} passes any BFS's"))),
                })
                .collect::<Result<Vec<u32>>>()?;
            bfs(graph, source, &levels, &answer.parents)
        }
        Problem::ShortestPaths => sssp(graph, source, &answer.distances, Some(&answer.parents)),
    }
}

/// Checks BFS levels and parents from `source` (< the vertex count).
pub(crate) fn bfs(
    graph: GraphView<'_>,
    source: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<()> {
    let n = graph.vertices();
    if levels.len() != n || parents.len() != n {
        return Err(wrong(format!("{} levels for {n} vertices", levels.len())));
    }
    if levels[source as usize] != 0 || parents[source as usize] != UNREACHED {
        return Err(wrong(format!(
            "the source {source} is not at level 0 without a parent"
        )));
    }
    let parent_arc = flags(n);
    (0..n as u32)
        .into_par_iter()
        .with_min_len(VERTICES_PER_TASK)
        .try_for_each(|u| {
            let lu = levels[u as usize];
            if lu == UNREACHED {
                return Ok(());
            }
            for &v in graph.neighbours(u) {
                let lv = levels[v as usize];
                if lv == UNREACHED || lv > lu + 1 {
                    return Err(wrong(format!(
                        "arc {u} -> {v} skips from level {lu} to {}",
                        if lv == UNREACHED {
                            "unreached".to_string()
                        } else {
                            lv.to_string()
                        }
                    )));
                }
                if parents[v as usize] == u && lv == lu + 1 {
                    parent_arc[v as usize].store(true, Ordering::Relaxed);
                }
            }
            Ok(())
        })?;
    every_reached_vertex_is_entered(
        source,
        &parent_arc,
        |v| levels[v] != UNREACHED,
        |v| {
            format!(
                "vertex {v} at level {}: its parent {} is not one level up with an arc to it",
                levels[v], parents[v]
            )
        },
    )
}

/// Checks shortest-path distances (and parents, if given) from `source` (< the vertex count).
pub(crate) fn sssp(
    graph: GraphView<'_>,
    source: u32,
    distances: &[u64],
    parents: Option<&[u32]>,
) -> Result<()> {
    let n = graph.vertices();
    if distances.len() != n {
        return Err(wrong(format!(
            "{} distances for {n} vertices",
            distances.len()
        )));
    }
    if distances[source as usize] != 0 {
        return Err(wrong(format!("the source {source} is not at distance 0")));
    }
    let tight = flags(n);
    (0..n as u32)
        .into_par_iter()
        .with_min_len(VERTICES_PER_TASK)
        .try_for_each(|u| {
            let du = distances[u as usize];
            if du == INFINITE {
                return Ok(());
            }
            for at in graph.arc_range(u) {
                let v = graph.targets[at] as usize;
                let through = du + u64::from(graph.weight(at));
                if distances[v] > through {
                    return Err(wrong(format!(
                        "arc {u} -> {v} gives {through}, shorter than its distance {}",
                        if distances[v] == INFINITE {
                            "infinity".to_string()
                        } else {
                            distances[v].to_string()
                        }
                    )));
                }
                if distances[v] == through && parents.is_none_or(|p| p[v] == u) {
                    tight[v].store(true, Ordering::Relaxed);
                }
            }
            Ok(())
        })?;
    every_reached_vertex_is_entered(
        source,
        &tight,
        |v| distances[v] != INFINITE,
        |v| {
            format!(
                "vertex {v} at distance {}: no tight arc into it{}",
                distances[v],
                if parents.is_some() {
                    " from its parent"
                } else {
                    ""
                }
            )
        },
    )
}

/// One flag per vertex, all down: set by the arc pass for the vertices a right arc enters.
fn flags(n: usize) -> Vec<AtomicBool> {
    (0..n).map(|_| AtomicBool::new(false)).collect()
}

/// The second pass of both checks: every vertex that is `reached`, the source aside, has its
/// flag in `entered` set by the arc pass, else the error `fault(v)` names.
fn every_reached_vertex_is_entered(
    source: u32,
    entered: &[AtomicBool],
    reached: impl Fn(usize) -> bool + Sync,
    fault: impl Fn(usize) -> String + Sync,
) -> Result<()> {
    (0..entered.len())
        .into_par_iter()
        .with_min_len(VERTICES_PER_TASK)
        .try_for_each(|v| {
            if reached(v) && v != source as usize && !entered[v].load(Ordering::Relaxed) {
                return Err(wrong(fault(v)));
            }
            Ok(())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> Graph {
        Graph::from_arcs(4, &[(0, 1, 2), (1, 2, 2), (0, 2, 5), (3, 0, 1)], true).unwrap()
    }

    #[test]
    fn corrupted_answers_are_rejected() {
        let g = path();
        let levels = [0, 1, 1, UNREACHED];
        let parents = [UNREACHED, 0, 0, UNREACHED];
        bfs(g.view(), 0, &levels, &parents).unwrap();
        assert!(bfs(
            g.view(),
            0,
            &[0, 1, 2, UNREACHED],
            &[UNREACHED, 0, 1, UNREACHED]
        )
        .is_err());
        assert!(bfs(
            g.view(),
            0,
            &[0, 1, 1, UNREACHED],
            &[UNREACHED, 0, 1, UNREACHED]
        )
        .is_err());
        assert!(bfs(
            g.view(),
            0,
            &[0, 1, UNREACHED, UNREACHED],
            &[UNREACHED, 0, UNREACHED, UNREACHED]
        )
        .is_err());
        assert!(bfs(g.view(), 0, &[0, 1, 1, 2], &[UNREACHED, 0, 0, 0]).is_err());
        let d = [0, 2, 4, INFINITE];
        sssp(g.view(), 0, &d, Some(&[UNREACHED, 0, 1, UNREACHED])).unwrap();
        sssp(g.view(), 0, &d, None).unwrap();
        assert!(sssp(g.view(), 0, &[0, 2, 5, INFINITE], None).is_err());
        assert!(sssp(g.view(), 0, &[0, 2, 3, INFINITE], None).is_err());
        assert!(sssp(g.view(), 0, &d, Some(&[UNREACHED, 0, 0, UNREACHED])).is_err());
    }
}
