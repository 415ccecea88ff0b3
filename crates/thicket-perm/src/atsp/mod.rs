//! The asymmetric travelling salesman problem: instances (TSPLIB files or the generated
//! classes of Cirasella, Johnson, McGeoch and Zhang 2001), an upper-bound heuristic, and the
//! exact depth-first branch-and-bound of Carneiro (2017) with the thesis's partial-cost bound,
//! an incrementally updated assignment-problem bound, or (the default) a Held–Karp Lagrangian
//! 1-arborescence bound tuned by deflected subgradient ascent.
//!
//! Tours start at city 0, which the search fixes first, so it examines at most (N-1)! tours.

mod arborescence;
mod assignment;
mod dominance;
mod generate;
mod held_karp;
mod held_karp_search;
mod heuristic;
mod instance;
mod ledgered;
mod search;
#[cfg(test)]
mod test_support;
mod tsplib;
mod twins;

pub use generate::{generate, parse_generator_spec, GeneratorClass, GeneratorSpec};
pub use heuristic::{heuristic_tour, tour_cost};
pub use instance::{Instance, MAX_COST, MAX_N};
pub use ledgered::{solution, solve_ledgered, SubtreeSolver, Subtrees};
pub use search::{solve, solve_below, AtspOptions, AtspSolution, Bound};
pub use tsplib::{parse_tsplib, read_tsplib};
