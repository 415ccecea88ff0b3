//! Graphs: breadth-first search and shortest paths on the CPU and GPU.
//!
//! Solomon 2012, ch. 4 (digest: `../shared/docs/seed-004-digest.md`, section 2): unweighted
//! shortest paths by a level-synchronous BFS on a CSR graph, one GPU thread per vertex every
//! level, and its "active vertices" variant that compacts the frontier with a scan. Beside
//! them, the searches a graph tool is measured by: Beamer et al.'s direction-optimizing BFS
//! (SC 2012) on the CPU and, in one cooperative launch, on the GPU; Dijkstra and
//! delta-stepping (Meyer and Sanders 2003) for weighted shortest paths, and on the GPU
//! near-far delta-stepping (Davidson et al. 2014) in one cooperative launch.
//!
//! - [`graph`]: the CSR graph (64-bit offsets, 32-bit ids, optional weights) and its stats.
//! - [`io`]: DIMACS `.gr`, `.el`/`.wel`, Matrix Market `.mtx` and the binary `.tgr`.
//! - [`generate`]: Kronecker, uniform, grid and Viger–Latapy-style graphs from a seed.
//! - [`bfs`], [`sssp`]: the CPU searches; [`gpu`], [`gpu_sssp`]: the GPU ones.
//! - [`verify`]: GAPBS-style checks of any answer, independent of every strategy.
//! - [`search`]: the front door (strategy, backend, sources, verification, JSON).

pub mod bench;
pub mod bfs;
pub mod generate;
pub mod gpu;
pub mod gpu_sssp;
pub mod graph;
pub mod io;
pub mod kernels;
mod run;
pub mod sssp;
pub mod verify;

/// A level, parent or vertex that no search reached.
pub const UNREACHED: u32 = u32::MAX;

pub use run::{search, Problem, SearchOptions, SearchRun, SourceSearch, Strategy};
