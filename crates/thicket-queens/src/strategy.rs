//! The strategy vocabulary: what a caller asks of a count ([`CountOptions`], [`Batching`]),
//! thicket's constellation kernel and the papers' GPU kernels it is compared with (`thicket
//! queens N --strategy S`), their tuning parameters and what one run of a paper's kernel
//! reports. A leaf: the runners live in [`crate::gpu`].

use serde::Serialize;
use thicket_core::RunOptions;
use thicket_run::Batching;

/// How `thicket queens --backend cuda` counts: thicket's own kernel or one of the papers'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// thicket's constellation kernel (the default; not a paper's).
    Constellation,
    /// Zhang et al. Sec. 3, Fig. 1, Table 1: per-thread workspace in global memory.
    Naive,
    /// Zhang et al. Sec. 4.1, Table 2: `naive` with the L1 cache preferred over shared memory.
    L1,
    /// Zhang et al. Sec. 4.1, Table 3: the workspace in shared memory, bank-conflicting layout.
    Shared,
    /// Zhang et al. Sec. 4.1, Table 4: the shared workspace transposed, free of bank conflicts.
    SharedNbc,
    /// Zhang et al. Sec. 4.2, Fig. 3, Table 5: the low-divergence loop with the tail check.
    Irrc,
    /// Zhang et al. Sec. 4.3, Figs. 4-5, Table 7: a job pool per block (`--pool-size`).
    PoolBlock,
    /// Zhang et al. Sec. 4.3, Table 8: one monolithic job pool for all blocks.
    PoolGlobal,
    /// Feinbube et al. 2010, steps 1-4: Somers' stack search from precalculated settings, all
    /// state in one shared block sized by board size minus depth.
    Feinbube,
    /// Plauth et al. Sec. 3.1, Listing 1: thread swarming, n^z threads a grid (dynamic
    /// parallelism).
    Dp1,
    /// Plauth et al. Sec. 3.2, Listing 2: condensed kernel, static search depth.
    Dp2,
    /// Plauth et al. Sec. 3.3, Listing 3: condensed kernel, search depth growing per generation.
    Dp3,
    /// Plauth et al. Sec. 3.4, Listings 4-6: shared-memory swapping, one child grid a block.
    DpSwap,
}

impl Strategy {
    /// Every strategy, thicket's first, in the papers' order.
    pub const ALL: [Strategy; 13] = [
        Strategy::Constellation,
        Strategy::Naive,
        Strategy::L1,
        Strategy::Shared,
        Strategy::SharedNbc,
        Strategy::Irrc,
        Strategy::PoolBlock,
        Strategy::PoolGlobal,
        Strategy::Feinbube,
        Strategy::Dp1,
        Strategy::Dp2,
        Strategy::Dp3,
        Strategy::DpSwap,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Constellation => "constellation",
            Strategy::Naive => "naive",
            Strategy::L1 => "l1",
            Strategy::Shared => "shared",
            Strategy::SharedNbc => "shared-nbc",
            Strategy::Irrc => "irrc",
            Strategy::PoolBlock => "pool-block",
            Strategy::PoolGlobal => "pool-global",
            Strategy::Feinbube => "feinbube",
            Strategy::Dp1 => "dp1",
            Strategy::Dp2 => "dp2",
            Strategy::Dp3 => "dp3",
            Strategy::DpSwap => "dp-swap",
        }
    }

    /// The paper and section the strategy reproduces.
    pub fn source(self) -> &'static str {
        match self {
            Strategy::Constellation => "thicket",
            Strategy::Naive => "Zhang 2011, Fig. 1 / Table 1",
            Strategy::L1 => "Zhang 2011, Table 2",
            Strategy::Shared => "Zhang 2011, Table 3",
            Strategy::SharedNbc => "Zhang 2011, Table 4",
            Strategy::Irrc => "Zhang 2011, Fig. 3 / Table 5",
            Strategy::PoolBlock => "Zhang 2011, Fig. 5 / Table 7",
            Strategy::PoolGlobal => "Zhang 2011, Table 8",
            Strategy::Feinbube => "Feinbube 2010, steps 1-4",
            Strategy::Dp1 => "Plauth 2016, Sec. 3.1",
            Strategy::Dp2 => "Plauth 2016, Sec. 3.2",
            Strategy::Dp3 => "Plauth 2016, Sec. 3.3",
            Strategy::DpSwap => "Plauth 2016, Sec. 3.4",
        }
    }
}

