//! The CPU solvers: the thesis's MPM with residual reverse arcs ([`mpm`], `mpm-serial`) and
//! highest-label push-relabel ([`push_relabel`], the CPU default).

pub(crate) mod mpm;
pub(crate) mod push_relabel;
