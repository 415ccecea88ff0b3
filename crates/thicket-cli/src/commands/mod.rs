//! One file per command: each turns parsed arguments into a library call and prints the
//! answer.

pub mod atsp;
pub mod bench;
pub mod devices;
pub mod graph;
pub mod lattice;
pub mod ledger;
pub mod maxflow;
pub mod perm;
pub mod queens;
pub mod schedule;
