//! The CUDA kernel modules of thicket-queens (`kernels/*.cu`), each with the host constants it
//! is compiled with: the kernels include thicket-gpu's shared header and `#error` when a
//! define is missing, so host and device cannot disagree on a block size or a record layout.

use thicket_gpu::{define, KernelModule, KernelSource, THICKET_HEADER};

use crate::gpu::tasks::{GAP_SHIFT, PLAN_WORDS};

/// Threads per block of thicket's constellation kernel (it sizes the shared stack with it).
pub(crate) const QUEENS_BLOCK: u32 = 128;

/// Bytes of one stack level a thread in the constellation kernel: {untried columns, columns,
/// "\\", "/", table word}.
pub(crate) const QUEENS_STACK_ENTRY_BYTES: usize = 20;

/// thicket's constellation kernel (`kernels/queens.cu`).
pub(crate) const QUEENS: KernelModule = KernelModule {
    source: KernelSource {
        name: "queens.cu",
        source: include_str!("../kernels/queens.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines: || {
        vec![
            define("BLOCK", QUEENS_BLOCK),
            define("STACK_ENTRY_BYTES", QUEENS_STACK_ENTRY_BYTES),
            define("PLAN_WORDS", PLAN_WORDS),
            define("GAP_SHIFT", GAP_SHIFT),
        ]
    },
};

/// Zhang, Shu and Wu 2011's kernels (`kernels/strategies/zhang.cu`).
pub(crate) const ZHANG: KernelModule = KernelModule {
    source: KernelSource {
        name: "zhang.cu",
        source: include_str!("../kernels/strategies/zhang.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines: Vec::new,
};

/// Feinbube et al. 2010's kernel (`kernels/strategies/feinbube.cu`).
pub(crate) const FEINBUBE: KernelModule = KernelModule {
    source: KernelSource {
        name: "feinbube.cu",
        source: include_str!("../kernels/strategies/feinbube.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines: Vec::new,
};

/// Plauth et al. 2016's dynamic-parallelism kernels (`kernels/strategies/plauth_dp.cu`),
/// linked with the device runtime.
pub(crate) const PLAUTH: KernelModule = KernelModule {
    source: KernelSource {
        name: "plauth_dp.cu",
        source: include_str!("../kernels/strategies/plauth_dp.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: true,
    defines: Vec::new,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 4] = [QUEENS, ZHANG, FEINBUBE, PLAUTH];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module, with a kernel of it checked, for every architecture from sm_80 (CI:
    /// `THICKET_REQUIRE_NVRTC=1`).
    #[test]
    fn every_module_compiles_for_every_architecture_from_sm_80() {
        let kernels: [&[&str]; 4] = [
            &["queens_count"],
            &["zhang_pool_global"],
            &["feinbube_nqueens"],
            &["dp_swap"],
        ];
        thicket_gpu::check_modules(&ALL, &kernels);
    }
}
