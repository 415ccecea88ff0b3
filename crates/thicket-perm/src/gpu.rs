//! The GPU side of N-Queens as a permutation ([`queens`], beside `kernels/queens.cu`),
//! run by the permutation engine ([`crate::engine`]).

pub(crate) mod queens;
