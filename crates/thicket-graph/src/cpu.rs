//! The CPU searches: BFS ([`bfs`]: serial, direction-optimizing) and shortest paths
//! ([`sssp`]: Dijkstra, delta-stepping), and [`CpuSearch`], the backend that runs one of them
//! from each source of a run.

pub(crate) mod bfs;
pub(crate) mod sssp;

use std::time::Instant;

use thicket_core::pipeline::{Answered, Solver, Want};
use thicket_core::{Result, Workers};

use crate::graph::GraphView;
use crate::sources::{Found, Sources};
use crate::strategy::Strategy;
use sssp::widen;

/// A CPU strategy searching from one source at a time on its pool.
pub(crate) struct CpuSearch<'a> {
    strategy: Strategy,
    graph: GraphView<'a>,
    /// `multicore`'s in-neighbours for bottom-up levels.
    in_neighbours: Option<bfs::InNeighbours<'a>>,
    /// `delta-stepping`'s bucket width.
    delta: Option<u64>,
    pool: &'a Workers,
    /// The BFS queue's room, passed from each search to the next.
    room: Vec<u32>,
}

impl<'a> CpuSearch<'a> {
    /// `strategy` (a CPU one) on `graph`, with `multicore`'s `in_neighbours` and
    /// `delta-stepping`'s `delta`, on `pool`.
    pub(crate) fn new(
        strategy: Strategy,
        graph: GraphView<'a>,
        in_neighbours: Option<bfs::InNeighbours<'a>>,
        delta: Option<u64>,
        pool: &'a Workers,
    ) -> CpuSearch<'a> {
        CpuSearch {
            strategy,
            graph,
            in_neighbours,
            delta,
            pool,
            room: Vec::new(),
        }
    }
}

impl Solver<Sources<'_>> for CpuSearch<'_> {
    fn answer(&mut self, _: &Sources<'_>, &source: &u32, want: Want) -> Result<Answered<Found>> {
        let (graph, pool) = (self.graph, self.pool);
        let started = Instant::now();
        // The search's time, without the conversions after it.
        let elapsed = || started.elapsed().as_secs_f64();
        let (distances, parents, levels, seconds) = match self.strategy {
            Strategy::Serial => {
                let s = bfs::serial(graph, source);
                let t = elapsed();
                (widen(&s.levels), s.parents, Some(s.levels), t)
            }
            Strategy::Multicore => {
                // Timed up to the tree, as GAPBS times its BFS; the levels, which GAPBS does
                // not compute, follow from the tree after the timer.
                let spare = std::mem::take(&mut self.room);
                let in_neighbours = self.in_neighbours.as_ref();
                let tree = pool.install(|| bfs::tree(graph, in_neighbours, source, spare));
                let t = elapsed();
                let (s, queue_room) = pool.install(|| tree.into_search_and_room());
                self.room = queue_room;
                (widen(&s.levels), s.parents, Some(s.levels), t)
            }
            Strategy::Dijkstra => {
                let p = sssp::dijkstra(graph, source);
                (p.distances, p.parents, None, elapsed())
            }
            _ => {
                let d = self.delta.unwrap_or_else(|| sssp::default_delta(graph));
                // Timed up to the distances as the search leaves them, as GAPBS times its
                // delta-stepping.
                let distances = pool.install(|| sssp::delta_stepping_distances(graph, source, d));
                let t = elapsed();
                (pool.install(|| distances.widen()), Vec::new(), None, t)
            }
        };
        // Delta-stepping finds distances; a tree for them only where one is kept.
        let parents = if parents.is_empty() && want.keep {
            pool.install(|| sssp::tight_parents(graph, source, &distances))
        } else {
            parents
        };
        Ok(Answered {
            answer: Found {
                levels,
                distances,
                parents,
                ..Found::default()
            },
            seconds,
        })
    }
}
