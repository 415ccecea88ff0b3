//! The CUDA kernel module of the lattices (`kernels/lattice.cu`): the thesis's per-layer
//! kernel and thicket's tile kernel, with the host's block size and parameter layout as
//! defines.

use thicket_gpu::{define, KernelModule, KernelSource, THICKET_HEADER};

/// The most nodes a block of the tile kernel holds (threads times nodes per lane): a kernel of
/// R nodes a lane runs at most this / R threads a block (its launch bounds), so that a kernel
/// of more registers runs smaller blocks.
pub(crate) const TILE_BLOCK_NODES: usize = 4096;
/// Doubles per option in the tile kernel's parameter array, and their offsets.
pub(crate) const PARAM_DOUBLES: usize = 10;
pub(crate) const P_UP: usize = 0;
pub(crate) const P_DOWN: usize = 1;
pub(crate) const P_EDGE: usize = 2;
pub(crate) const P_GROWTH: usize = 3;
pub(crate) const P_LOG_U: usize = 4;
pub(crate) const P_X_LOG: usize = 5;
pub(crate) const P_X_SIGN: usize = 6;
pub(crate) const P_STEPS: usize = 7;
pub(crate) const P_KIND: usize = 8;
pub(crate) const P_AMERICAN: usize = 9;
/// The kinds of lattice the tile kernel knows (a record's `P_KIND`).
pub(crate) const KIND_LOOKBACK: usize = 0;
pub(crate) const KIND_VANILLA: usize = 1;

fn defines() -> Vec<String> {
    vec![
        define("TILE_BLOCK_NODES", TILE_BLOCK_NODES),
        define("PARAM_DOUBLES", PARAM_DOUBLES),
        define("P_UP", P_UP),
        define("P_DOWN", P_DOWN),
        define("P_EDGE", P_EDGE),
        define("P_GROWTH", P_GROWTH),
        define("P_LOG_U", P_LOG_U),
        define("P_X_LOG", P_X_LOG),
        define("P_X_SIGN", P_X_SIGN),
        define("P_STEPS", P_STEPS),
        define("P_KIND", P_KIND),
        define("P_AMERICAN", P_AMERICAN),
        define("KIND_LOOKBACK", KIND_LOOKBACK),
        define("KIND_VANILLA", KIND_VANILLA),
    ]
}

/// The lattice kernels.
pub(crate) const LATTICE: KernelModule = KernelModule {
    source: KernelSource {
        name: "lattice.cu",
        source: include_str!("../kernels/lattice.cu"),
        headers: &[THICKET_HEADER],
    },
    linked: false,
    defines,
};

/// Every kernel module of the crate.
pub const ALL: [KernelModule; 1] = [LATTICE];

#[cfg(test)]
mod tests {
    use super::*;

    /// The module with all its kernels, for every architecture from sm_80 (CI:
    /// `THICKET_REQUIRE_NVRTC=1`).
    #[test]
    fn the_module_compiles_with_its_kernels_for_every_architecture_from_sm_80() {
        let mut names = vec![
            "thesis_layer_f32".to_string(),
            "thesis_layer_f64".to_string(),
        ];
        for real in ["f32", "f64"] {
            for kind in ["lookback", "vanilla"] {
                for style in ["american", "european"] {
                    names.push(format!("lattice_tile_{real}_{kind}_{style}_r16"));
                }
            }
        }
        for kind in ["lookback", "vanilla"] {
            for style in ["american", "european"] {
                names.push(format!("lattice_tile_f64_{kind}_{style}_r12"));
            }
        }
        names.push("lattice_tile_f32_vanilla_european_r32".to_string());
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let kernels: [&[&str]; 1] = [&names];
        thicket_gpu::check_modules(&ALL, &kernels);
    }
}
