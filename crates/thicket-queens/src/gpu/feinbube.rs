//! Feinbube et al. 2010, "NQueens on CUDA": Somers' stack search per thread from the host's
//! precalculated board settings, after their optimisation steps 1-4 (kernel in
//! `kernels/feinbube.cu`).

use thicket_core::{Error, Result};
use thicket_gpu::cudarc::driver::sys::CUfunction_attribute;
use thicket_gpu::cudarc::driver::{LaunchConfig, PushKernelArg};

use super::StrategyRunner;
use super::{driver, host_depth, mirrored, positive, timed_launch, Counted};
use crate::jobs::zhang_depth;
use crate::strategy::Params;

/// Default threads per block (see [`Params::block_size`]).
pub const BLOCK_SIZE: u32 = 128;

/// Counts the total of `n` queens with Feinbube et al.'s kernel.
pub(crate) fn count(runner: &mut StrategyRunner, n: usize, params: &Params) -> Result<Counted> {
    let depth = host_depth(n, params.depth, zhang_depth(n))?;
    let block = positive("the block size", params.block_size, BLOCK_SIZE, 1024)?;
    let settings = runner.jobs(n, depth);
    let threads = u32::try_from(settings.len()).map_err(|_| {
        Error::InvalidInput(format!(
            "too many settings ({}) for one launch",
            settings.len()
        ))
    })?;
    // Step 4: 4 * (board size - depth) words a thread.
    let shared_bytes = 16 * (n - depth) as u32 * block;
    let module = runner.module(&crate::kernels::FEINBUBE)?;
    let function = runner
        .gpu()
        .load_function(&module, "feinbube_nqueens")
        .map_err(Error::from)?;
    if shared_bytes > 48 * 1024 {
        function
            .set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                i32::try_from(shared_bytes).unwrap_or(i32::MAX),
            )
            .map_err(|_| {
                Error::InvalidInput(format!(
                    "{shared_bytes} bytes of shared memory a block is more than the device allows"
                ))
            })?;
    }
    let stream = runner.gpu().stream().clone();
    let data = stream
        .clone_htod(&settings.queens)
        .map_err(driver("cuMemcpyHtoD"))?;
    let mut counts = stream
        .alloc_zeros::<u64>(settings.len().max(1))
        .map_err(driver("cuMemAlloc"))?;
    let (board, depth_arg) = (n as u32, depth as u32);
    let config = LaunchConfig {
        grid_dim: (threads.div_ceil(block).max(1), 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared_bytes,
    };
    let mut launch = stream.launch_builder(&function);
    launch
        .arg(&board)
        .arg(&threads)
        .arg(&depth_arg)
        .arg(&data)
        .arg(&mut counts);
    // SAFETY: feinbube_nqueens takes (unsigned board_size, unsigned thread_count, unsigned
    // depth, const unsigned* settings, unsigned long long* counts); threads below thread_count
    // read depth settings words each and write one count; each uses 4 * (n - depth) words of
    // the dynamic shared memory given here.
    let seconds = unsafe { timed_launch(&stream, &mut launch, config) }?;
    let per_thread = stream.clone_dtoh(&counts).map_err(driver("cuMemcpyDtoH"))?;
    let sum: u128 = per_thread.iter().map(|&c| u128::from(c)).sum();
    Ok((mirrored(sum)?, settings.len(), depth, seconds, 0))
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvrtc_compiles_feinbubes_kernel_for_sm_90() {
        super::super::tests_support::compile_or_note(&crate::kernels::FEINBUBE, "feinbube_nqueens");
    }
}
