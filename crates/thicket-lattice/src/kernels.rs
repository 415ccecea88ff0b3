//! The CUDA kernel module of the lattices, `lattice.cu`: `kernels/lattice.cuh` (what every
//! kernel needs), then the thesis's per-layer kernel (`kernels/thesis.cu`, launched by
//! `gpu/thesis.rs`) and thicket's tile kernels (`kernels/tiles.cu`, launched by
//! `gpu/tiles.rs`), with the host's block size and parameter layout as defines. One module,
//! so that a process compiles and caches the lattices' kernels together.

use thicket_gpu::{define, THICKET_HEADER};

/// The most nodes a block of the tile kernel holds (threads times nodes per lane): a kernel of
/// R nodes a lane runs at most this / R threads a block (its launch bounds), so that a kernel
/// of more registers runs smaller blocks.
pub(crate) const TILE_BLOCK_NODES: usize = 4096;
/// Doubles per option in the kernels' parameter array, and their offsets. The host writes the
/// contract (`P_SPOT` ..= `P_DIVIDEND`, `P_TREE`, `P_TODAY` ..= `P_WEIGHT`, and on a tree other
/// than CRR its step: `P_U`, `P_D`, `P_LOG_U`, `P_LOG_DRIFT`); the records kernel derives the
/// lattice's weights and units from it on the device (`P_UP` ..= `P_D`), as the CPU lattice
/// does in `f64`. `P_STEPS` is the lattice's layers: N, or N + J for a lookback seasoned J
/// states from the spot (`P_TODAY` = J, the layer that is today).
pub(crate) const PARAM_DOUBLES: usize = 24;
pub(crate) const P_SPOT: usize = 0;
pub(crate) const P_STRIKE: usize = 1;
pub(crate) const P_MATURITY: usize = 2;
pub(crate) const P_VOLATILITY: usize = 3;
pub(crate) const P_RATE: usize = 4;
pub(crate) const P_STEPS: usize = 5;
pub(crate) const P_PAYOFF: usize = 6;
pub(crate) const P_AMERICAN: usize = 7;
pub(crate) const P_DIVIDEND: usize = 8;
pub(crate) const P_UP: usize = 9;
pub(crate) const P_DOWN: usize = 10;
pub(crate) const P_EDGE: usize = 11;
pub(crate) const P_GROWTH: usize = 12;
pub(crate) const P_LOG_U: usize = 13;
pub(crate) const P_X_LOG: usize = 14;
pub(crate) const P_X_SIGN: usize = 15;
pub(crate) const P_KIND: usize = 16;
pub(crate) const P_U: usize = 17;
pub(crate) const P_D: usize = 18;
pub(crate) const P_TREE: usize = 19;
pub(crate) const P_LOG_DRIFT: usize = 20;
pub(crate) const P_TODAY: usize = 21;
pub(crate) const P_STATE: usize = 22;
pub(crate) const P_WEIGHT: usize = 23;
/// Values per option the read-out kernel writes: price, delta, gamma, theta.
pub(crate) const PRICED_VALUES: usize = 4;
/// Nodes per layer the tile kernel keeps of today's layer and the next two, around today's
/// state (as the CPU's `Top`): node `lo + n` of layer `today + k` at `FIRST_NODES * k + n`.
pub(crate) const FIRST_NODES: usize = 6;
/// Values per option of those three layers.
pub(crate) const FIRST_VALUES: usize = 3 * FIRST_NODES;
/// Threads per block of the records and read-out kernels (one thread an option), and their
/// launch bound: one warp, so that a book's options spread over as many SMs as they have
/// warps. Each thread's work is a chain of double-precision exp, log and divisions, bound by
/// latency: blocks of 256 put NVIDIA's 1,024-option book on 4 SMs and its f64 span was 14 µs
/// longer (docs/benchmarks.md).
pub(crate) const BOOKEND_THREADS: usize = 32;
/// A record's `P_TREE`: the records kernel derives CRR's step from the contract; any other
/// tree's step is staged by the host (`trees::drifted_up_down`, the CPU's `f64` formulas).
pub(crate) const TREE_CRR: usize = 0;
pub(crate) const TREE_STAGED: usize = 1;
/// The kinds of lattice the tile kernel knows (a record's `P_KIND`).
pub(crate) const KIND_LOOKBACK: usize = 0;
pub(crate) const KIND_VANILLA: usize = 1;
/// The payoffs (a record's `P_PAYOFF`).
pub(crate) const PAYOFF_LOOKBACK_PUT: usize = 0;
pub(crate) const PAYOFF_LOOKBACK_CALL: usize = 1;
pub(crate) const PAYOFF_CALL: usize = 2;
pub(crate) const PAYOFF_PUT: usize = 3;

