//! The asymmetric travelling salesman problem, solved to proven optimality: instances (TSPLIB
//! files or the generated classes of Cirasella, Johnson, McGeoch and Zhang 2001), an
//! upper-bound heuristic, and the exact depth-first branch-and-bound of Carneiro Pessoa
//! (2017), *GPU-based backtracking strategies for solving permutation combinatorial problems*,
//! with the thesis's partial-cost bound, an incrementally updated assignment-problem bound, or
//! (the default) a Held–Karp Lagrangian 1-arborescence bound tuned by deflected subgradient
//! ascent; on CPU threads, or on the GPU with the thesis's strategies run by thicket-perm's
//! engine ([`gpu`], every tour checked on the host). [`solve`] is the front door; long runs go
//! subtree by subtree through the run layer ([`Subtrees`]).
//!
//! Tours start at city 0, which the search fixes first, so it examines at most (N-1)! tours.

mod arborescence;
mod assignment;
mod dominance;
mod generate;
pub mod gpu;
mod held_karp;
mod held_karp_search;
mod heuristic;
mod instance;
pub mod kernels;
mod ledgered;
pub mod reference;
mod run;
mod search;
#[cfg(test)]
mod test_support;
mod tsplib;
mod twins;

pub use generate::{generate, parse_generator_spec, GeneratorClass, GeneratorSpec};
pub use heuristic::{heuristic_tour, tour_cost};
pub use instance::{Instance, MAX_COST, MAX_N};
pub use ledgered::{solution, solve_ledgered, SubtreeSolver, Subtrees};
pub use run::{bound_name, run_from_ledger, solve, AtspRun, Batching, SolveOptions, Solved};
pub use search::{branch_and_bound, solve_below, AtspOptions, AtspSolution, Bound};
pub use tsplib::{parse_tsplib, read_tsplib};
