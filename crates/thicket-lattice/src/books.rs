//! Many options on the CPU, each priced as [`crate::serial`] prices one: one after the
//! other, or one option per task of the caller's rayon pool. The front door
//! ([`crate::price_book`]) has checked every contract before these run. Both stop at the
//! next option when the caller asks ([`Progress::check_stop`]).

use rayon::prelude::*;
use thicket_core::{Progress, Result};

use crate::contract::Contract;
use crate::scheme::{Precision, Priced};
use crate::serial::price_serial;

/// Prices the options one after the other on this thread.
pub(crate) fn serial_book(
    contracts: &[Contract],
    precision: Precision,
    progress: &Progress,
) -> Result<Vec<Priced>> {
    contracts
        .iter()
        .map(|contract| {
            progress.check_stop()?;
            price_serial(contract, precision)
        })
        .collect()
}

/// Prices the options one per task of the caller's rayon pool (the global one unless the
/// caller installed another).
pub(crate) fn multicore_book(
    contracts: &[Contract],
    precision: Precision,
    progress: &Progress,
) -> Result<Vec<Priced>> {
    contracts
        .par_iter()
        .map(|contract| {
            progress.check_stop()?;
            price_serial(contract, precision)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Style;
    use crate::test_support::*;

    #[test]
    fn a_book_prices_each_option_as_serial_does() {
        let contracts: Vec<Contract> = payoffs()
            .into_iter()
            .flat_map(|payoff| {
                [Style::American, Style::European]
                    .map(|style| lookback(payoff, style, [50.0, 0.5, 0.3, 0.05], 300))
            })
            .collect();
        let pool = thicket_core::pool(3).unwrap();
        let progress = Progress::hidden();
        let parallel = pool
            .install(|| multicore_book(&contracts, Precision::F64, &progress))
            .unwrap();
        let serial = serial_book(&contracts, Precision::F64, &progress).unwrap();
        assert_eq!(parallel, serial);
        for (contract, priced) in contracts.iter().zip(&parallel) {
            assert_eq!(*priced, price_serial(contract, Precision::F64).unwrap());
        }
    }

    #[test]
    fn a_stopped_book_ends_interrupted() {
        let contracts =
            vec![lookback(payoffs()[0], Style::American, [50.0, 0.5, 0.3, 0.05], 50); 8];
        let flag = thicket_core::StopFlag::new();
        flag.raise();
        let progress = thicket_core::stoppable(&flag, Progress::hidden);
        for book in [serial_book, multicore_book] {
            let stopped = book(&contracts, Precision::F64, &progress);
            assert!(matches!(stopped, Err(thicket_core::Error::Interrupted(_))));
        }
    }
}
