//! The CUDA kernel modules of max flow (`kernels/mpm.cu`, `kernels/push_relabel.cu`), with
//! the host's block sizes as defines.

use thicket_gpu::{define, KernelModule, KernelSource, THICKET_HEADER};

/// Threads per block of the per-vertex kernels (the thesis does not say).
pub(crate) const THREADS: usize = 256;
/// Threads per block of the scan kernels of the active-vertices variant.
pub(crate) const SCAN_THREADS: usize = 1024;
/// Flags per block of the scan kernels.
pub(crate) const SCAN_TILE: usize = 8 * SCAN_THREADS;
/// The most blocks of a kernel that walks a list (grid-stride).
pub(crate) const LIST_BLOCKS: usize = 1024;
/// Sweeps over the vertices per push-relabel launch.
pub(crate) const CYCLES: usize = 16;
/// Push-relabel launches between global relabellings (H100, genrmf a=128 b=128: 4 gave
/// 1,831 relabellings and 23.4 s, 16 gave 482 and 10.2 s, 64 gave 125 and 6.6 s).
pub(crate) const ROUND_LAUNCHES: usize = 64;
/// BFS levels of a global relabelling launched per read of their flags.
pub(crate) const LEVELS_PER_READ: u32 = 32;

fn defines() -> Vec<String> {
    vec![
        define("THREADS", THREADS),
        define("SCAN_THREADS", SCAN_THREADS),
        define("SCAN_TILE", SCAN_TILE),
    ]
}

/// The MPM kernels.
pub(crate) const MPM: KernelModule = KernelModule {
    source: KernelSource {
        name: "mpm.cu",
        source: include_str!("../kernels/mpm.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines,
};

fn push_relabel_defines() -> Vec<String> {
    vec![define("THREADS", THREADS), define("CYCLES", CYCLES)]
}

/// The GPU push-relabel kernels.
pub(crate) const PUSH_RELABEL: KernelModule = KernelModule {
    source: KernelSource {
        name: "push_relabel.cu",
        source: include_str!("../kernels/push_relabel.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines: push_relabel_defines,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 2] = [MPM, PUSH_RELABEL];

#[cfg(test)]
mod tests {
    use super::*;

    /// The module with all its kernels, for every architecture from sm_80 (CI:
    /// `THICKET_REQUIRE_NVRTC=1`).
    #[test]
    fn the_module_compiles_with_its_kernels_for_every_architecture_from_sm_80() {
        let names: [&str; 15] = [
            "fill_levels",
            "bfs_level",
            "mark_alive",
            "potentials",
            "prune",
            "prune_list",
            "argmin_reset",
            "argmin_value",
            "argmin_vertex",
            "argmin_finish",
            "push_pull",
            "push_pull_list",
            "scan_count",
            "scan_offsets",
            "scan_compact",
        ];
        let push_relabel: [&str; 4] = ["pr_round", "gr_init", "gr_level", "pr_active"];
        let kernels: [&[&str]; 2] = [&names, &push_relabel];
        thicket_gpu::check_modules(&ALL, &kernels);
    }
}
