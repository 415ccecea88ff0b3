//! thicket's benchmarks, out of the solver libraries: one module per problem, each a
//! `bench(&options, after_case) -> Result<Report>` on the shared harness (sweeps with time
//! caps, repeats, typed outcomes, Markdown/CSV/JSON tables and SVG charts). The `thicket
//! bench` command fills the options from its flags.

pub mod chart;
pub mod flow;
pub mod graph;
pub mod harness;
pub mod lattice;
pub mod perm;
pub mod queens;
pub mod schedule;
