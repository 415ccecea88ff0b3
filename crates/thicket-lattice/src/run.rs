//! The front doors: [`price`] one option and [`price_book`] many, on the strategy asked for or
//! the fastest for the backend, as a [`Kernel`] checked against the float64 serial lattice
//! (every path of the tree for N <= 14).

use serde::Serialize;
use serde_json::{json, Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunOptions,
};

use crate::books::{multicore_book, serial_book};
use crate::contract::Contract;
use crate::gpu::LatticeGpu;
use crate::greeks::price_with_bumps;
use crate::multicore::price_multicore;
use crate::scheme::{Precision, Priced};
use crate::serial::price_serial;
use crate::verify::verify;

/// How a lattice is priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// One CPU thread: the thesis's baseline and the speed-up reference.
    Serial,
    /// The caller's rayon pool, time-tiled (one option), or one option per task (a book).
    Multicore,
    /// The thesis's GPU kernel: one launch per layer, one thread per node (lookback put).
    Thesis,
    /// The thesis's kernel with the last layers on the CPU (its hybrid).
    Hybrid,
    /// thicket's GPU kernel: many layers per launch, nodes in registers; a block per option
    /// in a book. The default on the GPU.
    Tiles,
}

impl Strategy {
    /// Every strategy, in the bench's order.
    pub const ALL: [Strategy; 5] = [
        Strategy::Serial,
        Strategy::Multicore,
        Strategy::Thesis,
        Strategy::Hybrid,
        Strategy::Tiles,
    ];

    /// The strategy's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Serial => "serial",
            Strategy::Multicore => "multicore",
            Strategy::Thesis => "thesis",
            Strategy::Hybrid => "hybrid",
            Strategy::Tiles => "tiles",
        }
    }

    /// Whether it runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(self, Strategy::Thesis | Strategy::Hybrid | Strategy::Tiles)
    }
}

thicket_core::named_choice!(Strategy, "lattice strategy");

/// The thesis's best hybrid threshold (Fig. 3.4): the last 256 layers on the CPU.
pub const HYBRID_THRESHOLD: usize = 256;

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

/// One priced option and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatticeRun {
    /// What was priced.
    pub contract: Contract,
    /// Price, delta, gamma.
    pub priced: Priced,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The working precision.
    pub precision: Precision,
    /// GPU strategies: seconds of device work (CUDA events; the hybrid's CPU tail included).
    pub kernel_seconds: Option<f64>,
    /// GPU strategies: kernel launches.
    pub launches: Option<usize>,
}

/// A priced book of options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookRun {
    /// One answer per option, in order.
    pub priced: Vec<Priced>,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The working precision.
    pub precision: Precision,
    /// GPU: seconds of device work.
    pub kernel_seconds: Option<f64>,
    /// GPU: seconds from the upload of the options to the download of the prices (the span
    /// NVIDIA's binomialOptions sample times).
    pub span_seconds: Option<f64>,
    /// Lattice nodes over all options.
    pub nodes: u64,
}

/// Nodes of an N-step lattice: (N + 1)(N + 2) / 2.
pub fn lattice_nodes(steps: usize) -> u64 {
    let n = steps as u64;
    (n + 1) * (n + 2) / 2
}

/// The strategy that runs on `backend` when `asked`, and the backend to hand
/// [`benchmark_kernel`] (a CPU strategy under `auto` runs on the CPU).
fn resolve(asked: Option<Strategy>, backend: Backend) -> Result<Backend> {
    thicket_core::backend_for(asked, Strategy::is_gpu, backend)
}

/// The strategy a run on `backend` uses.
fn strategy_on(asked: Option<Strategy>, backend: Backend) -> Strategy {
    asked.unwrap_or(match backend {
        Backend::Cpu => Strategy::Multicore,
        _ => Strategy::Tiles,
    })
}

/// Prices one option as `options` ask.
pub fn price(contract: &Contract, options: &PriceOptions) -> Result<Measured<LatticeRun>> {
    contract.validate()?;
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
    benchmark_kernel(&mut OptionKernel { contract, options }, &run)
}

