//! The CUDA kernel modules of the ATSP: the exact strategies' (`kernels/atsp.cu`, and with
//! CDP-BP `atsp_cdp.cu`), run by the permutation engine of thicket-perm, each taking the host's
//! node and tour layout as defines; and the tour improver's (`kernels/tours.cu`), taking its
//! block size, list length and buffers as defines.

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

/// Threads per block (one chain) of the GPU tour improver.
pub(crate) const TOURS_THREADS: usize = 256;

/// Chains (blocks) of the GPU tour improver a streaming multiprocessor runs at once.
pub(crate) const TOURS_BLOCKS_PER_SM: usize = 4;

/// Neighbour-list length of the GPU tour improver: the CPU local search's lists, which the
/// host builds and uploads.
pub(crate) const CANDIDATES: usize = crate::local_search::K;

/// The longest segment a kick of the tour improver moves (as the CPU's kicks).
pub(crate) const KICK_SEGMENT: usize = 25;

/// Active cities one descent step of the tour improver evaluates at once.
pub(crate) const BATCH: usize = 32;

/// Moves a chain of the tour improver can undo after one kick: the descent after a kick
/// stops once it has made this many.
pub(crate) const JOURNAL: usize = 256;

/// Bytes of shared memory the tour improver's static record may take (the kernel checks it).
pub(crate) const CHAIN_BYTES: usize = 2048;

fn tours_defines() -> Vec<String> {
    vec![
        define("TOURS_THREADS", TOURS_THREADS),
        define("TOURS_BLOCKS_PER_SM", TOURS_BLOCKS_PER_SM),
        define("CANDIDATES", CANDIDATES),
        define("BATCH", BATCH),
        define("JOURNAL", JOURNAL),
        define("KICK_SEGMENT", KICK_SEGMENT),
        define("CHAIN_BYTES", CHAIN_BYTES),
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

    /// The GPU tour improver: many chains of an iterated local search at once.
    pub(crate) TOURS: "tours.cu" {
        sources: ["../kernels/tours.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: tours_defines,
        kernels: [tours_ils, tours_restart],
        functions: pub(crate) TourKernels,
    }
}
