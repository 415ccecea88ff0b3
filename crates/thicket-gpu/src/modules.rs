//! Kernel modules as solver crates list them (one `kernels.rs` per crate, written with
//! [`crate::kernel_modules!`]), compiled for every architecture NVRTC supports without a GPU,
//! or ahead of their first use on one.

use std::sync::Arc;

use cudarc::driver::CudaModule;

use crate::compile::{compile_for_arch, supported_archs, KernelSource};
use crate::error::GpuError;
use crate::gpu::{Gpu, ModuleStats};
use crate::link::compile_relocatable_for_arch;

/// One kernel module: its source, how it is built, the constants the host hands it and the
/// kernels it holds.
#[derive(Debug, Clone, Copy)]
pub struct KernelModule {
    /// The source with its headers.
    pub source: KernelSource,
    /// Compiled as relocatable device code and linked with the device runtime (kernels that
    /// launch kernels: dynamic parallelism).
    pub linked: bool,
    /// Its host compiles it one kernel at a time ([`KernelModule::kernel_options`]), so that a
    /// first call compiles only the kernels it runs; [`warm_up`] compiles it so too.
    pub one_at_a_time: bool,
    /// The `-D` options ([`crate::define`]) that hand the host's constants to the kernel.
    pub defines: fn() -> Vec<String>,
    /// The names of its `extern "C"` kernels, which the crate's kernel test finds in its
    /// image.
    pub kernels: &'static [&'static str],
}

impl KernelModule {
    /// The NVRTC options the module is compiled with: its defines.
    pub fn options(&self) -> Vec<String> {
        (self.defines)()
    }

    /// The NVRTC options that compile only `kernel` of the module: its defines, and
    /// `THICKET_KERNEL` (the kernel's name) and `THICKET_KERNEL_<name>`, by which the source
    /// leaves every other kernel's body out (its templates never instantiated). A source that
    /// honours them says so in its list (`one_at_a_time: true`).
    pub fn kernel_options(&self, kernel: &str) -> Vec<String> {
        let mut options = self.options();
        options.push(format!("-DTHICKET_KERNEL={kernel}"));
        options.push(format!("-DTHICKET_KERNEL_{kernel}"));
        options
    }

    /// Loads the module's `kernel` alone onto `gpu` (compiled with
    /// [`KernelModule::kernel_options`], cached on disk as any module).
    pub fn load_kernel(&self, gpu: &Gpu, kernel: &str) -> Result<Arc<CudaModule>, GpuError> {
        let options = self.kernel_options(kernel);
        match self.linked {
            true => gpu.load_linked_module(&self.source, &options),
            false => gpu.load_module_with_stats(&self.source, &options),
        }
        .map(|loaded| loaded.0)
    }

    /// Compiles the module for `arch` (e.g. `sm_90`) without a GPU.
    pub fn compile_for_arch(&self, arch: &str) -> Result<Vec<u8>, GpuError> {
        if self.linked {
            compile_relocatable_for_arch(&self.source, arch, &self.options())
        } else {
            compile_for_arch(&self.source, arch, &self.options())
        }
    }

    /// Loads the module onto `gpu` with its defines: a linked module through
    /// [`Gpu::load_linked_module`], any other through [`Gpu::load_module_with_stats`].
    pub fn load_with_stats(&self, gpu: &Gpu) -> Result<(Arc<CudaModule>, ModuleStats), GpuError> {
        if self.linked {
            gpu.load_linked_module(&self.source, &self.options())
        } else {
            gpu.load_module_with_stats(&self.source, &self.options())
        }
    }

    /// Loads the module onto `gpu`, as [`KernelModule::load_with_stats`] does.
    pub fn load(&self, gpu: &Gpu) -> Result<Arc<CudaModule>, GpuError> {
        self.load_with_stats(gpu).map(|(module, _)| module)
    }
}

/// The real architectures (`sm_XY`) NVRTC can compile for, from `sm_{oldest}` up.
pub fn architectures_from(oldest: u32) -> Result<Vec<String>, GpuError> {
    let mut archs: Vec<u32> = supported_archs()?
        .into_iter()
        .filter(|&a| a >= oldest)
        .collect();
    archs.sort_unstable();
    archs.dedup();
    Ok(archs.into_iter().map(|a| format!("sm_{a}")).collect())
}

/// Compiles every module for every architecture from `sm_{oldest}` up, the architectures in
/// parallel; returns how many compilations ran, or the first failure (naming module and
/// architecture).
pub fn compile_everywhere(modules: &[KernelModule], oldest: u32) -> Result<usize, GpuError> {
    compile_for_archs(modules, &architectures_from(oldest)?)
}

/// Compiles every module for each of `archs`, the architectures in parallel.
pub(crate) fn compile_for_archs(
    modules: &[KernelModule],
    archs: &[String],
) -> Result<usize, GpuError> {
    let results: Vec<Result<usize, GpuError>> = std::thread::scope(|scope| {
        let jobs: Vec<_> = archs
            .iter()
            .map(|arch| {
                scope.spawn(move || {
                    for module in modules {
                        module.compile_for_arch(arch)?;
                    }
                    Ok(modules.len())
                })
            })
            .collect();
        jobs.into_iter()
            .map(|job| job.join().expect("a compile thread does not panic"))
            .collect()
    });
    results.into_iter().sum()
}

/// Compiles and caches every kernel of `modules` for `gpu` ahead of the runs that need them
/// (`thicket warmup`), as many compilations at once as the machine has cores: a module
/// compiled one kernel at a time is compiled so, kernel by kernel, as its host later asks for
/// them. Returns each compilation's name (`module.cu` or `module.cu: kernel`) and outcome.
pub fn warm_up(gpu: &Gpu, modules: &[KernelModule]) -> Vec<(String, Result<(), GpuError>)> {
    let jobs: Vec<(&KernelModule, Option<&'static str>)> = modules
        .iter()
        .flat_map(|module| -> Vec<(&KernelModule, Option<&'static str>)> {
            match module.one_at_a_time {
                true => module.kernels.iter().map(|k| (module, Some(*k))).collect(),
                false => vec![(module, None)],
            }
        })
        .collect();
    let outcomes: Vec<std::sync::Mutex<Option<Result<(), GpuError>>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(jobs.len()) {
            scope.spawn(|| loop {
                let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((module, kernel)) = jobs.get(at) else {
                    return;
                };
                let outcome = match kernel {
                    Some(kernel) => module.load_kernel(gpu, kernel).map(drop),
                    None => module.load(gpu).map(drop),
                };
                *outcomes[at].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
            });
        }
    });
    jobs.iter()
        .zip(outcomes)
        .map(|((module, kernel), outcome)| {
            let name = match kernel {
                Some(kernel) => format!("{}: {kernel}", module.source.name),
                None => module.source.name.to_owned(),
            };
            let outcome = outcome.into_inner().unwrap_or_else(|e| e.into_inner());
            (name, outcome.expect("every job ran"))
        })
        .collect()
}
