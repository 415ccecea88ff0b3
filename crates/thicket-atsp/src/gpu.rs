//! The GPU's host side: the thesis's ATSP kernels (`kernels/atsp.cu`, with CDP-BP
//! `kernels/atsp_cdp.cu`) run by the permutation engine of thicket-perm ([`atsp`]), and the
//! tour improver's (`kernels/tours.cu`), many local-search chains at once ([`tours`]).

pub(crate) mod atsp;
pub(crate) mod tours;
