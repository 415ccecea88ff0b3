//! Permutation branch-and-bound after Carneiro Pessoa (2017), *GPU-based backtracking
//! strategies for solving permutation combinatorial problems*: the thesis's node (a partial
//! permutation, its cost and a bitset of the elements used) searched depth-first without
//! recursion, for N-Queens as a permutation and for the asymmetric travelling salesman problem,
//! on CPU threads or with the thesis's GPU strategies ([`gpu`]).

pub mod atsp;
pub mod gpu;
pub mod node;
pub mod queens;
pub mod reference;
pub mod strategy;
