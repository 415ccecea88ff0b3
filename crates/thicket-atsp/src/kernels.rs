//! The CUDA kernel modules of the ATSP (`kernels/atsp.cu`, and with CDP-BP `atsp_cdp.cu`), run
//! by the permutation engine of thicket-perm; each takes the host's node and tour layout as
//! defines.

use thicket_gpu::{define, KernelModule, KernelSource, THICKET_HEADER};
use thicket_perm::kernels::PERM_CDP_HEADER;

use crate::gpu::{MAX_CITIES, TOUR_SLOTS, WORDS};

fn defines() -> Vec<String> {
    vec![
        define("ANODE_WORDS", WORDS),
        define("MAX_CITIES", MAX_CITIES),
        define("TOUR_SLOTS", TOUR_SLOTS),
    ]
}

/// BP-DFS, the pool, REC-CDP and REC-DP3 for the ATSP.
pub(crate) const ATSP: KernelModule = KernelModule {
    source: KernelSource {
        name: "atsp.cu",
        source: include_str!("../kernels/atsp.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines,
};

/// CDP-BP for the ATSP: linked with the device runtime.
pub(crate) const ATSP_CDP: KernelModule = KernelModule {
    source: KernelSource {
        name: "atsp_cdp.cu",
        source: concat!(
            include_str!("../kernels/atsp.cu"),
            include_str!("../kernels/atsp_cdp.cu")
        ),
        headers: &[THICKET_HEADER, PERM_CDP_HEADER],
    },
    linked: true,
    defines,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 2] = [ATSP, ATSP_CDP];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module, with its kernels in it, for every architecture from sm_80 (CI:
    /// `THICKET_REQUIRE_NVRTC=1`). The CDP-BP module is only compiled (relocatable code).
    #[test]
    fn every_module_compiles_with_its_kernels_for_every_architecture_from_sm_80() {
        let kernels: [&[&str]; 2] = [
            &["atsp_bp_dfs", "atsp_pool", "atsp_expand"],
            &["atsp_cdp_bp"],
        ];
        thicket_gpu::check_modules(&ALL, &kernels);
    }
}