thicket_core::named_choice!(Strategy, "queens strategy");

/// The papers' tuning parameters; `None` takes the strategy's default (see each field).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Params {
    /// Threads per block: 64 for Zhang's kernels (unstated in the paper; its shared workspace
    /// and Fig. 6's pools of 64 jobs need at most 64), 128 for Feinbube's (unstated), 256 for
    /// Plauth's (their Sec. 3.3) but 64 for `dp-swap`.
    pub block_size: Option<u32>,
    /// Rows placed by the host: n - 11 for Zhang's and Feinbube's kernels,
    /// 1 for Plauth's (their Table 3 starts at row 1; 2 for odd n, the mirror's middle column).
    pub depth: Option<usize>,
    /// Jobs per pool of `pool-block` and threads' share of `pool-global`: 256.
    pub pool_size: Option<u32>,
    /// Rows a DP thread or grid handles: z = 3 for `dp1` (their Sec. 4.2), 4 for `dp2` and
    /// `dp-swap` (Table 3), the initial 2 for `dp3` (Table 3).
    pub search_depth: Option<u32>,
    /// `dp3`'s factor on the search depth per child generation: 2 (doubling, Sec. 3.3).
    pub growth: Option<u32>,
    /// Shared memory bytes that bound `dp3`'s depth and `dp-swap`'s buffer: 49,152 (GK110).
    pub shared_limit: Option<u32>,
}

/// One strategy's count of the total.
#[derive(Debug, Clone, Serialize)]
pub struct StrategyRun {
    /// The strategy.
    pub strategy: Strategy,
    /// Board size.
    pub n: usize,
    /// All solutions.
    pub total: u128,
    /// Subproblems the host generated (threads or jobs of the first launch).
    pub jobs: usize,
    /// Rows the host placed.
    pub depth: usize,
    /// Seconds from the first launch to the result (uploads and host work excluded, as the
    /// papers time their kernels).
    pub kernel_seconds: f64,
    /// Child launches (or device allocations) the device runtime refused, whose subtrees the
    /// parent thread then counted itself; zero for kernels without dynamic parallelism.
    pub refused_launches: u64,
    /// The device.
    pub device: String,
}

/// The smallest and largest boards the papers' kernels count here (32-bit masks; beyond 24 a
/// run would take years).
pub const MIN_N: usize = 4;
/// See [`MIN_N`].
pub const MAX_N: usize = 24;

/// How [`count`](crate::count) runs.
#[derive(Debug, Clone)]
pub struct CountOptions {
    /// Backend, trials, verification, progress bar.
    pub run: RunOptions,
    /// CPU threads (with the GPU: host threads that split the work and count the
    /// rotation-symmetric solutions).
    pub threads: usize,
    /// GPUs by CUDA ordinal; all visible ones when `None`.
    pub devices: Option<Vec<usize>>,
    /// Inner rows the host fills before the GPU tasks start (the papers' kernels: rows the
    /// host places); chosen from `n` when `None`.
    pub depth: Option<usize>,
    /// The GPU kernel: thicket's constellation counter or one of the papers'.
    pub strategy: Strategy,
    /// The papers' parameters.
    pub paper: Params,
    /// Run in batches through the run layer (ledger, shards, MPI) instead of in one go.
    pub batched: Option<Batching>,
}

impl Default for CountOptions {
    /// `auto` on every core and every visible GPU, thicket's constellation kernel, in one go.
    fn default() -> CountOptions {
        CountOptions {
            run: RunOptions::default(),
            threads: thicket_core::available_threads(),
            devices: None,
            depth: None,
            strategy: Strategy::Constellation,
            paper: Params::default(),
            batched: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_strategy_is_listed() {
        let all = Strategy::ALL;
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| a.name() != b.name()));
            assert!(!a.source().is_empty());
        }
    }
}
