//! The CUDA kernel modules of max flow (`kernels/mpm.cu`, `kernels/push_relabel.cu`,
//! `kernels/mpm_fused.cu`), with the host's block sizes and the one-launch MPM's control-word
//! layout as defines, and each module's kernels listed once (the structs [`MpmKernels`],
//! [`PushRelabelKernels`] and [`MpmFusedKernels`] load them).

use thicket_gpu::{define, Header, THICKET_HEADER};

/// Threads per block of the per-vertex kernels (the thesis does not say).
pub(crate) const THREADS: usize = 256;
/// Threads per block of the scan kernels of the active-vertices variant.
pub(crate) const SCAN_THREADS: usize = 1024;
/// Flags per block of the scan kernels.
pub(crate) const SCAN_TILE: usize = 8 * SCAN_THREADS;
/// The most blocks of a kernel that walks a list (grid-stride).
pub(crate) const LIST_BLOCKS: usize = 1024;
/// Threads per block of the push-relabel kernels (one cooperative block per SM: each block's
/// arrival is one atomic of the grid barrier between BFS levels and between push cycles).
pub(crate) const PR_THREADS: usize = 1024;
/// Pushes and relabels a vertex may do each time a push cycle takes it from its work list.
pub(crate) const DISCHARGE: usize = 4;
/// Push cycles between global relabellings at most (a round ends sooner where its work list
/// empties): as many as the sweeps of the earlier kernel's rounds (64 launches of 16), the
/// fastest of those measured (docs/maxflow.md, "Measured").
pub(crate) const ROUND_CYCLES: u32 = 1024;
/// The environment variable that replaces [`ROUND_CYCLES`] for a tuning sweep (a positive
/// whole number).
pub(crate) const ROUND_CYCLES_ENV: &str = "THICKET_FLOW_ROUND_CYCLES";
/// The push-relabel launches' control words (u64, zero at launch): the barrier's arrivals,
/// three frontier or work-list sizes in turn, then the relabelling's active vertices and BFS
/// levels and the push cycles run.
pub(crate) const PR_ARRIVALS: usize = 0;
pub(crate) const PR_SIZES: usize = PR_ARRIVALS + 1;
pub(crate) const PR_ACTIVE: usize = PR_SIZES + 3;
pub(crate) const PR_LEVELS: usize = PR_ACTIVE + 1;
pub(crate) const PR_CYCLES_RUN: usize = PR_LEVELS + 1;
pub(crate) const PR_WORDS: usize = PR_CYCLES_RUN + 1;

/// Push cycles between global relabellings: [`ROUND_CYCLES`], or the value of
/// [`ROUND_CYCLES_ENV`] where set; a value that is not a positive whole number below 2^31 is
/// refused.
pub(crate) fn round_cycles() -> thicket_core::Result<u32> {
    round_cycles_from(std::env::var(ROUND_CYCLES_ENV).ok().as_deref())
}

fn round_cycles_from(value: Option<&str>) -> thicket_core::Result<u32> {
    match value {
        None => Ok(ROUND_CYCLES),
        Some(text) => match text.trim().parse::<u32>() {
            Ok(cycles) if cycles > 0 && cycles < 1 << 31 => Ok(cycles),
            _ => Err(thicket_core::Error::InvalidInput(format!(
                "{ROUND_CYCLES_ENV}={text:?} is not a positive whole number of push cycles \
                 below 2^31"
            ))),
        },
    }
}

/// The MPM device functions `mpm.cu` and `mpm_fused.cu` share (`kernels/mpm.cuh`).
const MPM_HEADER: Header = Header {
    name: "mpm.cuh",
    source: include_str!("../kernels/mpm.cuh"),
};

fn defines() -> Vec<String> {
    vec![
        define("THREADS", THREADS),
        define("SCAN_THREADS", SCAN_THREADS),
        define("SCAN_TILE", SCAN_TILE),
    ]
}

fn push_relabel_defines() -> Vec<String> {
    vec![
        define("THREADS", PR_THREADS),
        define("DISCHARGE", DISCHARGE),
        define("ARRIVALS", PR_ARRIVALS),
        define("SIZES", PR_SIZES),
        define("ACTIVE", PR_ACTIVE),
        define("LEVELS", PR_LEVELS),
        define("CYCLES_RUN", PR_CYCLES_RUN),
    ]
}

