//! A book on the CPU ([`CpuBook`]), the solve pipeline's CPU solver: each option priced as
//! [`crate::cpu::serial`] prices one, one after the other, or one lattice per task of the
//! caller's rayon pool over chunks of the book. The front door ([`crate::price_book`]) has
//! checked every contract before these run. Both stop at the next lattice when the caller
//! asks, with the options priced so far; an option priced across the stop is dropped (the
//! lattice's descent watches the caller's stop on its thread and may have ended early).

use std::time::Instant;

use rayon::prelude::*;
use thicket_core::pipeline::{Answered, Queue, Solver, Want};
use thicket_core::{Error, Result, StopFlag};

use crate::book::ValidBook;
use crate::contract::ValidContract;
use crate::cpu::serial::price_serial;
use crate::greeks::price_with_bumps;
use crate::scheme::{Precision, Priced};
use crate::strategy::Strategy;

/// Options per thread of the pool that a multicore chunk holds at least: enough that the
/// chunk's tasks balance over the pool as one pass over the whole book does (the pool waits
/// for a chunk's slowest task before the next chunk starts).
const OPTIONS_PER_THREAD: usize = 32;

/// Chunks a multicore book is cut into at most (each a hand-over to the pipeline: progress,
/// checks), so that a book of many small options pays for few waits.
const MAX_CHUNKS: usize = 64;

/// The options of a book that a multicore run prices at once on `threads` threads.
fn chunk_len(options: usize, threads: usize) -> usize {
    (threads.max(1) * OPTIONS_PER_THREAD).max(options.div_ceil(MAX_CHUNKS))
}

/// The CPU's book pricer: `serial` (one option at a time on this thread) or `multicore`
/// (chunks of options on the caller's rayon pool).
pub(crate) struct CpuBook {
    parallel: bool,
    vega_rho: bool,
    /// The caller's stop request.
    stop: Option<StopFlag>,
}

impl CpuBook {
    /// The pricer of `strategy` (`multicore` on the caller's pool, any other on this
    /// thread), with vega and rho where asked, watching `stop`.
    pub(crate) fn new(strategy: Strategy, vega_rho: bool, stop: Option<StopFlag>) -> CpuBook {
        CpuBook {
            parallel: strategy == Strategy::Multicore,
            vega_rho,
            stop,
        }
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(StopFlag::is_raised)
    }

    /// Prices `lattices`: every price in order, or where the caller stopped, the first ones
    /// up to the first lattice skipped or priced across the stop.
    fn lattices(&self, lattices: &[ValidContract], precision: Precision) -> Vec<Priced> {
        let one = |lattice: &ValidContract| {
            let answer = (!self.stopped()).then(|| price_serial(lattice, precision));
            answer.filter(|_| !self.stopped())
        };
        if self.parallel {
            let priced: Vec<Option<Priced>> = lattices.par_iter().map(one).collect();
            priced.into_iter().map_while(|p| p).collect()
        } else {
            lattices.iter().map_while(one).collect()
        }
    }

    /// Prices `options` with vega and rho where asked (their bumped lattices priced with
    /// them): every answer, or where the caller stopped, the first options whose lattices
    /// all ran.
    fn options(&self, options: &[ValidContract], precision: Precision) -> Vec<Priced> {
        if self.vega_rho {
            price_with_bumps(options, precision, |all| Ok(self.lattices(all, precision)))
                .unwrap_or_default()
        } else {
            self.lattices(options, precision)
        }
    }
}

impl Solver<ValidBook> for CpuBook {
    /// The option alone (its bumped lattices with it).
    fn answer(&mut self, book: &ValidBook, &place: &usize, _: Want) -> Result<Answered<Priced>> {
        let started = Instant::now();
        let Some(option) = book.options().get(place..=place) else {
            return Err(Error::InvalidInput(format!(
                "option {} is not in the book",
                place + 1
            )));
        };
        match self.options(option, book.precision()).first() {
            Some(&answer) => Ok(Answered {
                answer,
                seconds: started.elapsed().as_secs_f64(),
            }),
            None => Err(Error::Interrupted(format!(
                "option {} was stopped by its caller",
                place + 1
            ))),
        }
    }

