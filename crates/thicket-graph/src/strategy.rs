//! The vocabulary of a search: the problem ([`Problem`]), the strategies that solve it
//! ([`Strategy`]), which one runs where none is asked for, and the options of a run
//! ([`SearchOptions`]).

use serde::Serialize;
use thicket_core::pipeline::Keep;
use thicket_core::{Backend, Error, Result, RunOptions};

/// How a search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// BFS with a FIFO queue on one thread (the reference).
    Serial,
    /// Direction-optimizing BFS on every core (the default BFS on the CPU).
    Multicore,
    /// The thesis's GPU kernel: every vertex every level.
    Thesis,
    /// The thesis's active-vertices variant: a scan lists each level's vertices.
    ThesisActive,
    /// thicket's GPU search in one launch, the default on a GPU: direction-optimizing BFS,
    /// near-far delta-stepping for shortest paths.
    Gpu,
    /// Dijkstra with a binary heap (the shortest-path reference).
    Dijkstra,
    /// Parallel delta-stepping (the default shortest paths on the CPU).
    DeltaStepping,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 7] = [
        Strategy::Serial,
        Strategy::Multicore,
        Strategy::Thesis,
        Strategy::ThesisActive,
        Strategy::Gpu,
        Strategy::Dijkstra,
        Strategy::DeltaStepping,
    ];

    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Serial => "serial",
            Strategy::Multicore => "multicore",
            Strategy::Thesis => "thesis",
            Strategy::ThesisActive => "thesis-active",
            Strategy::Gpu => "gpu",
            Strategy::Dijkstra => "dijkstra",
            Strategy::DeltaStepping => "delta-stepping",
        }
    }

    /// Whether it runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(
            self,
            Strategy::Thesis | Strategy::ThesisActive | Strategy::Gpu
        )
    }

    /// Whether it finds shortest paths by weight (else BFS levels; `gpu` does both).
    pub fn is_weighted(self) -> bool {
        matches!(self, Strategy::Dijkstra | Strategy::DeltaStepping)
    }

    /// Whether it solves `problem`.
    pub fn serves(self, problem: Problem) -> bool {
        self == Strategy::Gpu || self.is_weighted() == (problem == Problem::ShortestPaths)
    }

    /// The strategy a run on `backend` (`Cpu` or `Cuda`) uses for `problem`: `asked`, else
    /// the fastest there.
    pub(crate) fn on(problem: Problem, asked: Option<Strategy>, backend: Backend) -> Strategy {
        asked.unwrap_or(match (problem, backend) {
            (Problem::Bfs, Backend::Cpu) => Strategy::Multicore,
            (Problem::Bfs, _) => Strategy::Gpu,
            (Problem::ShortestPaths, Backend::Cpu) => Strategy::DeltaStepping,
            (Problem::ShortestPaths, _) => Strategy::Gpu,
        })
    }

    /// The backend a run of `problem` gets for `asked` on `backend`; a strategy of the other
    /// problem is an [`Error::InvalidInput`].
    pub(crate) fn backend(
        problem: Problem,
        asked: Option<Strategy>,
        backend: Backend,
    ) -> Result<Backend> {
        if let Some(s) = asked {
            if !s.serves(problem) {
                return Err(Error::InvalidInput(format!(
                    "strategy {s} is for {}",
                    if s.is_weighted() {
                        "shortest paths (sssp)"
                    } else {
                        "BFS"
                    }
                )));
            }
        }
        thicket_core::backend_for(asked, Strategy::is_gpu, backend)
    }
}

thicket_core::named_choice!(Strategy, "graph strategy");

/// BFS (levels) or shortest paths (weights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Hop counts.
    Bfs,
    /// Weighted distances.
    ShortestPaths,
}

/// How a search runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchOptions {
    /// Backend, trials, verification, progress bar.
    pub run: RunOptions,
    /// The strategy; `None`: the fastest of the problem on the backend.
    pub strategy: Option<Strategy>,
    /// CPU threads.
    pub threads: usize,
    /// The GPU.
    pub device: usize,
    /// Delta-stepping's bucket width; `None`: from the weights.
    pub delta: Option<u64>,
    /// Whose answers ([`crate::SourcePaths`]) the run keeps: every source's (the default;
    /// answers that would not fit this machine's memory are then refused before the search),
    /// the first source's (what `thicket bfs` shows; a bench of many roots keeps one graph's
    /// worth) or none. Every source is summed up whatever is kept.
    pub keep: Keep,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            run: RunOptions::default(),
            strategy: None,
            threads: thicket_core::available_threads(),
            device: 0,
            delta: None,
            keep: Keep::Every,
        }
    }
}
