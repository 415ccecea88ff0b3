//! The search strategies of the thesis that thicket runs, and which one a backend gets.

use serde::Serialize;
use thicket_core::{Backend, Error, Result};

/// How a permutation search is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// One thread, one non-recursive DFS from the root.
    Serial,
    /// A serial DFS to `--d-cpu` builds the active set; rayon's pool of threads takes its
    /// nodes and searches below each (the thesis's OpenMP multi-core pool scheme).
    Multicore,
    /// GPU: a serial DFS to `--d-cpu`, then chunks of its nodes copied to the GPU and searched
    /// to the leaves, one thread a root (the thesis's BP-DFS).
    #[serde(rename = "bp-dfs")]
    BpDfs,
    /// GPU: BP-DFS with persistent threads taking roots from a pool through an atomic counter.
    #[serde(rename = "bp-dfs-pool")]
    BpDfsPool,
    /// GPU: a first kernel expands the roots from `--d-cpu` to `--d-gpu`, a second one, launched
    /// by the host, searches the survivors to the leaves (the thesis's REC-CDP).
    #[serde(rename = "rec-cdp")]
    RecCdp,
    /// GPU: host-launched expansions that double the depth from `--d-cpu` up to `--d-gpu`,
    /// swapping two buffers, then the search to the leaves (the thesis's REC-DP3).
    #[serde(rename = "rec-dp3")]
    RecDp3,
    /// GPU: CUDA dynamic parallelism; each block expands its roots to `--d-gpu` and launches
    /// the search of its survivors from the device (the thesis's CDP-BP).
    #[serde(rename = "cdp-bp")]
    CdpBp,
}

impl Strategy {
    /// Every strategy, CPU ones first.
    pub const ALL: [Strategy; 7] = [
        Strategy::Serial,
        Strategy::Multicore,
        Strategy::BpDfs,
        Strategy::BpDfsPool,
        Strategy::RecCdp,
        Strategy::RecDp3,
        Strategy::CdpBp,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Serial => "serial",
            Strategy::Multicore => "multicore",
            Strategy::BpDfs => "bp-dfs",
            Strategy::BpDfsPool => "bp-dfs-pool",
            Strategy::RecCdp => "rec-cdp",
            Strategy::RecDp3 => "rec-dp3",
            Strategy::CdpBp => "cdp-bp",
        }
    }

    /// Whether the strategy runs on a GPU.
    pub fn is_gpu(self) -> bool {
        !matches!(self, Strategy::Serial | Strategy::Multicore)
    }

    /// The strategy a run takes and the backend it runs on: `asked`, else `multicore` on the
    /// CPU (for `auto`, since the CPU strategies are the default of every permutation search)
    /// or the thesis's best GPU strategy, `bp-dfs-pool`, for `cuda`. A strategy of the other
    /// backend than the one asked for is invalid input.
    pub fn resolve(asked: Option<Strategy>, backend: Backend) -> Result<(Strategy, Backend)> {
        let strategy = asked.unwrap_or(match backend {
            Backend::Cuda => Strategy::BpDfsPool,
            Backend::Auto | Backend::Cpu => Strategy::Multicore,
        });
        let runs_on = if strategy.is_gpu() {
            Backend::Cuda
        } else {
            Backend::Cpu
        };
        if backend != Backend::Auto && backend != runs_on {
            return Err(Error::InvalidInput(format!(
                "the {} strategy runs on the {runs_on} backend, not on {backend}",
                strategy.name()
            )));
        }
        Ok((strategy, runs_on))
    }
}

thicket_core::named_choice!(Strategy, "permutation strategy");

/// The depths a GPU run is asked for; `None` picks them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuParams {
    /// Depth of the host's serial search. Default: BP-DFS and the pool go to the automatic
    /// depth, the first with at least [`crate::engine::AUTO_ROOTS`] nodes; REC-CDP and CDP-BP stop two levels
    /// above `d_gpu`; REC-DP3 starts at 2 (the thesis's DP3 start).
    pub d_cpu: Option<usize>,
    /// REC-CDP and CDP-BP: the depth of the intermediate kernel's survivors (default d_cpu + 2,
    /// the thesis's best, or the automatic depth when d_cpu is not given either); REC-DP3:
    /// where the doubling stops (default: the automatic depth). Ignored by BP-DFS and the pool.
    pub d_gpu: Option<usize>,
    /// The GPU to run on, by CUDA ordinal.
    pub device: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_names_match_the_json_names() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>().unwrap(), strategy);
            let json = serde_json::to_string(&strategy).unwrap();
            assert_eq!(json, format!("\"{}\"", strategy.name()));
        }
    }
}
