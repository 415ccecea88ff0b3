//! The GPU counters: thicket's constellation kernel ([`queens`], `kernels/queens.cu`) and the
//! kernels of three papers, reproduced so that thicket can compare them with it (`thicket
//! queens N --strategy S`, `thicket bench queens --strategies all`):
//!
//! - Zhang, Shu and Wu 2011 ([`zhang`]): `naive`, `l1`, `shared`, `shared-nbc`, `irrc`,
//!   `pool-block`, `pool-global`;
//! - Feinbube et al. 2010 ([`feinbube`]): `feinbube`;
//! - Plauth et al. 2016 ([`plauth`]), with CUDA dynamic parallelism: `dp1`, `dp2`, `dp3`,
//!   `dp-swap`.
//!
//! The papers' kernels are their algorithms: plain row-by-row bitboard backtracking under the
//! mirror symmetry, on subproblems the host generates ([`crate::jobs`]). They count the total
//! (OEIS A000170); the unique count comes from the CPU by Burnside's lemma ([`with_unique`]).
//! This module holds what they share: one [`StrategyRunner`] a device, loading their modules
//! and timing their launches.

pub mod feinbube;
pub mod plauth;
pub mod queens;
pub mod zhang;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use thicket_core::{Error, Result};
use thicket_gpu::cudarc::driver::sys::CUfunction_attribute;
use thicket_gpu::cudarc::driver::{
    CudaFunction, CudaModule, CudaStream, DriverError, LaunchArgs, LaunchConfig,
};
use thicket_gpu::{Gpu, GpuError};

use crate::count::QueensCount;
use crate::jobs;
use crate::rotations::{count_fixed, unique_from_total, Turn};
use crate::strategy::{Params, Strategy, StrategyRun, MAX_N, MIN_N};

/// A device with the papers' kernels loaded on first use, one a device per process
/// ([`StrategyRunner::shared`]).
pub(crate) struct StrategyRunner {
    gpu: Arc<Gpu>,
    modules: Vec<(&'static str, Arc<CudaModule>)>,
    dp_limits_set: bool,
    /// The last subproblems generated, which the next strategy on the same board reuses.
    last_jobs: Option<Arc<jobs::Subproblems>>,
}

/// The runners this process opened, by device ordinal.
type Runners = HashMap<usize, Arc<Mutex<StrategyRunner>>>;

/// Every runner of the process: opened on first use, kept until the process ends.
static RUNNERS: OnceLock<Mutex<Runners>> = OnceLock::new();

impl StrategyRunner {
    /// The runner of CUDA device `ordinal`, opened on the process's first call and handed to
    /// every later one: its loaded kernels, its raised device-runtime limits (which a context
    /// takes only before its first launch that allocates on the device) and its last
    /// subproblems outlive each count. Fails with [`Error::Unavailable`] when no GPU can be
    /// used; a failed open is not remembered.
    pub(crate) fn shared(ordinal: usize) -> Result<Arc<Mutex<StrategyRunner>>> {
        let runners = RUNNERS.get_or_init(|| Mutex::new(HashMap::new()));
        // The map is only inserted into, so one a panic left locked is still whole.
        let mut runners = runners.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(runner) = runners.get(&ordinal) {
            return Ok(Arc::clone(runner));
        }
        thicket_gpu::probe().map_err(Error::from)?;
        let runner = Arc::new(Mutex::new(StrategyRunner {
            gpu: Gpu::shared(ordinal).map_err(Error::from)?,
            modules: Vec::new(),
            dp_limits_set: false,
            last_jobs: None,
        }));
        runners.insert(ordinal, Arc::clone(&runner));
        Ok(runner)
    }

    /// The device's name.
    pub(crate) fn device_name(&self) -> &str {
        &self.gpu.info().name
    }

    /// The device.
    pub(crate) fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The subproblems of `n` queens `depth` rows deep, generated once for consecutive runs.
    pub(crate) fn jobs(&mut self, n: usize, depth: usize) -> Arc<jobs::Subproblems> {
        match &self.last_jobs {
            Some(jobs) if jobs.n == n && jobs.depth == depth => jobs.clone(),
            _ => {
                self.last_jobs = None;
                let jobs = Arc::new(jobs::Subproblems::generate(n, depth));
                self.last_jobs = Some(jobs.clone());
                jobs
            }
        }
    }

