//! The strategies a lattice is priced on, by name on the command line and in JSON.

use serde::Serialize;
use thicket_core::Backend;

/// How a lattice is priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// One CPU thread: the thesis's baseline and the speed-up reference.
    Serial,
    /// The caller's rayon pool, time-tiled (one option), or one option per task (a book).
    Multicore,
    /// The thesis's GPU kernel: one launch per layer, one thread per node (lookback put).
    Thesis,
    /// The thesis's kernel with the last layers on the CPU (its hybrid).
    Hybrid,
    /// thicket's GPU kernel: many layers per launch, nodes in registers; a block per option
    /// in a book. The default on the GPU.
    Tiles,
}

impl Strategy {
    /// Every strategy, in the bench's order.
    pub const ALL: [Strategy; 5] = [
        Strategy::Serial,
        Strategy::Multicore,
        Strategy::Thesis,
        Strategy::Hybrid,
        Strategy::Tiles,
    ];

    /// The strategy's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Serial => "serial",
            Strategy::Multicore => "multicore",
            Strategy::Thesis => "thesis",
            Strategy::Hybrid => "hybrid",
            Strategy::Tiles => "tiles",
        }
    }

    /// Whether it runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(self, Strategy::Thesis | Strategy::Hybrid | Strategy::Tiles)
    }
}

thicket_core::named_choice!(Strategy, "lattice strategy");

/// The thesis's best hybrid threshold (Fig. 3.4): the last 256 layers on the CPU.
pub const HYBRID_THRESHOLD: usize = 256;

/// The strategy a run on `backend` uses where `asked`: the one asked, else `tiles` on the GPU
/// and `multicore` on the CPU.
pub(crate) fn strategy_on(asked: Option<Strategy>, backend: Backend) -> Strategy {
    asked.unwrap_or(match backend {
        Backend::Cpu => Strategy::Multicore,
        _ => Strategy::Tiles,
    })
}
