//! The CPU side of N-Queens as a permutation: the serial and multi-core searches
//! ([`queens`]).

pub(crate) mod queens;
