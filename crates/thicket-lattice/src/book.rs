//! A book of options on the solve pipeline ([`thicket_core::pipeline`]): the book the front
//! door checked ([`ValidBook`]) lists its options as the pipeline's items, checks each answer
//! against the independent reference ([`mod@crate::verify`]) and keeps it; [`BookKernel`] runs
//! the pipeline on the strategy's solver: [`CpuBook`] on one thread or the caller's rayon
//! pool, [`GpuBook`] in one launch of the tile kernel.

use serde_json::{Map, Value};
use thicket_core::pipeline::{solve, Items, Keep, Solved};
use thicket_core::{Backend, Error, Kernel, Placement, Progress, Result};

use crate::contract::{Contract, ValidContract};
use crate::cpu::books::CpuBook;
use crate::gpu::books::GpuBook;
use crate::gpu::LatticeGpu;
use crate::report::{lattice_nodes, BookRun};
use crate::run::PriceOptions;
use crate::scheme::{Precision, Priced};
use crate::strategy::{strategy_on, Strategy};
use crate::verify::mismatch;

/// A book whose every option the front door checked, priced in one precision: the
/// pipeline's items are the options' places in the book (0 up), its answers their
/// [`Priced`] (with vega and rho where asked), summed up as their lattices' nodes.
pub(crate) struct ValidBook {
    options: Vec<ValidContract>,
    /// 0, 1, ...: the items, so that a check can name the option's place.
    places: Vec<usize>,
    precision: Precision,
}

impl ValidBook {
    /// Checks every contract of `contracts`, naming a bad one by its place in the book.
    pub(crate) fn new(contracts: &[Contract], precision: Precision) -> Result<ValidBook> {
        let options = contracts
            .iter()
            .enumerate()
            .map(|(index, contract)| {
                contract.checked().map_err(|e| {
                    Error::InvalidInput(format!(
                        "option {} of {}: {}",
                        index + 1,
                        contracts.len(),
                        e.message()
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ValidBook {
            places: (0..options.len()).collect(),
            options,
            precision,
        })
    }

    /// The options, in the book's order.
    pub(crate) fn options(&self) -> &[ValidContract] {
        &self.options
    }

    /// The working precision.
    pub(crate) fn precision(&self) -> Precision {
        self.precision
    }
}

impl Items for ValidBook {
    type Item = usize;
    type Answer = Priced;
    type Summary = u64;
    type Kept = Priced;

    fn items(&self) -> &[usize] {
        &self.places
    }

    /// The price against every path of the tree (N <= 14) or the float64 serial lattice.
    fn check(&self, &place: &usize, priced: &Priced) -> Option<String> {
        let why = match self.options.get(place) {
            Some(option) => mismatch(option, priced, self.precision)?,
            None => "not in the book".to_owned(),
        };
        Some(format!(
            "option {} of {}: {why}",
            place + 1,
            self.options.len()
        ))
    }

    /// The option's lattice nodes (its bumped lattices not counted).
    fn summarise(&self, &place: &usize, _: &Priced, _seconds: f64) -> Result<u64> {
        match self.options.get(place) {
            Some(option) => Ok(lattice_nodes(option.contract().steps)),
            None => Err(Error::InvalidInput(format!(
                "option {} of a book of {}",
                place + 1,
                self.options.len()
            ))),
        }
    }

    fn keep(&self, _: &usize, priced: Priced) -> Priced {
        priced
    }
}

/// A book as a [`Kernel`], every option checked by the front door.
pub(crate) struct BookKernel<'a> {
    pub(crate) book: ValidBook,
    pub(crate) options: &'a PriceOptions,
    /// Why the last run's answers failed their checks (it checked them where asked).
    pub(crate) failures: Vec<String>,
}

impl Kernel for BookKernel<'_> {
    type Output = BookRun;
    const DOING: &'static str = "pricing";

    fn label(&self) -> String {
        format!("{} options", self.book.options.len())
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(BookRun, Placement)> {
        let strategy = strategy_on(self.options.strategy, backend);
        let (vega_rho, verify) = (self.options.vega_rho, self.options.run.verify);
        let book = &self.book;
        let mut timed = None;
        let (solved, placement) = match strategy {
            Strategy::Serial | Strategy::Multicore => {
                let mut cpu = CpuBook::new(strategy, vega_rho, progress.stop_flag());
                let threads = match strategy {
                    Strategy::Multicore => rayon::current_num_threads(),
                    _ => 1,
                };
                let solved = solve(book, &mut cpu, Keep::Every, verify, progress);
                let placement = Placement {
                    threads,
                    devices: vec![],
                };
                (solved, placement)
            }
            _ => {
                let gpu = LatticeGpu::shared(self.options.device)?;
                let mut launch = GpuBook::new(&gpu, vega_rho);
                let solved = solve(book, &mut launch, Keep::Every, verify, progress);
                timed = launch.timed();
                let placement = Placement {
                    threads: 1,
                    devices: vec![gpu.name()],
                };
                (solved, placement)
            }
        };
        let solved = match solved {
            // Stopped before its first option: a book of none, marked stopped.
            Err(Error::Interrupted(_)) if progress.stop_requested() => Solved {
                summaries: vec![],
                kept: vec![],
                failures: vec![],
                item_seconds: vec![],
                stopped: true,
            },
            solved => solved?,
        };
        self.failures = solved.failures;
        let run = BookRun {
            nodes: solved.summaries.iter().sum(),
            priced: solved.kept,
            strategy,
            precision: book.precision,
            kernel_seconds: timed.map(|t| t.0),
            span_seconds: timed.map(|t| t.1),
            stopped: solved.stopped,
        };
        Ok((run, placement))
    }

    /// The last run's checks (a run asked to verify checked every option as it came).
    fn verify(&self, _: &BookRun) -> Result<Option<bool>> {
        match self.failures.split_first() {
            None => Ok(Some(true)),
            Some((first, rest)) => {
                let more = match rest.len() {
                    0 => String::new(),
                    1 => " (and 1 more option)".to_owned(),
                    n => format!(" (and {n} more options)"),
                };
                Err(Error::Verification(format!(
                    "{}: {first}{more}",
                    self.label()
                )))
            }
        }
    }

    fn stats(&self, output: &BookRun) -> Map<String, Value> {
        output.stats()
    }

    fn is_partial(&self, output: &BookRun) -> bool {
        output.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::hull_tn13;

    #[test]
    fn failed_checks_are_a_verification_error_naming_the_first_option() {
        let options = PriceOptions::default();
        let kernel = BookKernel {
            book: ValidBook::new(&[hull_tn13(); 3], Precision::F64).unwrap(),
            options: &options,
            failures: vec!["option 2 of 3: x".into(), "option 3 of 3: y".into()],
        };
        let run = BookRun {
            priced: vec![],
            strategy: Strategy::Serial,
            precision: Precision::F64,
            kernel_seconds: None,
            span_seconds: None,
            nodes: 0,
            stopped: false,
        };
        let error = kernel.verify(&run).unwrap_err();
        assert_eq!(error.exit_code(), 3, "{error}");
        assert!(
            error
                .to_string()
                .contains("3 options: option 2 of 3: x (and 1 more option)"),
            "{error}"
        );
        let passed = BookKernel {
            failures: vec![],
            ..kernel
        };
        assert_eq!(passed.verify(&run).unwrap(), Some(true));
    }
}
