//! The CUDA kernel modules: the GPU swarms (`kernels/mspso.cu`), with the host's limits as
//! defines, compiled without FMA contraction so that the GPU rounds as the serial swarms do;
//! the default's GPU search (`kernels/ils.cu`).

use thicket_gpu::{define, KernelModule, KernelSource, THICKET_HEADER};

/// The most particles of a swarm (one block per swarm, one thread per particle).
pub const MAX_PARTICLES: usize = 1024;
/// Threads per block of the element-wise kernels.
pub(crate) const THREADS: usize = 256;
/// Shared memory the shared-scratch fitness kernel may take per block (the default limit).
pub const SHARED_SCRATCH_BYTES: usize = 48 * 1024;

fn defines() -> Vec<String> {
    vec![
        define("MAX_PARTICLES", MAX_PARTICLES),
        // a·b + c rounded twice, as on the CPU.
        "--fmad=false".into(),
    ]
}

/// The swarm kernels.
pub(crate) const MSPSO: KernelModule = KernelModule {
    source: KernelSource {
        name: "mspso.cu",
        source: include_str!("../kernels/mspso.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines,
};

/// Threads per block (one chain) of the GPU search.
pub const ILS_THREADS: usize = 256;

fn ils_defines() -> Vec<String> {
    vec![define("ILS_THREADS", ILS_THREADS)]
}

/// The GPU search's kernels (thicket's default).
pub(crate) const ILS: KernelModule = KernelModule {
    source: KernelSource {
        name: "ils.cu",
        source: include_str!("../kernels/ils.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines: ils_defines,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 2] = [MSPSO, ILS];

#[cfg(test)]
mod tests {
    use super::*;

    /// The module with all its kernels, for every architecture from sm_80 (CI:
    /// `THICKET_REQUIRE_NVRTC=1`).
    #[test]
    fn the_module_compiles_with_its_kernels_for_every_architecture_from_sm_80() {
        let names: [&str; 8] = [
            "pso_init",
            "pso_fill_random",
            "pso_fitness_shared",
            "pso_fitness_global",
            "pso_bests",
            "pso_update",
            "pso_rank",
            "pso_gather",
        ];
        let kernels: [&[&str]; 2] = [&names, &["ils_chains", "ils_restart"]];
        thicket_gpu::check_modules(&ALL, &kernels);
    }
}
