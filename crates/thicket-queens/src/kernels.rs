//! The CUDA kernel modules of thicket-queens (`kernels/*.cu`), each with the host constants it
//! is compiled with: the kernels include thicket-gpu's shared header (and, where they need the
//! board's column mask, the crate's `kernels/queens.cuh`) and `#error` when a define is
//! missing, so host and device cannot disagree on a block size or a record layout.

use thicket_gpu::{define, Header, THICKET_HEADER};

/// Words per plan record of the constellation kernel: the depth of the last row, the weight,
/// then one table word a depth.
pub const PLAN_WORDS: usize = 2 + 32;

/// The bit where a plan's table word keeps the row gap into its depth, above every board
/// column.
pub(crate) const GAP_SHIFT: u32 = 28;

/// Threads per block of thicket's constellation kernel (it sizes the shared stack with it).
pub(crate) const QUEENS_BLOCK: u32 = 128;

/// Bytes of one stack level a thread in the constellation kernel: {table word, untried
/// columns, columns, "\\", "/"}.
pub(crate) const QUEENS_STACK_ENTRY_BYTES: usize = 20;

/// The crate's own header: what several of its kernels share (the board's column mask).
pub(crate) const QUEENS_HEADER: Header = Header {
    name: "queens.cuh",
    source: include_str!("../kernels/queens.cuh"),
};

fn queens_defines() -> Vec<String> {
    vec![
        define("BLOCK", QUEENS_BLOCK),
        define("STACK_ENTRY_BYTES", QUEENS_STACK_ENTRY_BYTES),
        define("PLAN_WORDS", PLAN_WORDS),
        define("GAP_SHIFT", GAP_SHIFT),
    ]
}

thicket_gpu::kernel_modules! {
    /// thicket's constellation kernel (`kernels/queens.cu`).
    pub(crate) QUEENS: "queens.cu" {
        sources: ["../kernels/queens.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: queens_defines,
        kernels: [queens_count],
        functions: pub ConstellationKernels,
    }

    /// Zhang, Shu and Wu 2011's kernels (`kernels/zhang.cu`).
    pub(crate) ZHANG: "zhang.cu" {
        sources: ["../kernels/zhang.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: Vec::new,
        kernels: [
            zhang_global,
            zhang_shared_conflicting,
            zhang_shared_transposed,
            zhang_irrc,
            zhang_pool_block,
            zhang_pool_global,
        ],
        functions: pub ZhangKernels,
    }

    /// Feinbube et al. 2010's kernel (`kernels/feinbube.cu`).
    pub(crate) FEINBUBE: "feinbube.cu" {
        sources: ["../kernels/feinbube.cu"],
        headers: [THICKET_HEADER, QUEENS_HEADER],
        linked: false,
        defines: Vec::new,
        kernels: [feinbube_nqueens],
        functions: pub FeinbubeKernels,
    }

    /// Plauth et al. 2016's dynamic-parallelism kernels (`kernels/plauth.cu`),
    /// linked with the device runtime.
    pub(crate) PLAUTH: "plauth.cu" {
        sources: ["../kernels/plauth.cu"],
        headers: [THICKET_HEADER, QUEENS_HEADER],
        linked: true,
        defines: Vec::new,
        kernels: [dp1_swarm, dp1_root, dp_condensed, dp_swap],
        functions: pub PlauthKernels,
    }
}
