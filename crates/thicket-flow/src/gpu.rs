//! GPU MPM (placeholder while the kernels are written).

use thicket_core::{Error, Result};

use crate::mpm::SolveStats;
use crate::network::Network;

/// Which GPU MPM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuStrategy {
    /// Every vertex every launch.
    Mpm,
    /// Scanned lists of active vertices.
    MpmActive,
}

/// Device time per phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuPhases {
    /// Layered networks.
    pub layered_seconds: f64,
    /// Pruning.
    pub prune_seconds: f64,
    /// Push/pull with argmin.
    pub push_pull_seconds: f64,
    /// Launches.
    pub launches: u64,
}

impl GpuPhases {
    /// The three phases' sum.
    pub fn total_seconds(&self) -> f64 {
        self.layered_seconds + self.prune_seconds + self.push_pull_seconds
    }
}

/// A solved network.
pub struct GpuSolved {
    /// Flows.
    pub flows: Vec<u64>,
    /// Counts.
    pub stats: SolveStats,
    /// Phases.
    pub phases: GpuPhases,
}

/// A GPU.
pub struct FlowGpu;

impl FlowGpu {
    /// Opens.
    pub fn open(_ordinal: usize, _network: &Network) -> Result<FlowGpu> {
        Err(Error::Unavailable("not yet".into()))
    }
    /// Name.
    pub fn name(&self) -> String {
        String::new()
    }
    /// Solves.
    pub fn solve(&self, _kind: GpuStrategy) -> Result<GpuSolved> {
        Err(Error::Unavailable("not yet".into()))
    }
}
