//! The asymmetric travelling salesman problem, solved to proven optimality: instances (TSPLIB
//! files, an in-memory cost matrix, or the generated classes of Cirasella, Johnson, McGeoch
//! and Zhang 2001), an upper-bound heuristic, and the exact depth-first branch-and-bound of
//! Carneiro Pessoa (2017), *GPU-based backtracking strategies for solving permutation
//! combinatorial problems*, with the thesis's partial-cost bound, an incrementally updated
//! assignment-problem bound, or (the default) a Held–Karp Lagrangian 1-arborescence bound
//! tuned by deflected subgradient ascent; on CPU threads, or on the GPU with the thesis's
//! strategies run by thicket-perm's engine (every GPU tour checked on the host). [`solve`] is
//! the front door; [`verify`] checks a tour independently; long runs go subtree by subtree
//! through the run layer ([`Subtrees`]).
//!
//! Tours start at city 0, which the search fixes first, so it examines at most (N-1)! tours.
//!
//! ```
//! use thicket_atsp::{solve, verify, Instance, SolveOptions, Solved};
//!
//! // Four cities; row i holds the costs of the arcs from city i (the diagonal is ignored).
//! let instance = Instance::from_rows(
//!     "ring",
//!     &[[0, 1, 9, 9], [9, 0, 1, 9], [9, 9, 0, 1], [1, 9, 9, 0]],
//! )?;
//! let Solved::Whole(measured) = solve(&instance, &SolveOptions::default())? else {
//!     unreachable!("only a batched solve ends in shards")
//! };
//! let solution = &measured.output.solution;
//! assert_eq!((solution.cost, solution.tour.clone()), (4, vec![0, 1, 2, 3]));
//! assert!(solution.proven_optimal);
//! verify(&instance, &solution.tour, solution.cost)?;
//! # Ok::<(), thicket_core::Error>(())
//! ```

mod arborescence;
mod assignment;
mod bound_beside;
mod dominance;
mod generate;
mod gpu;
mod held_karp;
mod held_karp_search;
mod heuristic;
mod instance;
mod kernels;
mod lap;
mod ledgered;
mod local_search;
mod one_tree;
mod patching;
mod policy;
mod report;
mod run;
mod search;
mod solver;
mod strategy;
mod subtour_lagrangian;
mod subtour_search;
#[cfg(test)]
mod test_support;
mod tsplib;
mod twins;
mod verify;

pub use generate::{generate, parse_generator_spec, GeneratorClass, GeneratorSpec};
pub use heuristic::{heuristic_tour, tour_cost};
pub use instance::{Instance, MAX_COST, MAX_N};
pub use kernels::ALL as KERNEL_MODULES;
pub use kernels::MAX_CITIES as GPU_MAX_CITIES;
pub use ledgered::{solution, solve_ledgered, SubtreeSolver, Subtrees};
pub use policy::Branching;
pub use report::{AtspRun, BoundSource, Solved};
pub use run::{run_from_ledger, solve};
pub use search::{branch_and_bound, solve_below, AtspOptions, AtspSolution, Bound};
pub use strategy::{bound_name, SolveOptions};
pub use thicket_run::Batching;
pub use tsplib::{parse_tsplib, read_tsplib};
pub use verify::{known_optimum, verify, TSPLIB_ATSP_OPTIMA};
