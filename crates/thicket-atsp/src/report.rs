//! What a solve answers: the run ([`AtspRun`]) with its tour, bounds and statistics, and how
//! a whole or batched solve ends ([`Solved`]).

use serde_json::{json, Map, Value};
use thicket_core::Measured;
use thicket_perm::engine::GpuRun;
use thicket_perm::Strategy;
use thicket_run::Shard;

use crate::policy::Branching;
use crate::search::{AtspSolution, Bound};
use crate::strategy::bound_name;
use crate::verify::known_optimum;

/// One solve and how it was obtained.
#[derive(Debug, Clone)]
pub struct AtspRun {
    /// The instance's name and size.
    pub name: String,
    /// Cities.
    pub n: usize,
    /// The tour, its cost and the nodes searched.
    pub solution: AtspSolution,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The bound it pruned with.
    pub bound: Bound,
    /// How it branched.
    pub branching: Branching,
    /// CPU threads (1 for `serial` and the GPU strategies).
    pub threads: usize,
    /// A GPU strategy's statistics.
    pub gpu: Option<GpuRun>,
    /// Which bound `solution.lower_bound` is.
    pub lower_bound_source: BoundSource,
    /// Whether the caller stopped the run ([`thicket_core::stoppable`], Ctrl-C in Python):
    /// the answer is then the best tour found so far with its proven lower bound, as at a
    /// deadline.
    pub stopped: bool,
}

/// Where a run's lower bound comes from: the largest of the bounds the run computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundSource {
    /// The search finished: the bound is the tour's own cost.
    Optimal,
    /// The cheapest bound among the parts of the exact search left open (by the bound named
    /// in [`AtspRun::bound`]; at least the root's Lagrangian or Held–Karp bound where the
    /// search computed one).
    Search,
    /// The root's assignment problem, above anything the search proved before it stopped.
    Assignment,
    /// The Held–Karp 1-tree bound of the symmetric costs less a potential, computed beside
    /// the local search under a time limit, above the search's and the assignment's bounds
    /// (on instances whose two directions cost alike, or alike up to a potential).
    OneTree,
}

impl BoundSource {
    /// The name the JSON key `lower_bound_source` gives.
    pub fn name(self) -> &'static str {
        match self {
            BoundSource::Optimal => "optimal",
            BoundSource::Search => "search",
            BoundSource::Assignment => "assignment",
            BoundSource::OneTree => "one-tree",
        }
    }

    /// The source of a lower bound that is the search's own.
    pub(crate) fn of_search(solution: &AtspSolution) -> BoundSource {
        match solution.proven_optimal {
            true => BoundSource::Optimal,
            false => BoundSource::Search,
        }
    }
}

impl AtspRun {
    /// The tour and its statistics as JSON keys: `name`, `n`, `cost`, `tour`, `nodes`,
    /// `proven_optimal`, `lower_bound`, `lower_bound_source` (see [`BoundSource`]), `gap`,
    /// `known_optimum`, `bound`, `branching`, `strategy`, `threads`, `gpu`, and
    /// `"stopped": true` when the caller stopped the run (absent otherwise).
    pub fn stats(&self) -> Map<String, Value> {
        let value = json!({
            "name": self.name,
            "n": self.n,
            "cost": self.solution.cost,
            "tour": self.solution.tour,
            "nodes": self.solution.nodes,
            "proven_optimal": self.solution.proven_optimal,
            "lower_bound": self.solution.lower_bound,
            "lower_bound_source": self.lower_bound_source.name(),
            "gap": self.gap(),
            "known_optimum": known_optimum(&self.name),
            "bound": bound_name(self.bound),
            "branching": self.branching.name(),
            "strategy": self.strategy.name(),
            "threads": self.threads,
            "gpu": self.gpu,
        });
        let mut stats = thicket_core::object(value);
        if self.stopped {
            stats.insert("stopped".into(), true.into());
        }
        stats
    }

    /// How far the tour may be from the optimum: `(cost - lower_bound) / cost` (0 once
    /// proven optimal, and for a tour of cost 0).
    pub fn gap(&self) -> f64 {
        let s = &self.solution;
        if s.cost <= 0 {
            return 0.0;
        }
        (s.cost - s.lower_bound.min(s.cost)) as f64 / s.cost as f64
    }
}

/// What [`solve`](crate::solve) ends with.
#[derive(Debug, Clone)]
pub enum Solved {
    /// The proven optimum of the whole instance.
    Whole(Box<Measured<AtspRun>>),
    /// One shard of a batched run is complete: the best tour of its subtrees (merge the
    /// shards for the optimum).
    Shard {
        /// The shard solved.
        shard: Shard,
        /// The best tour of the shard's subtrees (or the heuristic's) and their nodes.
        run: Box<AtspRun>,
    },
    /// A worker rank of an MPI run: the master reports.
    Worker,
}
