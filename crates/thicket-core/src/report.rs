//! What every run reports beside its answer: where it ran and how long it took.

use serde::Serialize;

/// Where and how fast a run went; solvers embed it in their own results.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RunInfo {
    /// The backend that actually ran (`cpu` or `cuda`, never `auto`).
    pub backend: String,
    /// CPU worker threads used (for GPU runs: host threads driving the devices).
    pub threads: usize,
    /// Names of the GPUs used, empty on the CPU.
    pub devices: Vec<String>,
    /// Wall time of the solve in seconds, set-up included.
    pub seconds: f64,
    /// What the caller should hear about the run (e.g. why `auto` ran on the CPU); libraries
    /// never print them, the `thicket` binary does unless `--quiet`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
