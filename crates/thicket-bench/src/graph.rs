//! `thicket bench` for this problem (moving here from the solver crate).

pub use thicket_graph::bench::*;