    /// The module `kernels`, compiled (or linked, for dynamic parallelism) on first use.
    pub(crate) fn module(
        &mut self,
        kernels: &thicket_gpu::KernelModule,
    ) -> Result<Arc<CudaModule>> {
        let source = &kernels.source;
        if let Some((_, module)) = self.modules.iter().find(|(name, _)| *name == source.name) {
            return Ok(module.clone());
        }
        let loaded = if kernels.linked {
            self.gpu.load_linked_module(source, &kernels.options())
        } else {
            self.gpu.load_module_with_stats(source, &kernels.options())
        };
        let (module, _) = loaded.map_err(Error::from)?;
        self.modules.push((source.name, module.clone()));
        Ok(module)
    }

    /// Raises the device runtime's limits once per context, before the first launch that
    /// allocates on the device: the malloc heap and the pending-launch buffer.
    pub(crate) fn ensure_dp_limits(&mut self) -> Result<()> {
        use thicket_gpu::cudarc::driver::sys::CUlimit;
        if !self.dp_limits_set {
            let context = self.gpu.context();
            context
                .set_limit(
                    CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE,
                    plauth::MALLOC_HEAP_BYTES,
                )
                .map_err(driver("cuCtxSetLimit(MALLOC_HEAP_SIZE)"))?;
            context
                .set_limit(
                    CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
                    plauth::PENDING_LAUNCHES,
                )
                .map_err(driver("cuCtxSetLimit(PENDING_LAUNCH)"))?;
            self.dp_limits_set = true;
        }
        Ok(())
    }

    /// Counts all solutions of `n` queens (4 <= n <= 24) with a paper's `strategy`.
    ///
    /// [`Strategy::Constellation`] is not run here (it is `count_gpu`) and is
    /// refused as invalid input, as are parameters outside the kernels' ranges.
    pub(crate) fn count(
        &mut self,
        strategy: Strategy,
        n: usize,
        params: &Params,
    ) -> Result<StrategyRun> {
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(Error::InvalidInput(format!(
                "the {} kernel counts boards of {MIN_N} to {MAX_N} queens, not {n}",
                strategy.name()
            )));
        }
        let (total, jobs, depth, kernel_seconds, refused_launches) = match strategy {
            Strategy::Constellation => {
                return Err(Error::InvalidInput(
                    "the constellation strategy is thicket's default GPU path".into(),
                ))
            }
            Strategy::Naive
            | Strategy::L1
            | Strategy::Shared
            | Strategy::SharedNbc
            | Strategy::Irrc
            | Strategy::PoolBlock
            | Strategy::PoolGlobal => zhang::count(self, strategy, n, params)?,
            Strategy::Feinbube => feinbube::count(self, n, params)?,
            Strategy::Dp1 | Strategy::Dp2 | Strategy::Dp3 | Strategy::DpSwap => {
                plauth::count(self, strategy, n, params)?
            }
        };
        Ok(StrategyRun {
            strategy,
            n,
            total,
            jobs,
            depth,
            kernel_seconds,
            refused_launches,
            device: self.device_name().to_owned(),
        })
    }
}

/// What a strategy's count returns: (total, jobs, host depth, kernel seconds, refused launches).
pub(crate) type Counted = (u128, usize, usize, f64, u64);

/// The host's rows, checked against the board: at least 1 (2 for odd `n`), below `n`.
pub(crate) fn host_depth(n: usize, asked: Option<usize>, default: usize) -> Result<usize> {
    let depth = asked.unwrap_or(default);
    let least = if n % 2 == 1 { 2 } else { 1 };
    if depth < least || depth >= n {
        return Err(Error::InvalidInput(format!(
            "a host depth of {depth} does not fit N = {n}: it must be at least {least} and below {n}"
        )));
    }
    Ok(depth)
}

