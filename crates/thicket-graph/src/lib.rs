//! Graphs: breadth-first search and shortest paths on the CPU and GPU.
//!
//! Solomon 2012, *Parallel programming on GPUs* (ch. 4): unweighted shortest paths by a
//! level-synchronous BFS on a CSR graph, one GPU thread per vertex every level, and its
//! "active vertices" variant that compacts the frontier with a scan. Beside them, the
//! searches a graph tool is measured by: Beamer et al.'s direction-optimizing BFS (SC 2012)
//! on the CPU and, in one cooperative launch, on the GPU; Dijkstra and delta-stepping (Meyer
//! and Sanders 2003) for weighted shortest paths, and on the GPU near-far delta-stepping
//! (Davidson et al. 2014) in one cooperative launch.
//!
//! - [`Graph`]: the CSR graph (64-bit offsets, 32-bit ids, optional weights), built from
//!   arrays ([`Graph::from_csr`]) or edges ([`Graph::from_edges`],
//!   [`Graph::from_weighted_edges`]) and checked as it is built.
//! - [`search`]: the front door, on any [`SearchInput`] (a [`Graph`], a caller's arrays in a
//!   [`GraphView`], a graph read from a file: [`Loaded`]), every source's summary
//!   ([`SourceSearch`]) and the answers asked for ([`SourcePaths`], [`Keep`]) in a
//!   [`SearchRun`]; [`bfs`] and [`sssp`] are its two problems on a [`Graph`]. The sources go
//!   through thicket-core's solve pipeline ([`thicket_core::pipeline`]): one loop of stop
//!   checks, progress, verification and statistics for every strategy.
//! - [`io`]: DIMACS `.gr`, `.el`/`.wel`, SNAP `.txt` (sparse or named ids renumbered, kept in
//!   [`VertexIds`]), Matrix Market `.mtx`, GAPBS's `.sg`/`.wsg` and the binary `.tgr`, any of
//!   them gzip-compressed.
//! - [`generate`]: Kronecker, uniform, grid and Viger–Latapy-style graphs from a seed.
//! - [`verify`]: GAPBS-style checks of any answer, independent of every strategy.
//!
//! A GPU search takes the process's device ([`thicket_gpu::Gpu::shared`]), opened by the
//! first search, and uploads the graph once for all its sources and trials.
//!
//! ```
//! use thicket_core::{Backend, RunOptions};
//! use thicket_graph::{bfs, Graph, SearchOptions, Strategy, INFINITE};
//!
//! // A path 0 -> 1 -> 2 -> 3 and a shortcut 0 -> 2.
//! let graph = Graph::from_csr(vec![0, 2, 3, 4, 4], vec![1, 2, 2, 3], None)?;
//! let options = SearchOptions {
//!     run: RunOptions { backend: Backend::Cpu, verify: true, ..RunOptions::default() },
//!     strategy: Some(Strategy::Serial),
//!     ..SearchOptions::default()
//! };
//! let run = bfs(&graph, &[0, 3], &options)?;
//! assert_eq!(run.verified, Some(true));
//! let [from_0, from_3] = &run.output.paths[..] else { unreachable!() };
//! assert_eq!(from_0.distances, [0, 1, 1, 2]);
//! assert_eq!(from_0.parents[3], 2);
//! assert_eq!(from_3.distances, [INFINITE, INFINITE, INFINITE, 0]);
//! assert_eq!(run.output.searches[0].reached, 4);
//! # Ok::<(), thicket_core::Error>(())
//! ```

mod cpu;
pub mod generate;
mod gpu;
mod graph;
mod input;
pub mod io;
pub mod kernels;
mod report;
mod run;
mod search;
mod sources;
mod strategy;
mod undirected;
mod verify;

/// A level, parent or vertex that no search reached.
pub const UNREACHED: u32 = u32::MAX;

/// A distance no path reaches.
pub const INFINITE: u64 = u64::MAX;

pub use generate::{random_sources, Generator};
pub use graph::{whole_weights, Graph, GraphStats, GraphView};
pub use input::SearchInput;
pub use io::{Format, Loaded, VertexIds};
pub use report::{SearchRun, SourcePaths, SourceSearch};
pub use run::{bfs, search, sssp};
pub use strategy::{Problem, SearchOptions, Strategy};
pub use thicket_core::pipeline::Keep;
pub use verify::verify;
