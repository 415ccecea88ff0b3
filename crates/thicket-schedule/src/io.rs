//! Files: ETC matrices in Braun et al.'s format (`braun.rs`, which also picks the format of a
//! file) and as CSV (`csv.rs`), and assignments ([`assignment`]).

pub mod assignment;
pub(crate) mod braun;
mod csv;
