//! The CUDA kernel modules of the graph searches (`kernels/bfs.cu`, `kernels/sssp.cu`), with
//! the host's block sizes, the direction switch's parameters and the counters' layouts as
//! defines.

use thicket_gpu::{define, Header, THICKET_HEADER};

/// The crate's own header: how the one-launch searches spread a level over the grid.
const GRID_HEADER: Header = Header {
    name: "grid.cuh",
    source: include_str!("../kernels/grid.cuh"),
};

/// Threads per block of the thesis's kernels (the thesis does not say).
pub(crate) const THESIS_THREADS: usize = 256;
/// Threads per block of the scan kernels of the active-vertices variant.
pub(crate) const SCAN_THREADS: usize = 1024;
/// Flags per block of the scan kernels.
pub(crate) const SCAN_TILE: usize = 16 * SCAN_THREADS;
/// Threads per block of thicket's BFS.
pub(crate) const FAST_THREADS: usize = 1024;
/// Beamer's α: bottom-up once the frontier's edges pass the unexplored edges / α.
pub(crate) const ALPHA: usize = 15;
/// Beamer's β: top-down again once the frontier has fewer than n / β vertices and shrinks.
pub(crate) const BETA: usize = 18;
/// Out-degree from which thicket's BFS expands a vertex with the whole grid.
pub(crate) const GIANT: usize = 4096;
/// The most lanes thicket's BFS gives one frontier vertex of a small frontier.
pub(crate) const MAX_GROUP: usize = 8;
/// Entries of the shared-memory buffer in which each warp of thicket's BFS gathers the
/// vertices it finds before it writes them to the next frontier with one atomic.
pub(crate) const WARP_BUFFER: usize = 256;
/// A bottom-up level of thicket's BFS reads every vertex: it needs a frontier of at least
/// n / GAMMA edges, however few edges are left unexplored (at the end of a search, when a
/// handful of frontier vertices would otherwise send the GPU over all n).
pub(crate) const GAMMA: usize = 8;
const _: () = assert!(WARP_BUFFER >= 64 && WARP_BUFFER.is_multiple_of(32));
/// fast_bfs's counters (u64 words): three frontier sizes (level mod 3), three sums of their
/// out-degrees, three counts of their giants, the grid barrier's arrivals.
pub(crate) const SIZE_BASE: usize = 0;
pub(crate) const EDGES_BASE: usize = 3;
pub(crate) const GIANT_BASE: usize = 6;
pub(crate) const ARRIVALS: usize = 9;
pub(crate) const COUNTER_WORDS: usize = 10;

fn defines() -> Vec<String> {
    vec![
        define("THESIS_THREADS", THESIS_THREADS),
        define("SCAN_THREADS", SCAN_THREADS),
        define("SCAN_TILE", SCAN_TILE),
        define("ALPHA", ALPHA),
        define("BETA", BETA),
        define("GAMMA", GAMMA),
        define("WARP_BUFFER", WARP_BUFFER),
        define("FAST_THREADS", FAST_THREADS),
        define("GIANT", GIANT),
        define("GIANT_BASE", GIANT_BASE),
        define("SIZE_BASE", SIZE_BASE),
        define("EDGES_BASE", EDGES_BASE),
        define("MAX_GROUP", MAX_GROUP),
        define("ARRIVALS", ARRIVALS),
    ]
}

/// near_far_sssp's counters (u64 words): per near round (mod 3) its pile's size and giants,
/// per far epoch (mod 3) its pile's size and smallest recorded distance, the barrier's arrivals.
pub(crate) const NEAR_BASE: usize = 0;
pub(crate) const NEAR_GIANTS_BASE: usize = 3;
pub(crate) const FAR_BASE: usize = 6;
pub(crate) const FAR_MIN_BASE: usize = 9;
pub(crate) const SSSP_ARRIVALS: usize = 12;
pub(crate) const SSSP_COUNTER_WORDS: usize = 13;
/// Threads per block of the GPU shortest paths.
pub(crate) const SSSP_THREADS: usize = 1024;

fn sssp_defines() -> Vec<String> {
    vec![
        define("GIANT", GIANT),
        define("MAX_GROUP", MAX_GROUP),
        define("NEAR_BASE", NEAR_BASE),
        define("GIANTS_BASE", NEAR_GIANTS_BASE),
        define("FAR_BASE", FAR_BASE),
        define("FAR_MIN_BASE", FAR_MIN_BASE),
        define("ARRIVALS", SSSP_ARRIVALS),
    ]
}

thicket_gpu::kernel_modules! {
    /// The BFS kernels.
    pub(crate) BFS: "bfs.cu" {
        sources: ["../kernels/bfs.cu"],
        headers: [THICKET_HEADER, GRID_HEADER],
        linked: false,
        defines: defines,
        kernels: [
            thesis_bfs,
            active_bfs,
            scan_count,
            scan_offsets,
            scan_compact,
            fast_bfs,
            fill_u32,
            summarise_levels,
        ],
        functions: pub BfsKernels,
    }

    /// The shortest-path kernels.
    pub(crate) SSSP: "sssp.cu" {
        sources: ["../kernels/sssp.cu"],
        headers: [THICKET_HEADER, GRID_HEADER],
        linked: false,
        defines: sssp_defines,
        kernels: [near_far_sssp, fill_u64],
        functions: pub SsspKernels,
    }
}
