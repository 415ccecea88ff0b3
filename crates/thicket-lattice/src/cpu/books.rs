//! Many options on the CPU, each priced as [`crate::cpu::serial`] prices one: one after the
//! other, or one option per task of the caller's rayon pool. The front door
//! ([`crate::price_book`]) has checked every contract before these run. Both stop at the
//! next option when the caller asks ([`Progress::stop_requested`]), with the options priced
//! so far.

use rayon::prelude::*;
use thicket_core::Progress;

use crate::contract::ValidContract;
use crate::cpu::serial::price_serial;
use crate::scheme::{Precision, Priced};

/// Prices the options one after the other on this thread: every answer, or where the caller
/// stopped the book the first ones, and whether it did.
pub(crate) fn serial_book(
    options: &[ValidContract],
    precision: Precision,
    progress: &Progress,
) -> (Vec<Priced>, bool) {
    let mut priced = Vec::with_capacity(options.len());
    for option in options {
        if progress.stop_requested() {
            return (priced, true);
        }
        let answer = price_serial(option, precision);
        // A stop during the option may have cut its lattice short (`descend` watches the
        // caller's stop on this thread): it is not an answer.
        if progress.stop_requested() {
            return (priced, true);
        }
        priced.push(answer);
    }
    (priced, false)
}

/// Prices the options one per task of the caller's rayon pool (the global one unless the
/// caller installed another): every answer, or where the caller stopped the book the first
/// ones up to the first it skipped, and whether it did.
pub(crate) fn multicore_book(
    options: &[ValidContract],
    precision: Precision,
    progress: &Progress,
) -> (Vec<Priced>, bool) {
    let priced: Vec<Option<Priced>> = options
        .par_iter()
        .map(|option| {
            let answer = (!progress.stop_requested()).then(|| price_serial(option, precision));
            // On the caller's own thread a stop may have cut the lattice short (see
            // `serial_book`): an option priced across the stop is dropped.
            answer.filter(|_| !progress.stop_requested())
        })
        .collect();
    let stopped = priced.iter().any(Option::is_none);
    (priced.into_iter().map_while(|p| p).collect(), stopped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Style;
    use crate::test_support::*;

    #[test]
    fn a_book_prices_each_option_as_serial_does() {
        let contracts: Vec<ValidContract> = payoffs()
            .into_iter()
            .flat_map(|payoff| {
                [Style::American, Style::European]
                    .map(|style| lookback(payoff, style, [50.0, 0.5, 0.3, 0.05], 300))
                    .map(|c| c.checked().unwrap())
            })
            .collect();
        let pool = thicket_core::pool(3).unwrap();
        let progress = Progress::hidden();
        let parallel = pool.install(|| multicore_book(&contracts, Precision::F64, &progress));
        let serial = serial_book(&contracts, Precision::F64, &progress);
        assert_eq!(parallel, serial);
        assert!(!serial.1);
        for (contract, priced) in contracts.iter().zip(&parallel.0) {
            assert_eq!(*priced, price_serial(contract, Precision::F64));
        }
    }

    #[test]
    fn a_book_stopped_before_it_starts_returns_no_option_marked_stopped() {
        let option = lookback(payoffs()[0], Style::American, [50.0, 0.5, 0.3, 0.05], 50);
        let contracts = vec![option.checked().unwrap(); 8];
        let flag = thicket_core::StopFlag::new();
        flag.raise();
        let progress = thicket_core::stoppable(&flag, Progress::hidden);
        for book in [serial_book, multicore_book] {
            assert_eq!(book(&contracts, Precision::F64, &progress), (vec![], true));
        }
    }

    #[test]
    fn a_book_stopped_from_another_thread_returns_its_first_options_within_half_a_second() {
        // Enough options that the book takes seconds, each small enough to take milliseconds.
        let option = lookback(payoffs()[0], Style::American, [50.0, 0.5, 0.3, 0.05], 200);
        let contracts = vec![option.checked().unwrap(); 20_000];
        let want = price_serial(&contracts[0], Precision::F64);
        for book in [serial_book, multicore_book] {
            let flag = thicket_core::StopFlag::new();
            let progress = thicket_core::stoppable(&flag, Progress::hidden);
            let raiser = flag.clone();
            let raised = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(200));
                raiser.raise();
                std::time::Instant::now()
            });
            let (priced, stopped) = book(&contracts, Precision::F64, &progress);
            let ended = std::time::Instant::now();
            let raised = raised.join().unwrap();
            assert!(stopped);
            assert!(priced.len() < contracts.len());
            assert!(priced.iter().all(|p| *p == want));
            let late = ended.saturating_duration_since(raised).as_secs_f64();
            // Generous: a debug build on a loaded CI machine; the half second is measured in
            // release by the Python package's interrupt tests.
            assert!(late < 5.0, "stopped {late} s after the request");
        }
    }
}
