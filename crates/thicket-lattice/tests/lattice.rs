//! The lattice crate's integration tests, one binary: dividend yields, seasoned lookbacks and
//! the vanilla trees against outside references, prices bit for bit without dividends, and
//! hostile book files.

#[path = "lattice/dividends.rs"]
mod dividends;
#[path = "lattice/hostile_inputs.rs"]
mod hostile_inputs;
#[path = "lattice/no_dividend_bits.rs"]
mod no_dividend_bits;
#[path = "lattice/seasoned.rs"]
mod seasoned;
#[path = "lattice/support.rs"]
mod support;
#[path = "lattice/trees.rs"]
mod trees;

use thicket_testkit::CappedAllocator;

/// Every test runs under an allocator that fails any single allocation above 1 GiB, so that
/// a hostile book file shows as an error, not as an abort (`hostile_inputs`).
#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::GIB;
