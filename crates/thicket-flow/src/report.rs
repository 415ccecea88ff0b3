//! What [`crate::maxflow`] returns: the answer (the flow and its minimum cut, verified) apart
//! from the instrumentation (strategy, counts, time per phase and per host step), and the JSON
//! keys of both.

use serde_json::{json, Map, Value};

use crate::strategy::Strategy;

/// What a solver reports beside the flow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SolveStats {
    /// MPM: layered networks built; push-relabel: global relabellings.
    pub phases: u64,
    /// MPM: vertices of least potential saturated; push-relabel: pushes.
    pub steps: u64,
    /// Push-relabel: relabels.
    pub relabels: u64,
    /// Push-relabel: gaps found.
    pub gaps: u64,
}

/// Time per phase (device time by events; the phases of `mpm-serial` by the clock), by name,
/// and kernel launches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuPhases {
    /// Seconds per phase, in the order first met: MPM `layered` (BFS levels, layered vertices,
    /// potentials), `prune` (with its scans), `push_pull` (with the argmin and scans);
    /// push-relabel `global_relabel` and `push_relabel` (toward the sink), `return_relabel`
    /// and `return_push` (the excess that cannot reach the sink back to the source).
    pub seconds: Vec<(&'static str, f64)>,
    /// Kernel launches.
    pub launches: u64,
    /// Grid barriers inside the launches (the one-launch MPM's rounds, the global
    /// relabellings' BFS levels).
    pub barriers: u64,
}

impl GpuPhases {
    /// Adds `seconds` to phase `name`.
    pub fn add(&mut self, name: &'static str, seconds: f64) {
        match self.seconds.iter_mut().find(|(n, _)| *n == name) {
            Some((_, s)) => *s += seconds,
            None => self.seconds.push((name, seconds)),
        }
    }

    /// The phases' sum.
    pub fn total_seconds(&self) -> f64 {
        self.seconds.iter().map(|(_, s)| s).sum()
    }
}

/// A maximum flow and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRun {
    /// The flow and its minimum cut.
    pub answer: FlowAnswer,
    /// How it was found: strategy, counts, times.
    pub stats: FlowStats,
}

/// A maximum flow with the minimum cut that certifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowAnswer {
    /// The flow's value (= the minimum cut's capacity).
    pub value: u64,
    /// The flow on every input arc, in input order.
    pub flows: Vec<u64>,
    /// Whether each vertex is on the source side of the minimum cut (reached from the source
    /// in the residual graph).
    pub source_side: Vec<bool>,
    /// The input arcs (indices) from the source side to the other side, all saturated.
    pub cut_arcs: Vec<usize>,
    /// Whether the flow passed [`crate::verify`] (capacities, conservation, the min-cut
    /// certificate): always, for an answer [`crate::maxflow`] returns, since a flow that
    /// fails is an error instead.
    pub verified: bool,
}

/// How a maximum flow was found.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowStats {
    /// The strategy that ran.
    pub strategy: Strategy,
    /// Vertices of the network.
    pub vertices: u32,
    /// Arcs of the network.
    pub arcs: usize,
    /// The solver's counts.
    pub counts: SolveStats,
    /// Time per phase: device time for the GPU strategies, wall time for `mpm-serial` (the
    /// CPU side of the thesis's Table 5.3).
    pub phases: Option<GpuPhases>,
    /// Seconds from the residual graph in host memory to the flows in host memory, the same
    /// span for every strategy (the thesis's timing of the algorithm on a graph already in
    /// memory): on the GPU the copies up and down included, the device's one-time setup
    /// (context, kernels) not; the wall time adds the residual graph's construction and
    /// any setup (docs/maxflow.md).
    pub solve_seconds: f64,
    /// Host seconds around the solve, by name: `residual` (building the residual graph),
    /// `device_setup` (opening the GPU and loading the kernels, where this run was the
    /// process's first to need them), `upload` (the residual graph's structure to the GPU;
    /// part of the solve), `download` (the residual capacities back through page-locked
    /// memory and the flows read from them; part of the solve) and `certificate` (the
    /// minimum-cut check after the run, outside its `seconds`).
    pub host: Vec<(&'static str, f64)>,
}

impl FlowRun {
    /// The JSON keys scripts read: `flow`, `vertices`, `arcs`, `cut_arcs` (how many),
    /// `source_side` (how many vertices), `strategy`, the solver's counts and the times
    /// ([`FlowStats::json`]).
    pub fn json(&self) -> Map<String, Value> {
        let mut map = self.stats.json(self.answer.value);
        map.insert("cut_arcs".into(), json!(self.answer.cut_arcs.len()));
        map.insert(
            "source_side".into(),
            json!(self.answer.source_side.iter().filter(|&&x| x).count()),
        );
        map
    }
}

impl FlowStats {
    /// The JSON keys of a flow of value `flow` found this way: `flow`, `vertices`, `arcs`,
    /// `strategy`, the solver's counts, `solve_seconds`, the host steps' and phases'
    /// `<name>_seconds` and, on the GPU, `launches` and `grid_barriers`.
    pub fn json(&self, flow: u64) -> Map<String, Value> {
        let mut map = thicket_core::object(json!({
            "flow": flow,
            "vertices": self.vertices,
            "arcs": self.arcs,
            "strategy": self.strategy,
        }));
        let (phases, steps) = match self.strategy {
            Strategy::PushRelabel => ("global_relabels", "pushes"),
            Strategy::PushRelabelGpu => ("global_relabels", "rounds"),
            _ => ("phases", "saturated_vertices"),
        };
        map.insert(phases.into(), json!(self.counts.phases));
        map.insert(steps.into(), json!(self.counts.steps));
        if self.strategy == Strategy::PushRelabel {
            map.insert("relabels".into(), json!(self.counts.relabels));
            map.insert("gaps".into(), json!(self.counts.gaps));
        }
        map.insert("solve_seconds".into(), json!(self.solve_seconds));
        for (name, seconds) in &self.host {
            map.insert(format!("{name}_seconds"), json!(seconds));
        }
        if let Some(g) = &self.phases {
            for (name, seconds) in &g.seconds {
                map.insert(format!("{name}_seconds"), json!(seconds));
            }
            if g.launches > 0 {
                map.insert("launches".into(), json!(g.launches));
            }
            if g.barriers > 0 {
                map.insert("grid_barriers".into(), json!(g.barriers));
            }
        }
        map
    }
}