/// A positive parameter or its default, refused when zero or above `max`.
pub(crate) fn positive(name: &str, value: Option<u32>, default: u32, max: u32) -> Result<u32> {
    let value = value.unwrap_or(default);
    if value == 0 || value > max {
        return Err(Error::InvalidInput(format!(
            "{name} must be between 1 and {max}, not {value}"
        )));
    }
    Ok(value)
}

/// `2 * sum` (the mirror images), checked.
pub(crate) fn mirrored(sum: u128) -> Result<u128> {
    sum.checked_mul(2)
        .ok_or_else(|| Error::Overflow("the solution count exceeds 128 bits".into()))
}

/// Returns a mapper from a cudarc [`DriverError`] of the driver call `op` to [`Error::Gpu`],
/// for `.map_err(driver("cuMemAlloc"))`.
pub(crate) fn driver(op: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::from(GpuError::driver(op)(e))
}

/// Launches the kernel set up in `launch` with `config` once everything queued on `stream` is
/// done, waits for it and returns the seconds it ran.
///
/// # Safety
/// As for cudarc's `LaunchArgs::launch`: the arguments pushed onto `launch` must match the
/// kernel's parameters, and `config` (grid and dynamic shared memory) must fit what it does.
pub(crate) unsafe fn timed_launch(
    stream: &CudaStream,
    launch: &mut LaunchArgs<'_>,
    config: LaunchConfig,
) -> Result<f64> {
    stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize"))?;
    let started = Instant::now();
    // SAFETY: the caller guarantees that the arguments and the configuration fit the kernel.
    unsafe { launch.launch(config) }.map_err(driver("cuLaunchKernel"))?;
    stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize"))?;
    Ok(started.elapsed().as_secs_f64())
}

/// Lets `function` take `bytes` of dynamic shared memory a block (beyond the default 48 KiB it
/// must opt in); `hint` names the options that lower the need, for when the device refuses.
pub(crate) fn raise_shared_limit(function: &CudaFunction, bytes: u32, hint: &str) -> Result<()> {
    function
        .set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            i32::try_from(bytes).unwrap_or(i32::MAX),
        )
        .map_err(|e| {
            Error::InvalidInput(format!(
                "{bytes} bytes of shared memory a block is more than the device allows ({hint}): {}",
                GpuError::driver("cuFuncSetAttribute")(e)
            ))
        })
}

/// The total of `run` with the unique count beside it, from the solutions a half or a quarter
/// turn fixes (CPU, on the current rayon pool) by Burnside's lemma.
pub fn with_unique(run: &StrategyRun) -> Result<QueensCount> {
    let half = count_fixed(run.n, Turn::Half);
    let quarter = count_fixed(run.n, Turn::Quarter);
    Ok(QueensCount {
        n: run.n,
        total: run.total,
        unique: unique_from_total(run.n, run.total, half, quarter)?,
    })
}

/// The NVRTC checks of the kernel tests: compile for sm_90 where NVRTC is installed (CI
/// requires it), else say that nothing was compiled.
#[cfg(test)]
pub(crate) mod tests_support {
    use thicket_gpu::KernelModule;

    /// Compiles `module` for sm_90 and checks that the image names `kernel`.
    pub fn compile_or_note(module: &KernelModule, kernel: &str) {
        let (source, relocatable) = (&module.source, module.linked);
        if let Err(error) = thicket_gpu::nvrtc_status() {
            if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
                panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
            }
            println!(
                "NOTE {}: libnvrtc is absent, so it was NOT compiled ({error})",
                source.name
            );
            return;
        }
        let image = module
            .compile_for_arch("sm_90")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&image[..4], b"\x7fELF");
        assert!(image.windows(kernel.len()).any(|w| w == kernel.as_bytes()));
        if relocatable {
            println!(
                "{} compiled for sm_90 with -rdc=true; NOT linked (linking with libcudadevrt.a needs a GPU machine)",
                source.name
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_checked() {
        assert_eq!(host_depth(16, None, 5).unwrap(), 5);
        assert!(host_depth(15, Some(1), 1).is_err());
        assert!(host_depth(8, Some(8), 1).is_err());
        assert!(positive("the pool size", Some(0), 1, 10).is_err());
        assert_eq!(positive("the pool size", None, 7, 10).unwrap(), 7);
    }
}
