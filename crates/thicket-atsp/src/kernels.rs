//! The CUDA kernel modules of the ATSP (`kernels/atsp.cu`, and with CDP-BP `atsp_cdp.cu`), run
//! by the permutation engine of thicket-perm; each takes the host's node and tour layout as
//! defines.

use thicket_gpu::{define, THICKET_HEADER};
use thicket_perm::kernels::PERM_CDP_HEADER;

/// 32-bit words per node: the path (32 bytes), its cost, its visited bitset.
pub(crate) const WORDS: usize = 10;

/// The most cities the GPU strategies take (the kernels keep a 32-bit visited set and one
/// byte a city).
pub const MAX_CITIES: usize = 32;

/// Tour slots on the device (TOUR_SLOTS in the kernel).
pub(crate) const TOUR_SLOTS: usize = 65536;

fn defines() -> Vec<String> {
    vec![
        define("ANODE_WORDS", WORDS),
        define("MAX_CITIES", MAX_CITIES),
        define("TOUR_SLOTS", TOUR_SLOTS),
    ]
}

thicket_gpu::kernel_modules! {
    /// BP-DFS, the pool, REC-CDP and REC-DP3 for the ATSP.
    pub(crate) ATSP: "atsp.cu" {
        sources: ["../kernels/atsp.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: defines,
        kernels: [atsp_bp_dfs, atsp_pool, atsp_expand],
        functions: pub AtspKernels,
    }

    /// CDP-BP for the ATSP, beside the kernels of [`ATSP`]: linked with the device runtime.
    pub(crate) ATSP_CDP: "atsp_cdp.cu" {
        sources: ["../kernels/atsp.cu", "../kernels/atsp_cdp.cu"],
        headers: [THICKET_HEADER, PERM_CDP_HEADER],
        linked: true,
        defines: defines,
        kernels: [atsp_bp_dfs, atsp_pool, atsp_expand, atsp_cdp_bp],
        functions: pub AtspCdpKernels,
    }
}
