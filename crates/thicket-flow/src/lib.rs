//! Maximum flow: MPM and push-relabel on the CPU and GPU, every flow checked by a min-cut
//! certificate.
//!
//! Solomon 2012, ch. 5: s-t maximum flow by Malhotra, Pramodh Kumar and Maheshwari (MPM):
//! phases on layered networks built by a BFS that stops at the sink; in each, the vertex of
//! least potential pushes it forward and pulls it backward layer by layer, and saturated
//! vertices are pruned in cascades; on the GPU, one thread per vertex, merged push/pull
//! launches, an argmin reduction and `atomicSub` pruning, and an "active vertices" variant
//! that compacts by a scan (`mpm-scan`), also run in one cooperative launch with grid barriers
//! for its host loops (`mpm-active`). The thesis has no residual reverse arcs, so its flows
//! are not maximum in general: thicket's are. Beside it, the CPU method a max-flow tool is
//! measured by: highest-label push-relabel with global and gap relabelling (Cherkassky and
//! Goldberg 1997), and lock-free push-relabel on the GPU (Hong 2008). docs/maxflow.md has the
//! measurements.
//!
//! The front door is [`maxflow`]: a [`Network`] (built from arrays with
//! [`Network::from_arrays`], read with [`dimacs::read`] or made by a [`generate::Spec`]) and
//! [`MaxflowOptions`] in, a [`FlowRun`] out: its [`FlowAnswer`] (the flow, its value and the
//! minimum cut, checked by [`verify`]) and its [`FlowStats`] (strategy, counts, times). The
//! GPU strategies open the device once per process and keep its kernels loaded.
//!
//! ```
//! use thicket_flow::{maxflow, Backend, MaxflowOptions, Network, RunOptions};
//!
//! // Source 0, sink 3: 0 -> 1 (3), 0 -> 2 (2), 1 -> 3 (2), 2 -> 3 (3), 1 -> 2 (1).
//! let network = Network::from_arrays(
//!     4,
//!     &[0, 0, 1, 2, 1],
//!     &[1, 2, 3, 3, 2],
//!     &[3, 2, 2, 3, 1],
//!     0,
//!     3,
//! )?;
//! let options = MaxflowOptions {
//!     run: RunOptions { backend: Backend::Cpu, quiet: true, ..RunOptions::default() },
//!     ..MaxflowOptions::default()
//! };
//! let answer = maxflow(&network, &options)?.output.answer;
//! assert_eq!(answer.value, 5);
//! assert_eq!(answer.flows, [3, 2, 2, 3, 1]);
//! assert_eq!(answer.source_side, [true, false, false, false]);
//! assert_eq!(answer.cut_arcs, [0, 1]);
//! # Ok::<(), thicket_flow::Error>(())
//! ```

mod cpu;
pub mod generate;
mod gpu;
mod io;
pub mod kernels;
mod network;
mod report;
mod residual;
mod run;
mod strategy;
mod verify;

pub use io::dimacs;
pub use network::{FlowArc, Network, MAX_TOTAL_CAPACITY};
pub use report::{FlowAnswer, FlowRun, FlowStats, GpuPhases, SolveStats};
pub use run::{maxflow, MaxflowOptions};
pub use strategy::Strategy;
pub use thicket_core::{Backend, Error, Measured, Result, RunOptions};
pub use verify::{verify, Certificate};
