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
/// Sweeps over the vertices per push-relabel launch.
pub(crate) const CYCLES: usize = 16;
/// Push-relabel launches between global relabellings: the fastest of those measured with
/// the relabelling of one launch per BFS level (docs/maxflow.md, "Measured").
pub(crate) const ROUND_LAUNCHES: usize = 64;
/// The environment variable that replaces [`ROUND_LAUNCHES`] for a tuning sweep (a positive
/// whole number): the relabelling is now a fraction of what it cost when 64 was chosen.
pub(crate) const ROUND_LAUNCHES_ENV: &str = "THICKET_FLOW_ROUND_LAUNCHES";

/// Push-relabel launches between global relabellings: [`ROUND_LAUNCHES`], or the value of
/// [`ROUND_LAUNCHES_ENV`] where set; a value that is not a positive whole number is refused.
pub(crate) fn round_launches() -> thicket_core::Result<usize> {
    round_launches_from(std::env::var(ROUND_LAUNCHES_ENV).ok().as_deref())
}

fn round_launches_from(value: Option<&str>) -> thicket_core::Result<usize> {
    match value {
        None => Ok(ROUND_LAUNCHES),
        Some(text) => match text.trim().parse::<usize>() {
            Ok(launches) if launches > 0 => Ok(launches),
            _ => Err(thicket_core::Error::InvalidInput(format!(
                "{ROUND_LAUNCHES_ENV}={text:?} is not a positive whole number of launches"
            ))),
        },
    }
}
/// Threads per block of the one-launch global relabelling (one block per SM: each block's
/// arrival is one atomic of the grid barrier between BFS levels).
pub(crate) const GR_THREADS: usize = 1024;
/// The global relabelling's control words (u64, zero at launch): the barrier's arrivals,
/// three frontier sizes in turn, the labelled vertices holding excess, the BFS levels.
pub(crate) const GR_ARRIVALS: usize = 0;
pub(crate) const GR_SIZES: usize = GR_ARRIVALS + 1;
pub(crate) const GR_ACTIVE: usize = GR_SIZES + 3;
pub(crate) const GR_LEVELS: usize = GR_ACTIVE + 1;
pub(crate) const GR_WORDS: usize = GR_LEVELS + 1;

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
        define("THREADS", THREADS),
        define("CYCLES", CYCLES),
        define("GR_THREADS", GR_THREADS),
        define("GR_ARRIVALS", GR_ARRIVALS),
        define("GR_SIZES", GR_SIZES),
        define("GR_ACTIVE", GR_ACTIVE),
        define("GR_LEVELS", GR_LEVELS),
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
        kernels: [pr_round, global_relabel],
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
    fn the_launches_per_round_come_from_the_environment_where_set() {
        assert_eq!(round_launches_from(None).unwrap(), ROUND_LAUNCHES);
        assert_eq!(round_launches_from(Some("16")).unwrap(), 16);
        for bad in ["0", "-4", "lots", ""] {
            let err = round_launches_from(Some(bad)).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad}");
            assert!(err.to_string().contains(ROUND_LAUNCHES_ENV), "{err}");
        }
    }
}