fn defines() -> Vec<String> {
    vec![
        define("TILE_BLOCK_NODES", TILE_BLOCK_NODES),
        define("PARAM_DOUBLES", PARAM_DOUBLES),
        define("P_SPOT", P_SPOT),
        define("P_STRIKE", P_STRIKE),
        define("P_MATURITY", P_MATURITY),
        define("P_VOLATILITY", P_VOLATILITY),
        define("P_RATE", P_RATE),
        define("P_STEPS", P_STEPS),
        define("P_PAYOFF", P_PAYOFF),
        define("P_AMERICAN", P_AMERICAN),
        define("P_DIVIDEND", P_DIVIDEND),
        define("P_UP", P_UP),
        define("P_DOWN", P_DOWN),
        define("P_EDGE", P_EDGE),
        define("P_GROWTH", P_GROWTH),
        define("P_LOG_U", P_LOG_U),
        define("P_X_LOG", P_X_LOG),
        define("P_X_SIGN", P_X_SIGN),
        define("P_KIND", P_KIND),
        define("P_U", P_U),
        define("P_D", P_D),
        define("P_TREE", P_TREE),
        define("P_LOG_DRIFT", P_LOG_DRIFT),
        define("P_TODAY", P_TODAY),
        define("P_STATE", P_STATE),
        define("P_WEIGHT", P_WEIGHT),
        define("FIRST_NODES", FIRST_NODES),
        define("FIRST_VALUES", FIRST_VALUES),
        define("BOOKEND_THREADS", BOOKEND_THREADS),
        define("LONG_THREADS", crate::tile_shape::LONG_THREADS),
        define("TREE_CRR", TREE_CRR),
        define("KIND_LOOKBACK", KIND_LOOKBACK),
        define("KIND_VANILLA", KIND_VANILLA),
        define("PRICED_VALUES", PRICED_VALUES),
        define("PAYOFF_LOOKBACK_PUT", PAYOFF_LOOKBACK_PUT),
        define("PAYOFF_LOOKBACK_CALL", PAYOFF_LOOKBACK_CALL),
        define("PAYOFF_CALL", PAYOFF_CALL),
        define("PAYOFF_PUT", PAYOFF_PUT),
    ]
}

thicket_gpu::kernel_modules! {
    /// The lattice kernels: the thesis's per layer, and the tile kernel per precision, kind,
    /// exercise style and nodes per lane, for books (`lattice_tile_<real>_<kind>_<style>_r<R>`)
    /// and for one long lattice (`lattice_long_...`), which the host picks by name.
    pub(crate) LATTICE: "lattice.cu" {
        sources: [
            "../kernels/lattice.cuh",
            "../kernels/thesis.cu",
            "../kernels/tiles.cu",
        ],
        headers: [THICKET_HEADER],
        linked: false,
        one_at_a_time: true,
        defines: defines,
        kernels: [
            thesis_layer_f32,
            thesis_layer_f64,
            lattice_records_f32,
            lattice_records_f64,
            lattice_read_out_f32,
            lattice_read_out_f64,
            lattice_tile_f32_lookback_american_r16,
            lattice_tile_f32_lookback_european_r16,
            lattice_tile_f32_vanilla_american_r16,
            lattice_tile_f32_vanilla_european_r16,
            lattice_tile_f64_lookback_american_r16,
            lattice_tile_f64_lookback_european_r16,
            lattice_tile_f64_vanilla_american_r16,
            lattice_tile_f64_vanilla_european_r16,
            lattice_tile_f32_vanilla_european_r32,
            lattice_long_f32_lookback_american_r16,
            lattice_long_f32_lookback_european_r16,
            lattice_long_f32_lookback_american_seasoned_r16,
            lattice_long_f32_lookback_european_seasoned_r16,
            lattice_long_f32_vanilla_american_r16,
            lattice_long_f32_vanilla_european_r16,
            lattice_long_f64_lookback_american_r12,
            lattice_long_f64_lookback_european_r12,
            lattice_long_f64_lookback_american_seasoned_r12,
            lattice_long_f64_lookback_european_seasoned_r12,
            lattice_long_f64_vanilla_american_r12,
            lattice_long_f64_vanilla_european_r12,
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::LATTICE;

    /// One kernel at a time: each compiles on its own with its body (the image names it and
    /// holds far less code than the whole module's), as the host compiles them on first use.
    /// Without NVRTC nothing is compiled (CI has it: THICKET_REQUIRE_NVRTC=1).
    #[test]
    fn each_kernel_compiles_alone_and_smaller_than_the_module() {
        if thicket_gpu::nvrtc_status().is_err() {
            println!("NOTE: libnvrtc is absent, so the kernels were NOT compiled");
            return;
        }
        let compile = |options: &[String]| {
            thicket_gpu::compile_for_arch(&LATTICE.source, "sm_90", options)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let whole = compile(&LATTICE.options()).len();
        for name in [
            "lattice_records_f64",
            "lattice_long_f64_lookback_american_r12",
            "lattice_tile_f32_vanilla_european_r32",
            "thesis_layer_f32",
        ] {
            let alone = compile(&LATTICE.kernel_options(name));
            let bytes = name.as_bytes();
            assert!(alone.windows(bytes.len()).any(|w| w == bytes), "{name}");
            assert!(
                alone.len() * 3 < whole,
                "{name}: {} of {whole} bytes",
                alone.len()
            );
        }
    }
}
