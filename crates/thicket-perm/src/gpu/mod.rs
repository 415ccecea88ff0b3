//! The thesis's GPU strategies (Carneiro 2017): BP-DFS, BP-DFS with a pool, REC-CDP, REC-DP3
//! and CDP-BP, for N-Queens as a permutation and, in thicket-atsp, the ATSP with
//! the partial-cost bound. The host builds the active set by a serial search to d_cpu; the kernels
//! (`kernels/*.cu`, compiled at run time by NVRTC for the device) search below it. See
//! [`engine`] for how each strategy launches them and `memory.rs` for the memory analysis.

pub mod device;
pub mod engine;
mod memory;
pub(crate) mod queens;

use thicket_core::{Error, Result};
use thicket_gpu::KernelModule;

use crate::strategy::Strategy;
use device::Device;
use engine::Depths;

/// With no `--d-cpu`, the GPU strategies build roots down to the first depth with at least
/// this many nodes: enough threads to fill a large GPU several times over.
pub const AUTO_ROOTS: u64 = 1 << 20;

/// The depths a GPU run is asked for; `None` picks them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuParams {
    /// Depth of the host's serial search. Default: BP-DFS and the pool go to the automatic
    /// depth, the first with at least [`AUTO_ROOTS`] nodes; REC-CDP and CDP-BP stop two levels
    /// above `d_gpu`; REC-DP3 starts at 2 (the thesis's DP3 start).
    pub d_cpu: Option<usize>,
    /// REC-CDP and CDP-BP: the depth of the intermediate kernel's survivors (default d_cpu + 2,
    /// the thesis's best, or the automatic depth when d_cpu is not given either); REC-DP3:
    /// where the doubling stops (default: the automatic depth). Ignored by BP-DFS and the pool.
    pub d_gpu: Option<usize>,
    /// The GPU to run on, by CUDA ordinal.
    pub device: usize,
}

/// The depths of a run of `strategy`, kept within `shallowest..=deepest`; `auto` gives the
/// automatic depth when it is needed.
pub fn resolve_depths(
    strategy: Strategy,
    params: &GpuParams,
    shallowest: usize,
    deepest: usize,
    auto: impl FnOnce() -> usize,
) -> Depths {
    let (d_cpu, d_gpu) = match strategy {
        Strategy::RecCdp | Strategy::CdpBp => match (params.d_cpu, params.d_gpu) {
            (Some(d_cpu), d_gpu) => (d_cpu, d_gpu.unwrap_or(d_cpu + 2)),
            (None, Some(d_gpu)) => (d_gpu.saturating_sub(2), d_gpu),
            (None, None) => {
                let depth = auto();
                (depth.saturating_sub(2), depth)
            }
        },
        Strategy::RecDp3 => (params.d_cpu.unwrap_or(2), params.d_gpu.unwrap_or_else(auto)),
        _ => {
            let depth = params.d_cpu.unwrap_or_else(auto);
            (depth, depth)
        }
    };
    let d_cpu = d_cpu.clamp(shallowest, deepest);
    Depths {
        d_cpu,
        d_gpu: d_gpu.clamp(d_cpu, deepest),
    }
}

/// Opens GPU `ordinal` with the kernels `strategy` needs: `kernels`, or for CDP-BP the linked
/// module `cdp`.
pub fn open_for(
    strategy: Strategy,
    kernels: &KernelModule,
    cdp: &KernelModule,
    ordinal: usize,
) -> Result<Device> {
    if !strategy.is_gpu() {
        return Err(Error::InvalidInput(format!(
            "{} is not a GPU strategy",
            strategy.name()
        )));
    }
    if strategy == Strategy::CdpBp {
        return Device::open(cdp, ordinal);
    }
    Device::open(kernels, ordinal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depths(strategy: Strategy, d_cpu: Option<usize>, d_gpu: Option<usize>) -> (usize, usize) {
        let params = GpuParams {
            d_cpu,
            d_gpu,
            device: 0,
        };
        let depths = resolve_depths(strategy, &params, 1, 16, || 6);
        (depths.d_cpu, depths.d_gpu)
    }

    #[test]
    fn depths_default_as_documented_and_stay_in_range() {
        assert_eq!(depths(Strategy::BpDfs, None, None), (6, 6));
        assert_eq!(depths(Strategy::BpDfsPool, Some(3), Some(9)), (3, 3));
        assert_eq!(depths(Strategy::RecCdp, None, None), (4, 6));
        assert_eq!(depths(Strategy::RecCdp, Some(3), None), (3, 5));
        assert_eq!(depths(Strategy::CdpBp, None, Some(8)), (6, 8));
        assert_eq!(depths(Strategy::RecDp3, None, None), (2, 6));
        assert_eq!(depths(Strategy::RecDp3, Some(9), Some(4)), (9, 9));
        assert_eq!(depths(Strategy::BpDfs, Some(40), None), (16, 16));
        assert_eq!(depths(Strategy::RecCdp, Some(0), Some(1)), (1, 1));
    }
}
