//! The CPU's algorithms: one lattice on one thread ([`serial`]), one long lattice time-tiled
//! on the caller's rayon pool ([`multicore`]), and the solve pipeline's solver of a book on either
//! ([`books`]).

pub(crate) mod books;
pub(crate) mod multicore;
pub(crate) mod serial;