    /// The options in chunks, one option (serial) or [`chunk_len`] (multicore) at a time,
    /// each answer's seconds its chunk's over its options. A chunk the caller stopped hands
    /// back its first options and ends the run, which the pipeline then marks stopped.
    fn answer_all(&mut self, queue: &mut Queue<'_, ValidBook>) -> Result<()> {
        let book = queue.problem();
        let count = book.options().len();
        let chunk = match self.parallel {
            true => chunk_len(count, rayon::current_num_threads()),
            false => 1,
        };
        let mut handed = 0;
        // Up to the book's end, not past it: a stop after the last option leaves the book
        // whole, not stopped.
        while handed < count {
            let first = handed;
            while handed < count.min(first + chunk) && queue.next().is_some() {
                handed += 1;
            }
            let options = &book.options()[first..handed];
            if options.is_empty() {
                break;
            }
            let started = Instant::now();
            let priced = self.options(options, book.precision());
            let seconds = started.elapsed().as_secs_f64() / options.len() as f64;
            let whole = priced.len() == options.len();
            for answer in priced {
                queue.done(Answered { answer, seconds })?;
            }
            if !whole {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Style;
    use crate::test_support::*;
    use thicket_core::pipeline::{solve, Items, Keep, Solved};
    use thicket_core::{stoppable, Progress};

    const STRATEGIES: [Strategy; 2] = [Strategy::Serial, Strategy::Multicore];

    /// `options` priced on `strategy` through the pipeline, checked where `verify`.
    fn book(
        strategy: Strategy,
        options: &[crate::contract::Contract],
        (vega_rho, verify): (bool, bool),
        progress: &Progress,
    ) -> Result<Solved<u64, Priced>> {
        let book = ValidBook::new(options, Precision::F64).unwrap();
        let mut cpu = CpuBook::new(strategy, vega_rho, progress.stop_flag());
        solve(&book, &mut cpu, Keep::Every, verify, progress)
    }

    #[test]
    fn a_book_prices_each_option_as_serial_does() {
        let contracts: Vec<_> = payoffs()
            .into_iter()
            .flat_map(|payoff| {
                [Style::American, Style::European]
                    .map(|style| lookback(payoff, style, [50.0, 0.5, 0.3, 0.05], 300))
            })
            .collect();
        let pool = thicket_core::pool(3).unwrap();
        let progress = Progress::hidden();
        for vega_rho in [false, true] {
            let parallel = pool
                .install(|| book(Strategy::Multicore, &contracts, (vega_rho, true), &progress))
                .unwrap();
            let serial = book(Strategy::Serial, &contracts, (vega_rho, true), &progress).unwrap();
            assert_eq!(parallel.kept, serial.kept);
            assert!(!serial.stopped && serial.failures.is_empty());
            // One option alone, as the pipeline's `answer` prices it.
            let valid = ValidBook::new(&contracts, Precision::F64).unwrap();
            let want = Want {
                keep: true,
                verify: false,
            };
            for strategy in STRATEGIES {
                let mut cpu = CpuBook::new(strategy, vega_rho, None);
                let alone = cpu.answer(&valid, &2, want).unwrap().answer;
                assert_eq!(alone, serial.kept[2]);
                assert!(cpu.answer(&valid, &contracts.len(), want).is_err());
            }
            for (contract, priced) in contracts.iter().zip(&parallel.kept) {
                let alone = price_serial(&contract.checked().unwrap(), Precision::F64);
                assert_eq!(priced.price, alone.price);
                assert_eq!(priced.vega.is_some(), vega_rho);
            }
        }
    }

    #[test]
    fn chunks_balance_a_few_long_options_and_bound_the_waits_of_many_short_ones() {
        // Four long options on a pool of any size: one chunk, as one pass over the book.
        assert!(chunk_len(4, 1) >= 4 && chunk_len(4, 64) >= 4);
        // A hundred thousand short ones: at most MAX_CHUNKS waits, each over many options
        // a thread.
        let len = chunk_len(100_000, 2);
        assert!(100_000usize.div_ceil(len) <= MAX_CHUNKS && len >= 2 * OPTIONS_PER_THREAD);
        assert_eq!(chunk_len(2_000, 2), 2 * OPTIONS_PER_THREAD);
    }

    #[test]
    fn a_wrong_answer_is_named_by_its_place() {
        let option = lookback(payoffs()[0], Style::American, [50.0, 0.25, 0.4, 0.1], 10);
        let options = vec![option; 3];
        let book = ValidBook::new(&options, Precision::F64).unwrap();
        let mut wrong = price_serial(&book.options()[1], Precision::F64);
        assert!(book.check(&1, &wrong).is_none());
        wrong.price += 1e-3;
        let why = book.check(&1, &wrong).unwrap();
        assert!(why.starts_with("option 2 of 3: price"), "{why}");
        assert!(why.contains("every path of the tree"), "{why}");
    }

    #[test]
    fn a_book_stopped_before_it_starts_is_interrupted() {
        let option = lookback(payoffs()[0], Style::American, [50.0, 0.5, 0.3, 0.05], 50);
        let contracts = vec![option; 8];
        let flag = StopFlag::new();
        flag.raise();
        for strategy in STRATEGIES {
            let progress = stoppable(&flag, Progress::hidden);
            let stopped = book(strategy, &contracts, (false, false), &progress);
            assert!(matches!(stopped, Err(Error::Interrupted(_))), "{strategy}");
            let mut cpu = CpuBook::new(strategy, false, progress.stop_flag());
            let valid = ValidBook::new(&contracts, Precision::F64).unwrap();
            let answer = cpu.answer(
                &valid,
                &0,
                Want {
                    keep: true,
                    verify: false,
                },
            );
            assert!(matches!(answer, Err(Error::Interrupted(_))), "{strategy}");
        }
    }

    #[test]
    fn a_book_stopped_from_another_thread_returns_its_first_options_within_half_a_second() {
        // Enough options that the book takes seconds, each small enough to take milliseconds
        // (at 200 steps an optimised test build priced the whole book before the stop).
        let option = lookback(payoffs()[0], Style::American, [50.0, 0.5, 0.3, 0.05], 1_000);
        let contracts = vec![option; 20_000];
        let want = price_serial(&option.checked().unwrap(), Precision::F64);
        for strategy in STRATEGIES {
            for vega_rho in [false, true] {
                let flag = StopFlag::new();
                let progress = stoppable(&flag, Progress::hidden);
                let raiser = flag.clone();
                let raised = std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    raiser.raise();
                    std::time::Instant::now()
                });
                let solved = book(strategy, &contracts, (vega_rho, false), &progress);
                let ended = std::time::Instant::now();
                let raised = raised.join().unwrap();
                let late = ended.saturating_duration_since(raised).as_secs_f64();
                // Generous: a debug build on a loaded CI machine; the half second is measured
                // in release by the Python package's interrupt tests.
                assert!(late < 5.0, "{strategy}: stopped {late} s after the request");
                // A first chunk (or option) stopped before it finished leaves none.
                let Ok(solved) = solved else {
                    assert!(matches!(solved, Err(Error::Interrupted(_))));
                    continue;
                };
                assert!(solved.stopped, "{strategy}");
                assert!(solved.kept.len() < contracts.len());
                assert_eq!(solved.kept.len(), solved.summaries.len());
                assert!(solved.kept.iter().all(|p| p.price == want.price));
                assert!(solved.failures.is_empty());
            }
        }
    }
}
