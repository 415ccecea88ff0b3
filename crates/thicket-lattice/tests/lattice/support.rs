//! What the lattice's integration tests share.

use thicket_lattice::{Backend, Precision, PriceOptions, RunOptions, Strategy};

/// Quiet CPU options for `strategy` in `precision`.
pub(crate) fn options(strategy: Strategy, precision: Precision) -> PriceOptions {
    PriceOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..RunOptions::default()
        },
        strategy: Some(strategy),
        precision,
        ..PriceOptions::default()
    }
}
