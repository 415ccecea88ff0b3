//! Permutation branch-and-bound after Carneiro Pessoa (2017), *GPU-based backtracking
//! strategies for solving permutation combinatorial problems*: the thesis's node (a partial
//! permutation, its cost and a bitset of the elements used) searched depth-first without
//! recursion, for N-Queens as a permutation, on CPU threads or with the thesis's GPU strategies
//! ([`Strategy`]). [`count_queens`] is the front door; [`verify`] checks a count against the
//! thesis's Table 1. The engine's GPU side ([`engine`], with N-Queens' kernel modules and the
//! shared CDP-BP header in [`kernels`]) also runs the asymmetric travelling salesman problem
//! of thicket-atsp.
//!
//! ```
//! use thicket_core::{Backend, RunOptions};
//! use thicket_perm::{count_queens, PermOptions, Strategy};
//!
//! let options = PermOptions {
//!     run: RunOptions { backend: Backend::Cpu, quiet: true, ..RunOptions::default() },
//!     strategy: Some(Strategy::Serial),
//!     ..PermOptions::default()
//! };
//! let measured = count_queens(8, &options)?;
//! assert_eq!((measured.output.count.nodes, measured.output.count.solutions), (2056, 92));
//! assert!(thicket_perm::verify(&measured.output.count)?);
//! # Ok::<(), thicket_core::Error>(())
//! ```

mod cpu;
pub mod engine;
mod gpu;
pub mod kernels;
mod node;
mod run;
mod strategy;
mod verify;

pub use cpu::queens::PermQueensCount;
pub use run::{count_queens, PermOptions, PermQueensRun, MULTICORE_D_CPU};
pub use strategy::{GpuParams, Strategy};
pub use verify::{perm_queens, verify};
