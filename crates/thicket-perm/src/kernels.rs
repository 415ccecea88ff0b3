//! The CUDA kernel modules of the permutation engine: N-Queens as a permutation
//! (`kernels/perm_queens.cu`, and with CDP-BP `perm_queens_cdp.cu`), and the header every
//! problem's CDP-BP kernel includes (`kernels/perm_cdp.cuh`, [`PERM_CDP_HEADER`]); the ATSP's
//! modules live in thicket-atsp. Each module takes the host's constants as defines.

use thicket_gpu::{define, Header, KernelModule, KernelSource, THICKET_HEADER};

use crate::gpu::queens::ROOT_WORDS;

/// The launch of CDP-BP's children, shared by every problem's CDP-BP kernel.
pub const PERM_CDP_HEADER: Header = Header {
    name: "perm_cdp.cuh",
    source: include_str!("../kernels/perm_cdp.cuh"),
};

fn queens_defines() -> Vec<String> {
    vec![define("QROOT_WORDS", ROOT_WORDS)]
}

/// N-Queens as a permutation: BP-DFS, the pool, REC-CDP and REC-DP3.
pub(crate) const QUEENS: KernelModule = KernelModule {
    source: KernelSource {
        name: "perm_queens.cu",
        source: include_str!("../kernels/perm_queens.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines: queens_defines,
};

/// N-Queens as a permutation with CDP-BP: linked with the device runtime.
pub(crate) const QUEENS_CDP: KernelModule = KernelModule {
    source: KernelSource {
        name: "perm_queens_cdp.cu",
        source: concat!(
            include_str!("../kernels/perm_queens.cu"),
            include_str!("../kernels/perm_queens_cdp.cu")
        ),
        headers: &[THICKET_HEADER, PERM_CDP_HEADER],
    },
    linked: true,
    defines: queens_defines,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 2] = [QUEENS, QUEENS_CDP];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module, with its kernels in it, for every architecture from sm_80 (CI:
    /// `THICKET_REQUIRE_NVRTC=1`). The CDP-BP module is only compiled (relocatable code):
    /// linking it needs the device runtime of a CUDA install.
    #[test]
    fn every_module_compiles_with_its_kernels_for_every_architecture_from_sm_80() {
        let kernels: [&[&str]; 2] = [
            &["queens_bp_dfs", "queens_pool", "queens_expand"],
            &["queens_cdp_bp"],
        ];
        thicket_gpu::check_modules(&ALL, &kernels);
    }
}
