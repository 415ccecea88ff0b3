//! The end-to-end tests of the `thicket` binary, as one test binary: a module per command or
//! concern, `common` the helpers they share, `gpu` the GPU checks (`scripts/gpu-check.sh` runs
//! them on a GPU machine). One binary links once and runs every test in one process; a module
//! runs alone by its name, e.g. `cargo test -p thicket-cli --test cli graph::`.

mod atsp;
mod basics;
mod books;
mod common;
mod contract;
mod conventions;
mod gpu;
mod graph;
mod graph_hostile;
mod lattice;
mod lattice_trees;
mod ledger;
mod maxflow;
// MPI runs need an MPI library and `mpirun`: built with the `mpi` feature only.
#[cfg(feature = "mpi")]
mod mpi;
mod schedule;
