//! The GPU strategies' host side: the thesis's ATSP kernels (`kernels/atsp.cu`, with CDP-BP
//! `kernels/atsp_cdp.cu`) run by the permutation engine of thicket-perm ([`atsp`]).

pub(crate) mod atsp;
