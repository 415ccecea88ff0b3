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

/// The kernel test of a solver crate: compiles each of `modules` for sm_90 and checks that its
/// image holds the kernels `kernels` lists for it (same order), then compiles every module for
/// every architecture from sm_80 up. Without NVRTC it says that nothing was compiled, and
/// panics where `THICKET_REQUIRE_NVRTC=1` (CI). A failure panics with the compiler's message.
pub fn check_modules(modules: &[KernelModule], kernels: &[&[&str]]) {
    if let Err(error) = crate::nvrtc_status() {
        if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
            panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
        }
        println!("NOTE: libnvrtc is absent, so the kernels were NOT compiled ({error})");
        return;
    }
    for (module, names) in modules.iter().zip(kernels) {
        let image = module
            .compile_for_arch("sm_90")
            .unwrap_or_else(|e| panic!("{e}"));
        for name in names.iter() {
            let bytes = name.as_bytes();
            assert!(
                image.windows(bytes.len()).any(|w| w == bytes),
                "{name} is missing from {}",
                module.source.name
            );
        }
    }
    let archs = architectures_from(80).unwrap_or_else(|e| panic!("{e}"));
    let compiled = compile_everywhere(modules, 80).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled, modules.len() * archs.len());
    println!(
        "compiled {} modules for {}",
        modules.len(),
        archs.join(", ")
    );
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
