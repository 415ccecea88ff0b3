//! The kernel test every solver crate runs (feature `test-support`): each listed module
//! compiled for every architecture NVRTC supports, without a GPU. It lives behind the feature
//! because it is test code: it panics on a failure and prints what it compiled (or that it
//! compiled nothing), which the library proper never does.

use crate::compile::nvrtc_status;
use crate::modules::{architectures_from, compile_for_archs, KernelModule};

/// The environment variable that narrows [`check_modules`] to a comma-separated list of
/// architectures (e.g. `sm_90`) while iterating on a kernel; unset, it compiles for every
/// architecture from sm_80 up.
pub const CHECK_ARCHS_ENV: &str = "THICKET_CHECK_ARCHS";

/// The kernel test of a solver crate ([`crate::kernel_modules!`] writes it): compiles each of
/// `modules` for sm_90 and checks that its image holds every kernel it lists, then compiles
/// every module for every architecture from sm_80 up (only those [`CHECK_ARCHS_ENV`] names,
/// where it is set). Without NVRTC it prints a NOTE that nothing was compiled, and panics
/// where `THICKET_REQUIRE_NVRTC=1` (CI). A failure panics with the compiler's message.
pub fn check_modules(modules: &[KernelModule]) {
    if let Err(error) = nvrtc_status() {
        if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
            panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
        }
        println!("NOTE: libnvrtc is absent, so the kernels were NOT compiled ({error})");
        return;
    }
    for module in modules {
        let image = module
            .compile_for_arch("sm_90")
            .unwrap_or_else(|e| panic!("{e}"));
        for name in module.kernels {
            let bytes = name.as_bytes();
            assert!(
                image.windows(bytes.len()).any(|w| w == bytes),
                "{name} is missing from {}",
                module.source.name
            );
        }
    }
    let archs = match std::env::var(CHECK_ARCHS_ENV) {
        Ok(list) => list.split(',').map(|a| a.trim().to_owned()).collect(),
        Err(_) => architectures_from(80).unwrap_or_else(|e| panic!("{e}")),
    };
    let compiled = compile_for_archs(modules, &archs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled, modules.len() * archs.len());
    println!(
        "compiled {} modules for {}",
        modules.len(),
        archs.join(", ")
    );
}
