//! Plauth, Feinbube, Schlegel and Polze 2016, "A Performance Evaluation of Dynamic Parallelism
//! for Fine-Grained, Irregular Workloads": kernels that launch kernels (CUDA dynamic
//! parallelism), compiled with `-rdc=true` and linked with `libcudadevrt.a` by
//! [`thicket_gpu::Gpu::load_linked_module`] (kernels in `kernels/plauth.cu`).
//!
//! The host places the first row (the first two for odd n, the mirror's middle column) and
//! starts one grid; the device does the rest, and the host waits for the whole tree of grids.

use thicket_core::{Error, Result};
use thicket_gpu::cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use super::StrategyRunner;
use super::{driver, host_depth, mirrored, positive, raise_shared_limit, timed_launch, Counted};
use crate::count::board_mask;
use crate::jobs::Subproblems;
use crate::strategy::Params;
use crate::strategy::Strategy;

/// Default threads per block (their Sec. 3.3).
pub const BLOCK_SIZE: u32 = 256;
/// Default threads per block of `dp-swap`, which the paper does not state: with 256 threads
/// four rows deep, their Listing 4 leaves no buffer in 48 KB (its threshold goes negative); 64
/// threads leave a buffer of 2,201 boards and a threshold of 1,881.
pub const SWAP_BLOCK_SIZE: u32 = 64;
/// Default rows per swarm grid of `dp1` (z, their Sec. 4.2).
pub const SWARM_ROWS: u32 = 3;
/// Default static search depth of `dp2` and `dp-swap` (their Table 3).
pub const STATIC_DEPTH: u32 = 4;
/// Default initial search depth of `dp3` (their Table 3).
pub const INITIAL_DEPTH: u32 = 2;
/// Default growth of `dp3`'s depth per generation (doubling, their Sec. 3.3).
pub const GROWTH: u32 = 2;
/// Default shared-memory bound of `dp3`'s depth and `dp-swap`'s buffer: GK110's 48 KB.
pub const SHARED_LIMIT: u32 = 48 * 1024;

/// The device malloc heap for child configurations (device default: 8 MB).
pub const MALLOC_HEAP_BYTES: usize = 4 << 30;
/// Launches the device runtime may hold pending (device default: 2,048); refused launches are
/// counted by their parents instead and reported.
pub const PENDING_LAUNCHES: usize = 1 << 17;

/// The row from which `dp2`, `dp3` and `dp-swap` count boards in place instead of handing them
/// to a child grid: the middle of the board, rounded down (the row itself counted in place).
/// Handing every level on made 127 million boards in 90,000 device allocations four rows above
/// N = 16's last row, and billions at N = 18.
fn condensed_hand_below(n: usize) -> u32 {
    (n - n / 2) as u32
}

/// The row `dp1`'s swarms must end above to be launched: the middle of the board, rounded down.
/// A thread whose swarm would end lower counts its board's subtree itself; launching one swarm a
/// board all the way down was millions of launches from N = 16 on, far past the pending-launch
/// buffer, whose refusals left single threads walking whole subtrees.
fn swarm_hand_below(n: usize) -> u32 {
    (n / 2) as u32
}

/// Bytes of a `Config` (four words) and of an `Entry` (a `Config` and a word) on the device.
const CONFIG_BYTES: u32 = 16;
const ENTRY_BYTES: u32 = 20;

/// The host's configurations: (columns, left, right, row) of the row below each placement.
fn configs(n: usize, depth: usize) -> (Vec<[u32; 4]>, usize) {
    let jobs = Subproblems::generate(n, depth);
    let list = (0..jobs.len())
        .map(|i| {
            let m = jobs.masks(i);
            [m.cols, m.left, m.right, depth as u32]
        })
        .collect();
    (list, depth)
}

