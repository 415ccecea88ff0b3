//! The CUDA kernel modules of the permutation engine: N-Queens as a permutation
//! (`kernels/queens.cu`, and with CDP-BP `queens_cdp.cu`), and the header every
//! problem's CDP-BP kernel includes (`kernels/perm_cdp.cuh`, [`PERM_CDP_HEADER`]); the ATSP's
//! modules live in thicket-atsp. Each module takes the host's constants as defines.

use thicket_gpu::{define, Header, THICKET_HEADER};

/// The launch of CDP-BP's children, shared by every problem's CDP-BP kernel.
pub const PERM_CDP_HEADER: Header = Header {
    name: "perm_cdp.cuh",
    source: include_str!("../kernels/perm_cdp.cuh"),
};

/// 32-bit words per root: used columns, "/" diagonals (64 bits), "\" diagonals (64 bits).
pub(crate) const ROOT_WORDS: usize = 5;

fn queens_defines() -> Vec<String> {
    vec![define("QROOT_WORDS", ROOT_WORDS)]
}

thicket_gpu::kernel_modules! {
    /// N-Queens as a permutation: BP-DFS, the pool, REC-CDP and REC-DP3.
    pub(crate) QUEENS: "perm_queens.cu" {
        sources: ["../kernels/queens.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: queens_defines,
        kernels: [queens_bp_dfs, queens_pool, queens_expand],
        functions: pub QueensKernels,
    }

    /// N-Queens as a permutation with CDP-BP, beside the kernels of [`QUEENS`]: linked with
    /// the device runtime.
    pub(crate) QUEENS_CDP: "perm_queens_cdp.cu" {
        sources: ["../kernels/queens.cu", "../kernels/queens_cdp.cu"],
        headers: [THICKET_HEADER, PERM_CDP_HEADER],
        linked: true,
        defines: queens_defines,
        kernels: [queens_bp_dfs, queens_pool, queens_expand, queens_cdp_bp],
        functions: pub QueensCdpKernels,
    }
}
