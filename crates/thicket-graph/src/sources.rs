//! The sources of a run as the solve pipeline ([`thicket_core::pipeline`]) sees them: the
//! items of a checked graph ([`Sources`]), each search's answer as a strategy leaves it
//! ([`Found`]), checked by [`crate::verify`], summed up as GAPBS sums a search up
//! ([`SourceSearch`]) and kept as a source's paths ([`SourcePaths`]).

use rayon::prelude::*;
use thicket_core::pipeline::Items;
use thicket_core::{Error, Result};

use crate::graph::GraphView;
use crate::input::SearchInput;
use crate::report::{SourcePaths, SourceSearch};
use crate::verify;
use crate::INFINITE;
use crate::UNREACHED;

/// The sources of a run on a checked graph: the pipeline's items.
pub(crate) struct Sources<'a> {
    /// The graph searched (simplified where the input was not simple).
    pub(crate) graph: GraphView<'a>,
    pub(crate) input: &'a SearchInput<'a>,
    pub(crate) sources: &'a [u32],
}

/// One search's answer, as a strategy leaves it.
#[derive(Default)]
pub(crate) struct Found {
    /// BFS levels ([`UNREACHED`] where none), where the search gives them: the summary and
    /// the check read them, the distances are then only built for the answers kept.
    pub(crate) levels: Option<Vec<u32>>,
    /// Distances ([`INFINITE`] where none); empty where a GPU summed the search up and
    /// nobody keeps it.
    pub(crate) distances: Vec<u64>,
    /// Parents ([`UNREACHED`] for the source and unreached vertices); empty where none was
    /// built (distances kept nowhere).
    pub(crate) parents: Vec<u32>,
    /// The summary's sums where the device made them.
    pub(crate) tally: Option<Tally>,
    /// GPU BFS: levels searched bottom-up.
    pub(crate) bottom_up_levels: Option<u32>,
    /// GPU shortest paths: rounds.
    pub(crate) rounds: Option<u64>,
    /// GPU shortest paths: vertices relaxed.
    pub(crate) relaxed: Option<u64>,
    /// The thesis's active-vertices variant: its scans' seconds.
    pub(crate) scan_seconds: Option<f64>,
}

/// What one search's answer adds up to.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    pub(crate) reached: u64,
    pub(crate) max: u64,
    pub(crate) sum: u128,
    pub(crate) arcs: u64,
}

/// The vertices `distance` reaches among `n`, their largest and summed distance and the arcs
/// out of them, on every core: a scale-24 graph's 16.8 M vertices take tens of milliseconds a
/// source one by one, which 64 GPU searches of 2 ms each would wait for.
fn tally(g: GraphView<'_>, n: usize, distance: impl Fn(usize) -> Option<u64> + Sync) -> Tally {
    (0..n)
        .into_par_iter()
        .with_min_len(1 << 14)
        .fold(Tally::default, |mut t, v| {
            if let Some(d) = distance(v) {
                t.reached += 1;
                t.max = t.max.max(d);
                t.sum += u128::from(d);
                t.arcs += g.degree(v as u32);
            }
            t
        })
        .reduce(Tally::default, |a, b| Tally {
            reached: a.reached + b.reached,
            max: a.max.max(b.max),
            sum: a.sum + b.sum,
            arcs: a.arcs + b.arcs,
        })
}

impl Items for Sources<'_> {
    type Item = u32;
    type Answer = Found;
    type Summary = SourceSearch;
    type Kept = SourcePaths;

    fn items(&self) -> &[u32] {
        self.sources
    }

    /// BFS by its levels and parents, shortest paths by its distances (and parents, where
    /// it has them).
    fn check(&self, &source: &u32, found: &Found) -> Option<String> {
        let checked = match &found.levels {
            Some(levels) => verify::bfs(self.graph, source, levels, &found.parents),
            None => verify::sssp(
                self.graph,
                source,
                &found.distances,
                (!found.parents.is_empty()).then_some(&found.parents[..]),
            ),
        };
        checked
            .err()
            .map(|e| format!("source {}: {}", self.input.id(source), e.message()))
    }

    fn summarise(&self, &source: &u32, found: &Found, seconds: f64) -> Result<SourceSearch> {
        let g = self.graph;
        let tally = match (&found.tally, &found.levels) {
            (Some(t), _) => *t,
            (None, Some(levels)) => tally(g, levels.len(), |v| {
                let level = levels[v];
                (level != UNREACHED).then_some(u64::from(level))
            }),
            (None, None) => tally(g, found.distances.len(), |v| {
                let d = found.distances[v];
                (d != INFINITE).then_some(d)
            }),
        };
        let sum_distances = u64::try_from(tally.sum)
            .map_err(|_| Error::InvalidInput("the sum of the distances passes 2^64".into()))?;
        Ok(SourceSearch {
            source: self.input.id(source),
            reached: tally.reached,
            max_distance: tally.max,
            sum_distances,
            arcs_traversed: tally.arcs,
            seconds,
            bottom_up_levels: found.bottom_up_levels,
            rounds: found.rounds,
            relaxed: found.relaxed,
            scan_seconds: found.scan_seconds,
        })
    }

    fn keep(&self, &source: &u32, found: Found) -> SourcePaths {
        SourcePaths {
            source,
            distances: found.distances,
            parents: found.parents,
        }
    }
}
