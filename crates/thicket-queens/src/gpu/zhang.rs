//! Zhang, Shu and Wu 2011, "Optimization of N-Queens Solvers on Graphics Processors": the naive
//! kernel and each optimisation of their Sec. 4 (kernels in `kernels/zhang.cu`).
//! Jobs are the host's placements of the first n - 11 rows, three masks each (their Sec. 3).

use thicket_core::{Error, Result};
use thicket_gpu::cudarc::driver::sys::{CUfunc_cache, CUfunction_attribute};
use thicket_gpu::cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use super::StrategyRunner;
use super::{driver, host_depth, mirrored, positive, raise_shared_limit, timed_launch, Counted};
use crate::count::board_mask;
use crate::jobs::zhang_depth;
use crate::strategy::Params;
use crate::strategy::Strategy;

/// Default threads per block (see [`Params::block_size`]).
pub const BLOCK_SIZE: u32 = 64;
/// Default jobs per pool (see [`Params::pool_size`]).
pub const POOL_SIZE: u32 = 256;

/// Shared memory a block may use without opting in; more needs the function attribute.
const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// Counts the total of `n` queens with one of Zhang et al.'s kernels.
pub(crate) fn count(
    runner: &mut StrategyRunner,
    strategy: Strategy,
    n: usize,
    params: &Params,
) -> Result<Counted> {
    let depth = host_depth(n, params.depth, zhang_depth(n))?;
    let block = positive("the block size", params.block_size, BLOCK_SIZE, 1024)?;
    let pool = positive("the pool size", params.pool_size, POOL_SIZE, u32::MAX)?;
    if matches!(strategy, Strategy::PoolBlock | Strategy::PoolGlobal) && pool < block {
        return Err(Error::InvalidInput(format!(
            "the pool size {pool} is smaller than a block ({block} threads): every thread needs a job"
        )));
    }
    let rows = (n - depth) as u32;
    let jobs = runner.jobs(n, depth);
    let job_count = u32::try_from(jobs.len()).map_err(|_| {
        Error::InvalidInput(format!("too many jobs ({}) for one launch", jobs.len()))
    })?;
    let module = runner.module(&crate::kernels::ZHANG)?;
    let name = match strategy {
        Strategy::Naive | Strategy::L1 => "zhang_global",
        Strategy::Shared => "zhang_shared_conflicting",
        Strategy::SharedNbc => "zhang_shared_transposed",
        Strategy::Irrc => "zhang_irrc",
        Strategy::PoolBlock => "zhang_pool_block",
        _ => "zhang_pool_global",
    };
    let function = runner
        .gpu()
        .load_function(&module, name)
        .map_err(Error::from)?;
    let workspace_words = u64::from(rows) * 4;
    let shared_bytes = match strategy {
        Strategy::Naive | Strategy::L1 => 0,
        _ => u32::try_from(workspace_words * 4 * u64::from(block)).unwrap_or(u32::MAX),
    };
    configure(&function, strategy, shared_bytes)?;

    let stream = runner.gpu().stream().clone();
    let words = stream
        .clone_htod(&jobs.mask_words())
        .map_err(driver("cuMemcpyHtoD"))?;
    let blocks = match strategy {
        Strategy::PoolBlock | Strategy::PoolGlobal => job_count.div_ceil(pool),
        _ => job_count.div_ceil(block),
    }
    .max(1);
    let mut results = stream
        .alloc_zeros::<u64>(blocks as usize)
        .map_err(driver("cuMemAlloc"))?;
    let mask = board_mask(n);
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared_bytes,
    };
    // Buffers that must outlive the launch.
    let mut workspace;
    let mut seek;
    let mut launch = stream.launch_builder(&function);
    launch.arg(&words).arg(&job_count).arg(&rows).arg(&mask);
    match strategy {
        Strategy::Naive | Strategy::L1 => {
            let len = usize::try_from(u64::from(job_count) * workspace_words)
                .map_err(|_| Error::InvalidInput("the workspace does not fit in memory".into()))?;
            workspace = stream
                .alloc_zeros::<u32>(len.max(1))
                .map_err(driver("cuMemAlloc"))?;
            launch.arg(&mut workspace);
        }
        Strategy::PoolBlock => {
            launch.arg(&pool);
        }
        Strategy::PoolGlobal => {
            seek = stream
                .clone_htod(&[blocks.saturating_mul(block)])
                .map_err(driver("cuMemcpyHtoD"))?;
            launch.arg(&mut seek);
        }
        _ => {}
    }
    launch.arg(&mut results);
    // SAFETY: the arguments match the kernel chosen above (jobs, job count, rows, mask, then the
    // workspace of job_count * 4 * rows words, the pool size, or the global semaphore, then one
    // result per block); every thread reads only jobs below job_count, its workspace slice or
    // its 4 * rows * blockDim words of the dynamic shared memory given here.
    let seconds = unsafe { timed_launch(&stream, &mut launch, config) }?;
    let per_block = stream
        .clone_dtoh(&results)
        .map_err(driver("cuMemcpyDtoH"))?;
    let sum: u128 = per_block.iter().map(|&c| u128::from(c)).sum();
    Ok((mirrored(sum)?, jobs.len(), depth, seconds, 0))
}

/// The cache preference of the experiment (their GTX 480 split 64 KB into L1 and shared
/// memory; Hopper splits 256 KB, chosen here by the carveout): `naive` as the paper's default
/// (shared memory preferred), `l1` with the L1 cache preferred (Table 2), the others preferring
/// shared memory, whose dynamic size is allowed beyond 48 KB when asked for.
fn configure(function: &CudaFunction, strategy: Strategy, shared_bytes: u32) -> Result<()> {
    let (cache, carveout) = if strategy == Strategy::L1 {
        (CUfunc_cache::CU_FUNC_CACHE_PREFER_L1, 0)
    } else {
        (CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED, 100)
    };
    function
        .set_function_cache_config(cache)
        .map_err(driver("cuFuncSetCacheConfig"))?;
    function
        .set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            carveout,
        )
        .map_err(driver("cuFuncSetAttribute(carveout)"))?;
    if shared_bytes > DEFAULT_SHARED_LIMIT {
        raise_shared_limit(
            function,
            shared_bytes,
            "lower --block-size or raise --depth",
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvrtc_compiles_zhangs_kernels_for_sm_90() {
        super::super::tests_support::compile_or_note(&crate::kernels::ZHANG, "zhang_pool_global");
    }
}
