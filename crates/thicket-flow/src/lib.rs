//! Maximum flow: MPM and push-relabel on the CPU and GPU, every flow checked by a min-cut
//! certificate.
//!
//! Solomon 2012, ch. 5 (digest: `../shared/docs/seed-004-digest.md`, section 3): s-t maximum
//! flow by Malhotra, Pramodh Kumar and Maheshwari (MPM): phases on layered networks built by a
//! BFS that stops at the sink; in each, the vertex of least potential pushes it forward and
//! pulls it backward layer by layer, and saturated vertices are pruned in cascades; on the
//! GPU, one thread per vertex, merged push/pull launches, an argmin reduction and `atomicSub`
//! pruning, and an "active vertices" variant that compacts by a scan (`mpm-scan`), also run
//! in one cooperative launch with grid barriers for its host loops (`mpm-active`). The thesis has no
//! residual reverse arcs, so its flows are not maximum in general: thicket's are. Beside it,
//! the CPU method a max-flow tool is measured by: highest-label push-relabel with global and
//! gap relabelling (Cherkassky and Goldberg 1997).
//!
//! - [`network`]: the network as read (64-bit capacities, sums checked).
//! - [`dimacs`]: DIMACS `.max` files and solutions; [`generate`]: genrmf, Washington RLG and
//!   the thesis's random graphs, seeded.
//! - [`residual`]: the residual graph with paired reverse arcs that every solver uses.
//! - [`mpm`], [`push_relabel`]: the CPU solvers; [`gpu`]: the GPU ones.
//! - [`verify`]: capacity, conservation and the min-cut certificate, independent of them.
//! - [`maxflow`]: the front door (strategy, backend, certificate, JSON); [`mod@bench`]: the
//!   thesis's experiment on random graphs.

pub mod bench;
pub mod dimacs;
pub mod generate;
pub mod gpu;
pub mod kernels;
pub mod mpm;
pub mod network;
pub mod push_relabel;
pub mod residual;
mod run;
pub mod verify;

pub use run::{maxflow, maxflow_on, FlowRun, MaxflowOptions, Strategy};