/// Threads per block of the one-launch MPM (one block per SM: each block's arrival is one
/// atomic of the grid barrier).
pub(crate) const FUSED_THREADS: usize = 1024;
/// The one-launch MPM's control words (u64): the barrier's arrivals, three round slots of
/// `SLOT_WORDS` (found, sink reached, least potential, its vertex), three list counts of the
/// push/pull steps, three of the pruning rounds, then phases, vertices of least potential,
/// rounds (grid barriers), and nanoseconds in the layered network, pruning and push/pull.
pub(crate) const ARRIVALS: usize = 0;
pub(crate) const SLOT_BASE: usize = 1;
pub(crate) const SLOT_WORDS: usize = 4;
pub(crate) const STEP_COUNTS: usize = SLOT_BASE + 3 * SLOT_WORDS;
pub(crate) const PRUNE_COUNTS: usize = STEP_COUNTS + 3;
pub(crate) const STAT_PHASES: usize = PRUNE_COUNTS + 3;
pub(crate) const STAT_STEPS: usize = STAT_PHASES + 1;
pub(crate) const STAT_ROUNDS: usize = STAT_STEPS + 1;
pub(crate) const TIME_LAYERED: usize = STAT_ROUNDS + 1;
pub(crate) const TIME_PRUNE: usize = TIME_LAYERED + 1;
pub(crate) const TIME_PUSH_PULL: usize = TIME_PRUNE + 1;
pub(crate) const FUSED_CTL_WORDS: usize = TIME_PUSH_PULL + 1;
// The layout is checked when compiling: the barrier's word first, then the slots, the counts
// and the statistics, none overlapping.
const _: () = assert!(
    ARRIVALS == 0
        && SLOT_BASE > ARRIVALS
        && STEP_COUNTS >= SLOT_BASE + 3 * SLOT_WORDS
        && PRUNE_COUNTS >= STEP_COUNTS + 3
        && STAT_PHASES >= PRUNE_COUNTS + 3
        && TIME_PUSH_PULL < FUSED_CTL_WORDS
);

fn fused_defines() -> Vec<String> {
    vec![
        define("FUSED_THREADS", FUSED_THREADS),
        define("ARRIVALS", ARRIVALS),
        define("SLOT_BASE", SLOT_BASE),
        define("SLOT_WORDS", SLOT_WORDS),
        define("STEP_COUNTS", STEP_COUNTS),
        define("PRUNE_COUNTS", PRUNE_COUNTS),
        define("STAT_PHASES", STAT_PHASES),
        define("STAT_STEPS", STAT_STEPS),
        define("STAT_ROUNDS", STAT_ROUNDS),
        define("TIME_LAYERED", TIME_LAYERED),
        define("TIME_PRUNE", TIME_PRUNE),
        define("TIME_PUSH_PULL", TIME_PUSH_PULL),
    ]
}

thicket_gpu::kernel_modules! {
    /// The MPM kernels.
    pub(crate) MPM: "mpm.cu" {
        sources: ["../kernels/mpm.cu"],
        headers: [THICKET_HEADER, MPM_HEADER],
        linked: false,
        defines: defines,
        kernels: [
            fill_levels,
            bfs_level,
            mark_alive,
            potentials,
            prune,
            prune_list,
            argmin_reset,
            argmin_value,
            argmin_vertex,
            argmin_finish,
            push_pull,
            push_pull_list,
            scan_count,
            scan_offsets,
            scan_compact,
        ],
        functions: pub MpmKernels,
    }

    /// The GPU push-relabel kernels.
    pub(crate) PUSH_RELABEL: "push_relabel.cu" {
        sources: ["../kernels/push_relabel.cu"],
        headers: [THICKET_HEADER],
        linked: false,
        defines: push_relabel_defines,
        kernels: [global_relabel, push_cycles],
        functions: pub PushRelabelKernels,
    }

    /// The one-launch MPM (`mpm-active`).
    pub(crate) MPM_FUSED: "mpm_fused.cu" {
        sources: ["../kernels/mpm_fused.cu"],
        headers: [THICKET_HEADER, MPM_HEADER],
        linked: false,
        defines: fused_defines,
        kernels: [mpm_fused],
        functions: pub MpmFusedKernels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_push_cycles_per_round_come_from_the_environment_where_set() {
        assert_eq!(round_cycles_from(None).unwrap(), ROUND_CYCLES);
        assert_eq!(round_cycles_from(Some("256")).unwrap(), 256);
        for bad in ["0", "-4", "lots", "", "2147483648"] {
            let err = round_cycles_from(Some(bad)).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad}");
            assert!(err.to_string().contains(ROUND_CYCLES_ENV), "{err}");
        }
    }
}
