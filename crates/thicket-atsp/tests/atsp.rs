//! The ATSP crate's integration tests, one binary: the TSPLIB reader and generator specs
//! against hostile inputs, the parser, the searches against brute force and the TSPLIB optima.

#[path = "atsp/hostile_inputs.rs"]
mod hostile_inputs;
#[path = "atsp/parser.rs"]
mod parser;
#[path = "atsp/search.rs"]
mod search;
#[path = "atsp/tsplib.rs"]
mod tsplib;

use thicket_testkit::CappedAllocator;

/// Every test runs under an allocator that fails any single allocation above 1 GiB, so that
/// a hostile TSPLIB file shows as an error, not as an abort (`hostile_inputs`).
#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::GIB;
