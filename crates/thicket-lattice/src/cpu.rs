//! The CPU's algorithms: one lattice on one thread ([`serial`]), one long lattice time-tiled
//! on the caller's rayon pool ([`multicore`]), and books of options on either ([`books`]).

pub(crate) mod books;
pub(crate) mod multicore;
pub(crate) mod serial;
