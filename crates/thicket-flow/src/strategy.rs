//! The strategy vocabulary: the one [`Strategy`] enum, CPU and GPU alike, that the front
//! door, the GPU solvers and the report all take.

use serde::Serialize;
use thicket_core::Backend;

/// How a maximum flow is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The thesis's MPM on one CPU thread, with residual reverse arcs (the baseline).
    MpmSerial,
    /// Highest-label push-relabel with global and gap relabelling (the CPU default).
    PushRelabel,
    /// The thesis's GPU MPM: one thread per vertex in every launch.
    Mpm,
    /// The thesis's active-vertices GPU MPM in one cooperative launch: grid barriers instead
    /// of host round trips, lists of active vertices built by atomic appends.
    MpmActive,
    /// The thesis's active-vertices GPU MPM as written: host loops, scans list the vertices
    /// each launch works on.
    MpmScan,
    /// Lock-free push-relabel on the GPU (Hong 2008) with global relabelling, both phases
    /// (the excess to the sink, then what cannot reach it back to the source) on the device
    /// (the GPU default: by far the fastest GPU strategy, see docs/maxflow.md).
    PushRelabelGpu,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 6] = [
        Strategy::MpmSerial,
        Strategy::PushRelabel,
        Strategy::Mpm,
        Strategy::MpmActive,
        Strategy::MpmScan,
        Strategy::PushRelabelGpu,
    ];

    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::MpmSerial => "mpm-serial",
            Strategy::PushRelabel => "push-relabel",
            Strategy::Mpm => "mpm",
            Strategy::MpmActive => "mpm-active",
            Strategy::MpmScan => "mpm-scan",
            Strategy::PushRelabelGpu => "push-relabel-gpu",
        }
    }

    /// Whether it runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(
            self,
            Strategy::Mpm | Strategy::MpmActive | Strategy::MpmScan | Strategy::PushRelabelGpu
        )
    }

    /// The strategy a run takes, decided here only: `asked`, else the default of `backend`
    /// (push-relabel on the CPU, push-relabel on the GPU otherwise).
    pub(crate) fn chosen(asked: Option<Strategy>, backend: Backend) -> Strategy {
        asked.unwrap_or(match backend {
            Backend::Cpu => Strategy::PushRelabel,
            _ => Strategy::PushRelabelGpu,
        })
    }
}

thicket_core::named_choice!(Strategy, "max-flow strategy");