/// Counts the total of `n` queens with one of Plauth et al.'s kernels.
pub(crate) fn count(
    runner: &mut StrategyRunner,
    strategy: Strategy,
    n: usize,
    params: &Params,
) -> Result<Counted> {
    let depth = host_depth(n, params.depth, if n % 2 == 1 { 2 } else { 1 })?;
    let default_block = if strategy == Strategy::DpSwap {
        SWAP_BLOCK_SIZE
    } else {
        BLOCK_SIZE
    };
    let block = positive("the block size", params.block_size, default_block, 1024)?;
    let shared_limit = positive(
        "the shared-memory limit",
        params.shared_limit,
        SHARED_LIMIT,
        1 << 20,
    )?;
    let (configs, depth) = configs(n, depth);
    let module = runner.module(&crate::kernels::PLAUTH)?;
    runner.ensure_dp_limits()?;
    let gpu = runner.gpu();
    let stream = gpu.stream().clone();
    let mut result = stream.alloc_zeros::<u64>(1).map_err(driver("cuMemAlloc"))?;
    let mut stats = stream.alloc_zeros::<u64>(2).map_err(driver("cuMemAlloc"))?;
    let count = configs.len() as u32;
    let n32 = n as u32;
    let flat: Vec<u32> = configs.iter().flatten().copied().collect();
    let config_words = stream.clone_htod(&flat).map_err(driver("cuMemcpyHtoD"))?;

    let seconds = match strategy {
        Strategy::Dp1 => {
            let z = positive("the search depth", params.search_depth, SWARM_ROWS, 8)?;
            let threads = (n as u64).pow(z);
            let threads = u32::try_from(threads)
                .ok()
                .filter(|&t| t < (1 << 31))
                .ok_or_else(|| {
                    Error::InvalidInput(format!("N^z = {n}^{z} threads do not fit in one grid"))
                })?;
            let root = gpu
                .load_function(&module, "dp1_root")
                .map_err(Error::from)?;
            let hand_below = swarm_hand_below(n);
            let mut launch = stream.launch_builder(&root);
            launch
                .arg(&config_words)
                .arg(&count)
                .arg(&z)
                .arg(&threads)
                .arg(&block)
                .arg(&n32)
                .arg(&hand_below)
                .arg(&mut result)
                .arg(&mut stats);
            // SAFETY: dp1_root takes (const Config*, unsigned count, unsigned z, unsigned
            // thread_count, unsigned block, unsigned n, unsigned hand_below, unsigned long long*
            // result, unsigned long long* stats); its threads below count read one Config (four words) each.
            unsafe { timed_launch(&stream, &mut launch, LaunchConfig::for_num_elems(count)) }?
        }
        Strategy::Dp2 | Strategy::Dp3 => {
            let (first, growth) = if strategy == Strategy::Dp2 {
                (
                    positive("the search depth", params.search_depth, STATIC_DEPTH, 31)?,
                    1,
                )
            } else {
                (
                    positive("the search depth", params.search_depth, INITIAL_DEPTH, 31)?,
                    positive("the growth", params.growth, GROWTH, 16)?,
                )
            };
            // Their bound: shared memory / (state size * threads a block) - 1.
            let max_depth = (shared_limit / ((CONFIG_BYTES + 4) * block)).saturating_sub(1);
            if max_depth < first {
                return Err(Error::InvalidInput(format!(
                    "a search depth of {first} with {block} threads a block needs more than \
                     --shared-limit {shared_limit} bytes"
                )));
            }
            let function = gpu
                .load_function(&module, "dp_condensed")
                .map_err(Error::from)?;
            allow_shared(&function, (CONFIG_BYTES + 4) * (max_depth + 1) * block)?;
            let no_release = 0u64;
            let hand_below = condensed_hand_below(n);
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(&no_release)
                .arg(&config_words)
                .arg(&count)
                .arg(&first)
                .arg(&growth)
                .arg(&max_depth)
                .arg(&n32)
                .arg(&hand_below)
                .arg(&mut result)
                .arg(&mut stats);
            let config = LaunchConfig {
                grid_dim: (count.div_ceil(block), 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: (CONFIG_BYTES + 4) * (first + 1) * block,
            };
            // SAFETY: dp_condensed takes (BlockRelease* release, const Config* configs,
            // unsigned thread_count, unsigned depth, unsigned growth, unsigned max_depth,
            // unsigned n, unsigned hand_below, unsigned long long* result, unsigned long long*
            // stats); with no
            // release it frees nothing, its threads below count read one Config (four words)
            // each, and its stacks use (depth + 1) * blockDim entries of the dynamic shared
            // memory given here.
            unsafe { timed_launch(&stream, &mut launch, config) }?
        }
        _ => {
            let search = positive("the search depth", params.search_depth, STATIC_DEPTH, 31)?;
            let stack_bytes = ENTRY_BYTES * search * block;
            let volume = shared_limit.saturating_sub(stack_bytes) / ENTRY_BYTES;
            let threshold = volume.saturating_sub((search + 1) * block);
            if threshold == 0 {
                return Err(Error::InvalidInput(format!(
                    "the shared-memory limit {shared_limit} leaves no swap buffer beside the stacks of \
                     {block} threads {search} rows deep (lower --block-size or --search-depth)"
                )));
            }
            let function = gpu.load_function(&module, "dp_swap").map_err(Error::from)?;
            let shared = ENTRY_BYTES * (search * block + volume);
            allow_shared(&function, shared + 64)?;
            let mask = board_mask(n);
            let entries: Vec<u32> = configs
                .iter()
                .flat_map(|c| [c[0], c[1], c[2], c[3], mask & !(c[0] | c[1] | c[2])])
                .collect();
            let entries = stream
                .clone_htod(&entries)
                .map_err(driver("cuMemcpyHtoD"))?;
            let no_header = 0u64;
            let hand_below = condensed_hand_below(n);
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(&no_header)
                .arg(&entries)
                .arg(&count)
                .arg(&search)
                .arg(&volume)
                .arg(&threshold)
                .arg(&n32)
                .arg(&hand_below)
                .arg(&mut result)
                .arg(&mut stats);
            let config = LaunchConfig {
                grid_dim: (count.div_ceil(block), 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: shared,
            };
            // SAFETY: dp_swap takes (SwapHeader* header, const Entry* entries, unsigned count,
            // unsigned depth, unsigned volume, unsigned threshold, unsigned n, unsigned
            // hand_below, unsigned long long* result, unsigned long long* stats); with no header
            // it frees nothing, its threads read the five-word Entries below count (one each),
            // and the stacks and the buffer of `volume` entries fill the dynamic shared memory
            // given here.
            unsafe { timed_launch(&stream, &mut launch, config) }?
        }
    };
    let sum = stream.clone_dtoh(&result).map_err(driver("cuMemcpyDtoH"))?[0];
    let stats = stream.clone_dtoh(&stats).map_err(driver("cuMemcpyDtoH"))?;
    if stats[1] != 0 {
        return Err(Error::Verification(format!(
            "{} dp-swap buffers overflowed: boards were lost",
            stats[1]
        )));
    }
    Ok((
        mirrored(u128::from(sum))?,
        configs.len(),
        depth,
        seconds,
        stats[0],
    ))
}

/// Lets `function` (and its device-side launches) take `bytes` of dynamic shared memory.
fn allow_shared(function: &CudaFunction, bytes: u32) -> Result<()> {
    if bytes <= 48 * 1024 - 64 {
        return Ok(());
    }
    raise_shared_limit(function, bytes, "lower --shared-limit or --block-size")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvrtc_compiles_the_dynamic_parallelism_kernels_for_sm_90() {
        super::super::tests_support::compile_or_note(&crate::kernels::PLAUTH, "dp_swap");
    }

    #[test]
    fn host_configurations_start_below_the_first_rows() {
        let (even, depth) = configs(12, 1);
        assert_eq!((even.len(), depth), (6, 1));
        assert!(even.iter().all(|c| c[3] == 1 && c[0].count_ones() == 1));
        let (odd, _) = configs(13, 2);
        assert!(odd.iter().all(|c| c[3] == 2 && c[0].count_ones() == 2));
    }

    #[test]
    fn grids_stop_at_the_middle_of_the_board() {
        assert_eq!((condensed_hand_below(18), swarm_hand_below(18)), (9, 9));
        assert_eq!((condensed_hand_below(17), swarm_hand_below(17)), (9, 8));
        assert_eq!((condensed_hand_below(1), swarm_hand_below(1)), (1, 0));
    }
}
