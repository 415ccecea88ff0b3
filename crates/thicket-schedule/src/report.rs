//! The answer: [`ScheduleRun`], a schedule with its bound and how it was found, and its JSON
//! keys.

use serde_json::{json, Map, Value};

use crate::cpu::ils::BOUND_TOLERANCE;
use crate::cpu::pso::SwarmParams;
use crate::etc::Etc;
use crate::gpu::mspso::{Scratch, SWARM_PHASES};
use crate::strategy::Method;

/// A schedule and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleRun {
    /// The method.
    pub method: Method,
    /// A machine per task.
    pub assignment: Vec<u32>,
    /// The makespan the method reported.
    pub reported: f64,
    /// The makespan recomputed in f64, task order.
    pub makespan: f64,
    /// Every machine's load (f64, task order).
    pub loads: Vec<f64>,
    /// A lower bound on every makespan: the LP relaxation's dual bound, at least
    /// [`Etc::lower_bound`].
    pub lower_bound: f64,
    /// Seconds to the answer (the run's own clock).
    pub seconds: f64,
    /// The default: epochs and kicks.
    pub epochs: Option<usize>,
    /// The default: kicks over all chains.
    pub kicks: Option<u64>,
    /// Swarms: the parameters.
    pub swarm: Option<SwarmParams>,
    /// GPU swarms: the fitness kernel's scratch.
    pub scratch: Option<Scratch>,
    /// GPU swarms: device seconds from the first launch to the last.
    pub kernel_seconds: Option<f64>,
    /// Profiled GPU swarms: device seconds per phase of [`SWARM_PHASES`].
    pub phase_seconds: Option<Vec<f64>>,
    /// The default on the GPU: wall seconds of each of [`STAGES`] (the device's opening runs
    /// beside the relaxation and the CPU chains; "device" is when it was ready, NaN (JSON
    /// null) where it was not ready in time and the GPU took no part).
    pub stage_seconds: Option<[f64; 4]>,
    /// The searches (`ils`, `lp-ils`): the best makespan after every epoch, as (seconds from
    /// the run's start, makespan); empty for the other methods.
    pub trace: Vec<(f64, f64)>,
    /// Whether the caller stopped the run ([`thicket_core::stoppable`], Python's Ctrl-C)
    /// before it ended: the schedule is the best found by then and `lower_bound` the bound
    /// proven by then.
    pub stopped: bool,
}

/// The stages of the default's GPU run, as [`ScheduleRun::stage_seconds`] times them: the
/// relaxation, the device's readying (beside it: on the process's first run the context and
/// kernels, then the matrix), the search, and what follows it (the best schedule's loads,
/// the matrix's device memory freed).
pub const STAGES: [&str; 4] = ["relaxation", "device", "search", "release"];

impl ScheduleRun {
    /// How far the makespan lies above the lower bound, as a fraction of the makespan:
    /// (makespan - lower_bound) / makespan, as thicket-atsp's gap; 0 where the makespan is 0
    /// or reaches the bound.
    pub fn gap(&self) -> f64 {
        if self.makespan <= 0.0 {
            return 0.0;
        }
        (self.makespan - self.lower_bound.min(self.makespan)) / self.makespan
    }

    /// Whether the makespan reaches the lower bound (within a relative 1e-9, the rounding
    /// of sums in different orders): no schedule is better. The searches stop there, before
    /// their time limit.
    pub fn proven_optimal(&self) -> bool {
        self.makespan <= self.lower_bound * (1.0 + BOUND_TOLERANCE)
    }

    /// The JSON keys of a run: `makespan`, `tasks`, `machines`, `method`, `loads`,
    /// `lower_bound`, `gap` ([`ScheduleRun::gap`], a fraction), `optimal`
    /// ([`ScheduleRun::proven_optimal`]), `stopped` (only when true), and those of the method
    /// (`epochs`, `kicks`, `swarm`, ...).
    pub fn stats(&self, etc: &Etc) -> Map<String, Value> {
        let mut map = thicket_core::object(json!({
            "makespan": self.makespan,
            "tasks": etc.tasks(),
            "machines": etc.machines(),
            "method": self.method.name(),
            "loads": self.loads,
            "lower_bound": self.lower_bound,
            "gap": self.gap(),
            "optimal": self.proven_optimal(),
        }));
        if self.stopped {
            map.insert("stopped".into(), true.into());
        }
        if let Some(epochs) = self.epochs {
            map.insert("epochs".into(), epochs.into());
        }
        if let Some(kicks) = self.kicks {
            map.insert("kicks".into(), kicks.into());
        }
        if let Some(scratch) = self.scratch {
            map.insert("scratch".into(), json!(scratch));
        }
        if let Some(seconds) = self.kernel_seconds {
            map.insert("kernel_seconds".into(), seconds.into());
        }
        if let Some(phases) = &self.phase_seconds {
            let by_phase: Map<String, Value> = SWARM_PHASES
                .iter()
                .zip(phases)
                .map(|(name, &seconds)| (name.to_string(), seconds.into()))
                .collect();
            map.insert("phase_seconds".into(), Value::Object(by_phase));
        }
        if let Some(stages) = self.stage_seconds {
            let by_stage: Map<String, Value> = STAGES
                .iter()
                .zip(stages)
                .map(|(name, seconds)| (name.to_string(), seconds.into()))
                .collect();
            map.insert("stage_seconds".into(), Value::Object(by_stage));
        }
        if let Some(p) = self.swarm {
            map.insert(
                "swarm".into(),
                json!({
                    "swarms": p.swarms, "particles": p.particles, "iterations": p.iterations,
                    "c1": shortest(p.c1), "c2": shortest(p.c2), "c3": shortest(p.c3),
                    "inertia": shortest(p.inertia), "decay": shortest(p.decay),
                    "exchange_every": p.exchange_every, "exchanged": p.exchanged,
                }),
            );
        }
        map
    }
}

/// An f32 parameter as the f64 of its shortest decimal form (1.4, not 1.39999997615814).
fn shortest(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(value as f64)
}