/// Prices a book of options as `options` ask (`serial`: one thread, `multicore`: an option
/// per thread, `tiles`: a block per option; the thesis's kernels price one option at a time).
pub fn price_book(contracts: &[Contract], options: &PriceOptions) -> Result<Measured<BookRun>> {
    if let Some(s @ (Strategy::Thesis | Strategy::Hybrid)) = options.strategy {
        return Err(Error::InvalidInput(format!(
            "strategy {s} prices one option at a time; a book takes serial, multicore or tiles"
        )));
    }
    for (index, contract) in contracts.iter().enumerate() {
        contract.validate().map_err(|e| {
            Error::InvalidInput(format!(
                "option {} of {}: {}",
                index + 1,
                contracts.len(),
                e.message()
            ))
        })?;
    }
    let run = RunOptions {
        backend: resolve(options.strategy, options.run.backend)?,
        ..options.run
    };
    benchmark_kernel(&mut BookKernel { contracts, options }, &run)
}

struct OptionKernel<'a> {
    contract: &'a Contract,
    options: &'a PriceOptions,
}

impl Kernel for OptionKernel<'_> {
    type Output = LatticeRun;
    const DOING: &'static str = "pricing";

    fn label(&self) -> String {
        format!(
            "{} {} steps",
            self.contract.payoff.name(),
            self.contract.steps
        )
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
        let mut price_all = |contracts: &[Contract]| -> Result<Vec<Priced>> {
            match strategy {
                Strategy::Serial => contracts
                    .iter()
                    .map(|c| price_serial(c, precision))
                    .collect(),
                Strategy::Multicore => contracts
                    .iter()
                    .map(|c| price_multicore(c, precision))
                    .collect(),
                Strategy::Thesis | Strategy::Hybrid => {
                    let gpu = LatticeGpu::shared(options.device)?;
                    devices = vec![gpu.name()];
                    let cpu_tail =
                        (strategy == Strategy::Hybrid).then_some(options.hybrid_threshold);
                    let mut priced = Vec::with_capacity(contracts.len());
                    for contract in contracts {
                        let run = gpu.thesis(contract, precision, cpu_tail)?;
                        add_work(run.kernel_seconds, run.launches);
                        priced.push(run.priced);
                    }
                    Ok(priced)
                }
                Strategy::Tiles => {
                    let gpu = LatticeGpu::shared(options.device)?;
                    devices = vec![gpu.name()];
                    let run = match contracts {
                        [one] => gpu.tiles(one, precision)?.map(|p| vec![p]),
                        many => gpu.book(many, precision)?,
                    };
                    add_work(run.kernel_seconds, run.launches);
                    Ok(run.priced)
                }
            }
        };
        let priced = if options.vega_rho {
            price_with_bumps(std::slice::from_ref(self.contract), precision, price_all)?[0]
        } else {
            price_all(std::slice::from_ref(self.contract))?[0]
        };
        let threads = match strategy {
            Strategy::Multicore => rayon::current_num_threads(),
            _ => 1,
        };
        let run = LatticeRun {
            contract: *self.contract,
            priced,
            strategy,
            precision,
            kernel_seconds: gpu_work.map(|w| w.0),
            launches: gpu_work.map(|w| w.1),
        };
        Ok((run, Placement { threads, devices }))
    }

    fn verify(&self, output: &LatticeRun) -> Result<Option<bool>> {
        verify(self.contract, &output.priced, output.precision).map(Some)
    }

    fn stats(&self, output: &LatticeRun) -> Map<String, Value> {
        output.stats()
    }
}

struct BookKernel<'a> {
    contracts: &'a [Contract],
    options: &'a PriceOptions,
}

