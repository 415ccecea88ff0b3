//! thicket-flow's integration tests, one binary: hostile inputs ([`hostile_inputs`]) and
//! every strategy's flow checked ([`strategies`]).

#[path = "flow/hostile_inputs.rs"]
mod hostile_inputs;
#[path = "flow/strategies.rs"]
mod strategies;

use thicket_testkit::CappedAllocator;

/// Any single allocation above 1 GiB fails (issue 29: a header's promise takes no memory).
#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::GIB;
