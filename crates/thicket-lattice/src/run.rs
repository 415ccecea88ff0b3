//! The front doors: [`price`] one option and [`price_book`] many, on the strategy asked for or
//! the fastest for the backend, as a [`Kernel`] checked against the float64 serial lattice
//! (every path of the tree for N <= 14).

use serde_json::{Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunOptions,
};

use crate::book::{BookKernel, ValidBook};
use crate::contract::{Contract, ValidContract};
use crate::cpu::multicore::price_multicore;
use crate::cpu::serial::price_serial;
use crate::gpu::LatticeGpu;
use crate::greeks::price_with_bumps;
use crate::report::{BookRun, LatticeRun};
use crate::scheme::{Precision, Priced};
use crate::strategy::{strategy_on, Strategy, HYBRID_THRESHOLD};
use crate::verify::verdict;

/// How [`price`] and [`price_book`] run. `multicore` runs on the caller's rayon pool: the
/// global one, or the one the caller runs the call in (`pool.install(|| price(..))`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceOptions {
    /// Backend, trials, verification, progress bar.
    pub run: RunOptions,
    /// The strategy; `None`: `tiles` on the GPU, `multicore` on the CPU.
    pub strategy: Option<Strategy>,
    /// Working precision.
    pub precision: Precision,
    /// The GPU to use.
    pub device: usize,
    /// Layers the hybrid finishes on the CPU.
    pub hybrid_threshold: usize,
    /// Vega and rho too: each option's lattice re-priced at σ ± h and r ± h (five lattices
    /// an option instead of one; on the GPU in the same book launch). Off by default, so that
    /// a price costs one lattice; `thicket lookback` and `thicket binomial` turn it on.
    pub vega_rho: bool,
}

impl Default for PriceOptions {
    fn default() -> PriceOptions {
        PriceOptions {
            run: RunOptions::default(),
            strategy: None,
            precision: Precision::F64,
            device: 0,
            hybrid_threshold: HYBRID_THRESHOLD,
            vega_rho: false,
        }
    }
}

/// The strategy that runs on `backend` when `asked`, and the backend to hand
/// [`benchmark_kernel`] (a CPU strategy under `auto` runs on the CPU).
fn resolve(asked: Option<Strategy>, backend: Backend) -> Result<Backend> {
    thicket_core::backend_for(asked, Strategy::is_gpu, backend)
}

/// Prices one option as `options` ask.
pub fn price(contract: &Contract, options: &PriceOptions) -> Result<Measured<LatticeRun>> {
    let option = contract.checked()?;
    if let (Some(s @ (Strategy::Thesis | Strategy::Hybrid)), Some(extreme)) =
        (options.strategy, contract.observed_extreme)
    {
        return Err(Error::InvalidInput(format!(
            "strategy {s} prices a lookback put that starts today (the thesis's C form from the spot); one with an observed maximum ({}) takes tiles",
            thicket_core::number(extreme)
        )));
    }
    let run = RunOptions {
        backend: resolve(options.strategy, options.run.backend)?,
        ..options.run
    };
    benchmark_kernel(&mut OptionKernel { option, options }, &run)
}

/// Prices a book of options as `options` ask (`serial`: one thread, `multicore`: an option
/// per thread, `tiles`: a block per option; the thesis's kernels price one option at a time).
/// The book runs on the solve pipeline ([`thicket_core::pipeline`]): progress over its
/// options, each checked as it comes where `verify` asks. A book its caller stops
/// ([`thicket_core::stoppable`]) on the CPU ends at the next option with the options priced
/// so far, the first ones of the book, marked [`BookRun::stopped`].
pub fn price_book(contracts: &[Contract], options: &PriceOptions) -> Result<Measured<BookRun>> {
    if let Some(s @ (Strategy::Thesis | Strategy::Hybrid)) = options.strategy {
        return Err(Error::InvalidInput(format!(
            "strategy {s} prices one option at a time; a book takes serial, multicore or tiles"
        )));
    }
    let book = ValidBook::new(contracts, options.precision)?;
    let run = RunOptions {
        backend: resolve(options.strategy, options.run.backend)?,
        ..options.run
    };
    benchmark_kernel(
        &mut BookKernel {
            book,
            options,
            failures: vec![],
        },
        &run,
    )
}

/// One option, checked by the front door.
struct OptionKernel<'a> {
    option: ValidContract,
    options: &'a PriceOptions,
}

impl Kernel for OptionKernel<'_> {
    type Output = LatticeRun;
    const DOING: &'static str = "pricing";

    fn label(&self) -> String {
        let contract = self.option.contract();
        format!("{} {} steps", contract.payoff.name(), contract.steps)
    }

    fn run(&mut self, backend: Backend, _progress: &Progress) -> Result<(LatticeRun, Placement)> {
        let strategy = strategy_on(self.options.strategy, backend);
        let precision = self.options.precision;
        let options = self.options;
        // GPU strategies add up the device's work over the lattices they price.
        let mut gpu_work: Option<(f64, usize)> = None;
        let mut add_work = |seconds: f64, launches: usize| {
            let (s, l) = gpu_work.get_or_insert((0.0, 0));
            *s += seconds;
            *l += launches;
        };
        let mut devices = vec![];
        // One option, or the option and its bumped lattices (vega and rho), as the strategy
        // prices a list of them.
        let mut price_all = |lattices: &[ValidContract]| -> Result<Vec<Priced>> {
            match strategy {
                Strategy::Serial => Ok(lattices
                    .iter()
                    .map(|c| price_serial(c, precision))
                    .collect()),
                Strategy::Multicore => Ok(lattices
                    .iter()
                    .map(|c| price_multicore(c, precision))
                    .collect()),
                Strategy::Thesis | Strategy::Hybrid => {
                    let gpu = LatticeGpu::shared(options.device)?;
                    devices = vec![gpu.name()];
                    let cpu_tail =
                        (strategy == Strategy::Hybrid).then_some(options.hybrid_threshold);
                    let mut priced = Vec::with_capacity(lattices.len());
                    for lattice in lattices {
                        let run = gpu.thesis(lattice, precision, cpu_tail)?;
                        add_work(run.kernel_seconds, run.launches);
                        priced.push(run.priced);
                    }
                    Ok(priced)
                }
                Strategy::Tiles => {
                    let gpu = LatticeGpu::shared(options.device)?;
                    devices = vec![gpu.name()];
                    let run = match lattices {
                        [one] => gpu.tiles(one, precision)?.map(|p| vec![p]),
                        many => gpu.book(many, precision)?,
                    };
                    add_work(run.kernel_seconds, run.launches);
                    Ok(run.priced)
                }
            }
        };
        let one = std::slice::from_ref(&self.option);
        let priced = if options.vega_rho {
            price_with_bumps(one, precision, price_all)?[0]
        } else {
            price_all(one)?[0]
        };
        let threads = match strategy {
            Strategy::Multicore => rayon::current_num_threads(),
            _ => 1,
        };
        let run = LatticeRun {
            contract: *self.option.contract(),
            priced,
            strategy,
            precision,
            kernel_seconds: gpu_work.map(|w| w.0),
            launches: gpu_work.map(|w| w.1),
        };
        Ok((run, Placement { threads, devices }))
    }

    fn verify(&self, output: &LatticeRun) -> Result<Option<bool>> {
        Ok(Some(verdict(
            &self.option,
            &output.priced,
            output.precision,
        )))
    }

    fn stats(&self, output: &LatticeRun) -> Map<String, Value> {
        output.stats()
    }
}

#[cfg(test)]
mod tests;
