//! Permutation branch-and-bound after Carneiro Pessoa (2017), *GPU-based backtracking
//! strategies for solving permutation combinatorial problems*: the thesis's node (a partial
//! permutation, its cost and a bitset of the elements used) searched depth-first without
//! recursion, for N-Queens as a permutation, on CPU threads or with the thesis's GPU strategies
//! ([`gpu`]). The engine's GPU side ([`gpu::engine`], [`gpu::device`], [`kernels`]) also runs
//! the asymmetric travelling salesman problem of thicket-atsp.

pub mod bench;
pub mod gpu;
pub mod kernels;
pub mod node;
pub mod queens;
pub mod reference;
mod run;
pub mod strategy;

pub use run::{count_queens, PermOptions, PermQueensRun, MULTICORE_D_CPU};
