//! What a search reports: each source's summary ([`SourceSearch`], as GAPBS sums a search up),
//! each source's answer ([`SourcePaths`]) and the run of them all ([`SearchRun`]) with the
//! JSON keys scripts read.

use serde::Serialize;
use serde_json::{json, Map, Value};

use thicket_core::pipeline::ItemSeconds;

use crate::strategy::Strategy;
#[cfg(doc)]
use crate::INFINITE;

/// One source's search, summed up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceSearch {
    /// The source, numbered as the file numbers vertices.
    pub source: u64,
    /// Vertices with a finite distance, the source included.
    pub reached: u64,
    /// The largest finite distance (levels: the eccentricity).
    pub max_distance: u64,
    /// The sum of the finite distances.
    pub sum_distances: u64,
    /// Arcs out of reached vertices (the edges a search traverses, for TEPS).
    pub arcs_traversed: u64,
    /// Seconds of this search (GPU: device time from its first launch to the end of its
    /// last).
    pub seconds: f64,
    /// GPU BFS: levels searched bottom-up.
    pub bottom_up_levels: Option<u32>,
    /// GPU shortest paths: rounds (grid barriers).
    pub rounds: Option<u64>,
    /// GPU shortest paths: near-pile vertices whose arcs were relaxed (rework included).
    pub relaxed: Option<u64>,
    /// The thesis's active-vertices variant: of `seconds`, its scans and compactions (the
    /// thesis's Table 4.1 split).
    pub scan_seconds: Option<f64>,
}

/// One source's answer: every vertex's distance and its parent on a shortest path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePaths {
    /// The source (0-based).
    pub source: u32,
    /// Each vertex's hop count (BFS) or distance by weight (shortest paths); [`INFINITE`]
    /// where unreached.
    pub distances: Vec<u64>,
    /// Each vertex's parent on a shortest path from the source; [`crate::UNREACHED`] for
    /// the source and the vertices it does not reach.
    pub parents: Vec<u32>,
}

/// The searches from every source.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRun {
    /// The strategy that ran.
    pub strategy: Strategy,
    /// One summary per source, in order.
    pub searches: Vec<SourceSearch>,
    /// The answers kept ([`crate::SearchOptions::keep`]), in the sources' order.
    pub paths: Vec<SourcePaths>,
    /// Searches whose answer failed the verifier (with `verify`), with why.
    pub failures: Vec<String>,
    /// Vertices of the graph.
    pub vertices: usize,
    /// Arcs of the graph as given (the searches skip self-loops and merge parallel arcs).
    pub arcs: u64,
    /// The delta of delta-stepping.
    pub delta: Option<u64>,
    /// GPU strategies: device memory the graph and a search take, in bytes.
    pub gpu_bytes: Option<u64>,
    /// GPU strategies: seconds the graph's copy to the device took (JSON
    /// `gpu_upload_seconds`), in the run's first trial's time.
    pub upload_seconds: Option<f64>,
    /// Seconds spent building what the searches read beside the file's graph: the simple
    /// graph (sorted, merged), the reverse, the likeliest parents (JSON `build_seconds`).
    pub build_seconds: f64,
    /// The caller stopped the run ([`thicket_core::stoppable`]): `searches` holds the sources
    /// searched before (JSON `"stopped": true`, only then).
    pub stopped: bool,
}

impl SearchRun {
    /// The JSON keys scripts read: the graph's size, the first search's `reached`,
    /// `max_distance` and `sum_distances`, the strategy, every search, and the means.
    pub fn stats(&self) -> Map<String, Value> {
        let first = &self.searches[0];
        let count = self.searches.len() as f64;
        let seconds: Vec<f64> = self.searches.iter().map(|s| s.seconds).collect();
        let seconds = ItemSeconds::of(&seconds);
        let traversed: u64 = self.searches.iter().map(|s| s.arcs_traversed).sum();
        let mut map = thicket_core::object(json!({
            "vertices": self.vertices,
            "arcs": self.arcs,
            "source": first.source,
            "reached": first.reached,
            "max_distance": first.max_distance,
            "sum_distances": first.sum_distances,
            "strategy": self.strategy,
            "mean_search_seconds": seconds.mean,
            "build_seconds": self.build_seconds,
            "teps": if seconds.total > 0.0 { traversed as f64 / seconds.total } else { 0.0 },
        }));
        if let Some(delta) = self.delta {
            map.insert("delta".into(), json!(delta));
        }
        if let Some(bytes) = self.gpu_bytes {
            map.insert("gpu_bytes".into(), json!(bytes));
            map.insert(
                "gpu_bytes_per_arc".into(),
                json!(bytes as f64 / self.arcs.max(1) as f64),
            );
        }
        if let Some(seconds) = self.upload_seconds {
            map.insert("gpu_upload_seconds".into(), json!(seconds));
        }
        if self.searches.len() > 1 {
            map.insert("searches".into(), json!(self.searches));
        }
        if first.scan_seconds.is_some() {
            let scans: f64 = self.searches.iter().filter_map(|s| s.scan_seconds).sum();
            map.insert("mean_scan_seconds".into(), json!(scans / count));
        }
        if self.stopped {
            map.insert("stopped".into(), json!(true));
        }
        if !self.failures.is_empty() {
            map.insert("verify_failures".into(), json!(self.failures));
        }
        map
    }
}
