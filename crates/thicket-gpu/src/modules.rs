//! Kernel modules as solver crates list them (one `kernels.rs` per crate), and the check that
//! compiles every listed module for every architecture NVRTC supports, without a GPU.

use crate::compile::{compile_for_arch, supported_archs};
use crate::link::compile_relocatable_for_arch;
use crate::{GpuError, KernelSource};

/// One kernel module: its source, how it is built, and the constants the host hands it.
#[derive(Debug, Clone, Copy)]
pub struct KernelModule {
    /// The source with its headers.
    pub source: KernelSource,
    /// Compiled as relocatable device code and linked with the device runtime (kernels that
    /// launch kernels: dynamic parallelism).
    pub linked: bool,
    /// The `-D` options ([`crate::define`]) that hand the host's constants to the kernel.
    pub defines: fn() -> Vec<String>,
}

impl KernelModule {
    /// The NVRTC options the module is compiled with: its defines.
    pub fn options(&self) -> Vec<String> {
        (self.defines)()
    }

    /// Compiles the module for `arch` (e.g. `sm_90`) without a GPU.
    pub fn compile_for_arch(&self, arch: &str) -> Result<Vec<u8>, GpuError> {
        if self.linked {
            compile_relocatable_for_arch(&self.source, arch, &self.options())
        } else {
            compile_for_arch(&self.source, arch, &self.options())
        }
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
    let archs = architectures_from(oldest)?;
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
