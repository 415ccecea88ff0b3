//! The CUDA kernel modules of the ATSP (`kernels/atsp.cu`, and with CDP-BP `atsp_cdp.cu`), run
//! by the permutation engine of thicket-perm; each takes the host's node and tour layout as
//! defines.

use thicket_gpu::{define, KernelModule, KernelSource, THICKET_HEADER};
use thicket_perm::kernels::PERM_CDP_HEADER;

use crate::gpu::{MAX_CITIES, TOUR_SLOTS, WORDS};

fn defines() -> Vec<String> {
    vec![
        define("ANODE_WORDS", WORDS),
        define("MAX_CITIES", MAX_CITIES),
        define("TOUR_SLOTS", TOUR_SLOTS),
    ]
}

/// BP-DFS, the pool, REC-CDP and REC-DP3 for the ATSP.
pub(crate) const ATSP: KernelModule = KernelModule {
    source: KernelSource {
        name: "atsp.cu",
        source: include_str!("../kernels/atsp.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines,
};

/// CDP-BP for the ATSP: linked with the device runtime.
pub(crate) const ATSP_CDP: KernelModule = KernelModule {
    source: KernelSource {
        name: "atsp_cdp.cu",
        source: concat!(
            include_str!("../kernels/atsp.cu"),
            include_str!("../kernels/atsp_cdp.cu")
        ),
        headers: &[THICKET_HEADER, PERM_CDP_HEADER],
    },
    linked: true,
    defines,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 2] = [ATSP, ATSP_CDP];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module for sm_90 with its kernels in it, and for every architecture NVRTC
    /// supports from sm_80 up (CI: `THICKET_REQUIRE_NVRTC=1`); without NVRTC it says that
    /// nothing was compiled. The CDP-BP module is only compiled (relocatable code).
    #[test]
    fn every_module_compiles_with_its_kernels_for_every_architecture_from_sm_80() {
        if let Err(error) = thicket_gpu::nvrtc_status() {
            if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
                panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
            }
            println!("NOTE: libnvrtc is absent, so the kernels were NOT compiled ({error})");
            return;
        }
        let expected: [(&KernelModule, &[&str]); 2] = [
            (&ATSP, &["atsp_bp_dfs", "atsp_pool", "atsp_expand"]),
            (&ATSP_CDP, &["atsp_cdp_bp"]),
        ];
        for (module, kernels) in expected {
            let cubin = module
                .compile_for_arch("sm_90")
                .unwrap_or_else(|e| panic!("{e}"));
            for kernel in kernels {
                let name = kernel.as_bytes();
                assert!(
                    cubin.windows(name.len()).any(|w| w == name),
                    "{kernel} is missing from {}",
                    module.source.name
                );
            }
        }
        let archs = thicket_gpu::architectures_from(80).unwrap();
        let compiled = thicket_gpu::compile_everywhere(&ALL, 80).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(compiled, ALL.len() * archs.len());
    }
}
