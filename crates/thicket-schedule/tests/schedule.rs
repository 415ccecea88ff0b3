//! thicket-schedule's integration tests, one binary: the Braun instances ([`braun`]), hostile
//! inputs ([`hostile_inputs`]) and every method verified ([`methods`]); the time limit and
//! the caller's stop are the unit tests of `src/run.rs`.

#[path = "schedule/braun.rs"]
mod braun;
#[path = "schedule/hostile_inputs.rs"]
mod hostile_inputs;
#[path = "schedule/methods.rs"]
mod methods;

use thicket_testkit::CappedAllocator;

/// Any single allocation above 1 GiB fails (issue 29: a header's promise takes no memory).
#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::GIB;
