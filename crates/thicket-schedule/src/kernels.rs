//! The CUDA kernel modules: the GPU swarms (`kernels/mspso.cu`), with the host's limits as
//! defines, compiled without FMA contraction so that the GPU rounds as the serial swarms do;
//! the default's GPU search (`kernels/ils.cu`).

use thicket_gpu::{define, THICKET_HEADER};

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

/// Threads per block (one chain) of the GPU search.
pub const ILS_THREADS: usize = 256;

/// The (task, partner machine) pairs of one descent step whose swaps a chain's warps scan
/// together; past these, a pair's thread scans its swaps alone.
pub const ILS_SURVIVORS: usize = 512;

fn ils_defines() -> Vec<String> {
    vec![
        define("ILS_THREADS", ILS_THREADS),
        define("ILS_SURVIVORS", ILS_SURVIVORS),
        // A quarter of the full optimisation's compile time, so that the GPU joins a short run
        // from a cold kernel cache and the process ends on time; the kernel keeps most of its
        // speed (docs/schedule.md, "The module's compile").
        "--Ofast-compile=min".into(),
    ]
}

thicket_gpu::kernel_modules! {
    /// The swarm kernels.
    pub(crate) MSPSO: "mspso.cu" {
        sources: ["../kernels/mspso.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: defines,
        kernels: [
            pso_init,
            pso_fill_random,
            pso_fitness_shared,
            pso_fitness_global,
            pso_bests,
            pso_update,
            pso_rank,
            pso_gather,
            pso_scatter,
        ],
        functions: pub SwarmKernels,
    }

    /// The GPU search's kernels (thicket's default).
    pub(crate) ILS: "ils.cu" {
        sources: ["../kernels/ils.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: ils_defines,
        kernels: [ils_chains, ils_restart],
        functions: pub SearchKernels,
    }
}