impl Kernel for BookKernel<'_> {
    type Output = BookRun;
    const DOING: &'static str = "pricing";

    fn label(&self) -> String {
        format!("{} options", self.contracts.len())
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(BookRun, Placement)> {
        let strategy = strategy_on(self.options.strategy, backend);
        let precision = self.options.precision;
        let nodes = self.contracts.iter().map(|c| lattice_nodes(c.steps)).sum();
        let book = |priced, kernel_seconds, span_seconds| BookRun {
            priced,
            strategy,
            precision,
            kernel_seconds,
            span_seconds,
            nodes,
        };
        let mut timed = None;
        let mut devices = vec![];
        let mut price_all = |contracts: &[Contract]| -> Result<Vec<Priced>> {
            match strategy {
                Strategy::Serial => serial_book(contracts, precision, progress),
                Strategy::Multicore => multicore_book(contracts, precision, progress),
                _ => {
                    let gpu = LatticeGpu::shared(self.options.device)?;
                    devices = vec![gpu.name()];
                    let run = gpu.book(contracts, precision)?;
                    timed = Some((run.kernel_seconds, run.span_seconds));
                    Ok(run.priced)
                }
            }
        };
        let priced = if self.options.vega_rho {
            price_with_bumps(self.contracts, precision, price_all)?
        } else {
            price_all(self.contracts)?
        };
        let threads = match strategy {
            Strategy::Multicore => rayon::current_num_threads(),
            _ => 1,
        };
        let run = book(priced, timed.map(|t| t.0), timed.map(|t| t.1));
        Ok((run, Placement { threads, devices }))
    }

    fn verify(&self, output: &BookRun) -> Result<Option<bool>> {
        for (contract, got) in self.contracts.iter().zip(&output.priced) {
            if !verify(contract, got, output.precision)? {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }

    fn stats(&self, output: &BookRun) -> Map<String, Value> {
        output.stats()
    }
}

impl LatticeRun {
    /// The answer as JSON keys: `price`, `delta`, `gamma`, `theta`, `vega`, `rho` (null where
    /// not computed), the contract (`payoff`, `style`, `spot`, `strike`, `maturity`,
    /// `volatility`, `rate`, `dividend_yield`, `observed_extreme` (a lookback's running
    /// extreme so far, the spot where none was given; null for a vanilla), `tree`, `steps`),
    /// `precision`, `strategy`,
    /// `kernel_seconds`, `launches`, `nodes`.
    pub fn stats(&self) -> Map<String, Value> {
        let c = &self.contract;
        thicket_core::object(json!({
            "price": self.priced.price,
            "delta": self.priced.delta,
            "gamma": self.priced.gamma,
            "theta": self.priced.theta,
            "vega": self.priced.vega,
            "rho": self.priced.rho,
            "payoff": c.payoff.name(),
            "style": c.style.name(),
            "spot": c.market.spot,
            "strike": c.payoff.strike(),
            "maturity": c.market.maturity,
            "volatility": c.market.volatility,
            "rate": c.market.rate,
            "dividend_yield": c.market.dividend_yield,
            "observed_extreme": c
                .payoff
                .strike()
                .is_none()
                .then(|| c.observed_extreme.unwrap_or(c.market.spot)),
            "tree": c.tree.name(),
            "steps": c.steps,
            "precision": self.precision,
            "strategy": self.strategy,
            "kernel_seconds": self.kernel_seconds,
            "launches": self.launches,
            "nodes": lattice_nodes(c.steps),
        }))
    }
}

impl BookRun {
    /// The book as JSON keys: `options`, `strategy`, `precision`, `kernel_seconds`,
    /// `span_seconds`, `nodes` and `priced` (price, delta, gamma, theta, vega and rho per
    /// option).
    pub fn stats(&self) -> Map<String, Value> {
        thicket_core::object(json!({
            "options": self.priced.len(),
            "strategy": self.strategy,
            "precision": self.precision,
            "kernel_seconds": self.kernel_seconds,
            "span_seconds": self.span_seconds,
            "nodes": self.nodes,
            "priced": self.priced,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::hull_tn13;

    fn cpu(strategy: Strategy) -> PriceOptions {
        PriceOptions {
            run: RunOptions {
                backend: Backend::Cpu,
                quiet: true,
                verify: true,
                ..RunOptions::default()
            },
            strategy: Some(strategy),
            ..PriceOptions::default()
        }
    }

    #[test]
    fn hulls_example_prices_on_every_cpu_strategy_and_verifies() {
        for strategy in [Strategy::Serial, Strategy::Multicore] {
            let run = price(&hull_tn13(), &cpu(strategy)).unwrap();
            assert!((run.output.priced.price - 5.4701813761).abs() < 1e-9);
            assert_eq!(run.verified, Some(true));
            let json = run.json(
                OptionKernel {
                    contract: &hull_tn13(),
                    options: &cpu(strategy),
                }
                .stats(&run.output),
            );
            for key in [
                "price",
                "delta",
                "gamma",
                "steps",
                "precision",
                "strategy",
                "backend",
                "seconds",
            ] {
                assert!(json.get(key).is_some(), "{key}");
            }
        }
    }

    #[test]
    fn gpu_strategies_refuse_the_cpu_and_cpu_ones_the_gpu() {
        let error = price(&hull_tn13(), &cpu(Strategy::Thesis)).unwrap_err();
        assert!(error.to_string().contains("runs on a GPU"), "{error}");
        let mut options = cpu(Strategy::Serial);
        options.run.backend = Backend::Cuda;
        assert!(price(&hull_tn13(), &options).is_err());
        let mut book = cpu(Strategy::Multicore);
        book.strategy = Some(Strategy::Hybrid);
        book.run.backend = Backend::Auto;
        assert!(price_book(&[hull_tn13()], &book).is_err());
    }

    #[test]
    fn the_thesis_refuses_an_observed_maximum_as_bad_input_on_any_machine() {
        let seasoned = Contract {
            observed_extreme: Some(57.5),
            ..hull_tn13()
        };
        for strategy in [Strategy::Thesis, Strategy::Hybrid] {
            let mut options = cpu(strategy);
            options.run.backend = Backend::Auto;
            let error = price(&seasoned, &options).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{error}");
            assert!(error.to_string().contains("57.5"), "{error}");
        }
    }

    #[test]
    fn auto_falls_back_to_the_cpu_without_a_gpu_and_a_book_verifies() {
        let options = PriceOptions {
            run: RunOptions {
                quiet: true,
                verify: true,
                ..RunOptions::default()
            },
            ..PriceOptions::default()
        };
        let run = price(&hull_tn13(), &options).unwrap();
        assert_eq!(run.verified, Some(true));
        let book = price_book(&[hull_tn13(), hull_tn13()], &options).unwrap();
        assert_eq!(book.verified, Some(true));
        assert_eq!(book.output.nodes, 20);
    }

    #[test]
    fn two_prices_in_one_process_agree_and_open_the_gpu_once() {
        let options = PriceOptions {
            run: RunOptions {
                quiet: true,
                ..RunOptions::default()
            },
            ..PriceOptions::default()
        };
        let contract = Contract {
            steps: 3_000,
            ..hull_tn13()
        };
        let first = price(&contract, &options).unwrap();
        let second = price(&contract, &options).unwrap();
        assert_eq!(first.output.priced, second.output.priced);
        let book = [hull_tn13(), contract];
        let books = [
            price_book(&book, &options).unwrap(),
            price_book(&book, &options).unwrap(),
        ];
        assert_eq!(books[0].output.priced, books[1].output.priced);
        if first.info.backend == Backend::Cuda.name() {
            assert_eq!(
                crate::gpu::OPENS.load(std::sync::atomic::Ordering::SeqCst),
                1
            );
        }
    }

    #[test]
    fn multicore_runs_on_the_callers_pool() {
        let pool = thicket_core::pool(3).unwrap();
        let run = pool
            .install(|| price(&hull_tn13(), &cpu(Strategy::Multicore)))
            .unwrap();
        assert_eq!(run.info.threads, 3);
        let book = pool
            .install(|| price_book(&[hull_tn13()], &cpu(Strategy::Multicore)))
            .unwrap();
        assert_eq!(book.info.threads, 3);
    }

    #[test]
    fn a_bad_option_of_a_book_is_named_by_its_place() {
        let mut book = vec![hull_tn13(); 8];
        book[5].market.volatility = -1.0;
        book[7].steps = 0;
        let error = price_book(&book, &cpu(Strategy::Serial)).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("option 6 of 8: volatility is -1"),
            "{error}"
        );
    }

    #[test]
    fn strategies_parse_by_name() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>().unwrap(), strategy);
        }
        assert!("warp".parse::<Strategy>().is_err());
    }
}
