//! `thicket bench lookback`: the thesis's experiment (Solomon 2012, §3.4) rerun and extended.
//!
//! - **Steps sweep**: one American lookback put (Table 3.1's first market: S = 50, T = 0.35,
//!   σ = 0.3, r = 0.1) at growing N, every strategy in f32 and f64: the time (kernel time for
//!   the GPU strategies, wall time for the CPU ones), the speed-up over `serial` in the same
//!   precision, and the error of each price against the f64 lattice. The hybrid runs once per
//!   threshold (the thesis's Fig. 3.4: 128, 256, 384).
//! - **Books**: 1,024 lookback puts and NVIDIA's book of 1,024 European calls × 2,048 steps on
//!   every book strategy: options and lattice nodes per second, kernel time and the span from
//!   upload to download.
//! - **Convergence** (`convergence`): the American and European put against N beside the
//!   Goldman–Sosin–Gatto closed form, which the European lattice approaches from below.
//!
//! Every f64 price is checked against the f64 lattice (1e-9 relative), every f32 price of a
//! thicket strategy against it within the thesis's 1e-3 up to N = 30,000; the thesis's own
//! kernel in f32 is only reported (it loses that tolerance past 10,000, as in the thesis).
//!
//! The tables and charts are in `render`, the books in `books`, the convergence experiment in
//! `convergence`; this file holds the options, the rows, the sweep and the verdict.

mod books;
mod convergence;
mod render;

use crate::harness::{
    case_run, repeat, timed, AfterCase, AfterFailure, Outcome, Plan, Report, Sweep,
};
use rayon::ThreadPool;
use serde::Serialize;
use thicket_core::{Backend, Error, Result, RunOptions};
use thicket_lattice::{
    lattice_nodes, price, Contract, Market, Payoff, Precision, PriceOptions, Strategy, Style,
    HYBRID_THRESHOLD,
};

use books::{book_reference, book_row, book_strategies, BookCase};
use convergence::convergence;
use render::{book_line, render, steps_line};

pub use books::sample_books;

/// Past this N the f32 prices are reported, not checked (the and thesis's range).
const F32_CHECKED_UP_TO: usize = 30_000;

/// What `thicket bench lookback` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct LookbackBenchOptions {
    /// Lattice sizes of the steps sweep (and of the convergence table).
    pub steps: Vec<usize>,
    /// Strategies, in table order.
    pub strategies: Vec<Strategy>,
    /// Precisions of the steps sweep and the books.
    pub precisions: Vec<Precision>,
    /// The hybrid's thresholds (layers finished on the CPU).
    pub hybrid_thresholds: Vec<usize>,
    /// The books' size: options and steps; `None`: no books.
    pub book: Option<(usize, usize)>,
    /// Instead of the sweep: the convergence table against the closed form.
    pub convergence: bool,
    /// Runs per case; the fastest is kept.
    pub repeat: usize,
    /// A case predicted (from the lattice's node count) to take longer is skipped.
    pub max_seconds: f64,
    /// CPU threads of `multicore` (one pool for the whole bench).
    pub threads: usize,
    /// The GPU.
    pub device: usize,
}

/// One strategy, precision and N of the steps sweep.
#[derive(Debug, Clone, Serialize)]
pub struct StepsRow {
    /// Lattice steps.
    pub n: usize,
    /// Strategy name.
    pub strategy: String,
    /// The hybrid's threshold.
    pub threshold: Option<usize>,
    /// Working precision.
    pub precision: Precision,
    /// Fastest wall time of the whole call (GPU set-up included), seconds.
    pub seconds: Option<f64>,
    /// GPU strategies: fastest device time (CUDA events; the hybrid's CPU tail included).
    pub kernel_seconds: Option<f64>,
    /// The compared time: kernel time on the GPU, wall time on the CPU.
    pub time: Option<f64>,
    /// `serial`'s time in the same precision over this row's time.
    pub speedup: Option<f64>,
    /// The price.
    pub price: Option<f64>,
    /// |price − f64 lattice| / max(1, |f64 lattice|).
    pub error: Option<f64>,
    /// Whether the price is within tolerance (`None`: reported only).
    pub verified: Option<bool>,
    /// Why the row was not run, or how it failed.
    pub note: Option<String>,
    /// Whether the case failed (rather than ran, was skipped or found no GPU).
    #[serde(skip)]
    pub failed: bool,
}

/// One book on one strategy and precision.
#[derive(Debug, Clone, Serialize)]
pub struct BookRow {
    /// Which book.
    pub book: String,
    /// Options in it.
    pub options: usize,
    /// Steps per option.
    pub steps: usize,
    /// Strategy name.
    pub strategy: String,
    /// Working precision.
    pub precision: Precision,
    /// Fastest wall time, seconds.
    pub seconds: Option<f64>,
    /// GPU: fastest kernel time.
    pub kernel_seconds: Option<f64>,
    /// GPU: fastest span from the upload of the options to the download of the prices.
    pub span_seconds: Option<f64>,
    /// Options per second of the compared time (kernel on the GPU, wall on the CPU).
    pub options_per_second: Option<f64>,
    /// Lattice nodes per second, likewise.
    pub nodes_per_second: Option<f64>,
    /// Largest |price − f64 lattice| / max(1, |f64 lattice|) over the book.
    pub worst_error: Option<f64>,
    /// Whether every price is within tolerance.
    pub verified: Option<bool>,
    /// Why the row was not run, or how it failed.
    pub note: Option<String>,
    /// Whether the case failed (rather than ran, was skipped or found no GPU).
    #[serde(skip)]
    pub failed: bool,
}

/// The European and American put at one N beside the closed form.
#[derive(Debug, Clone, Serialize)]
pub struct ConvergenceRow {
    /// Lattice steps.
    pub n: usize,
    /// The American lookback put on the lattice.
    pub american: f64,
    /// The European lookback put on the lattice.
    pub european: f64,
    /// Goldman–Sosin–Gatto (continuous monitoring).
    pub closed_form: f64,
    /// closed form − European lattice.
    pub gap: f64,
    /// Seconds for both lattices.
    pub seconds: f64,
}

/// Runs the bench `options` ask for, calling `after_case` after every case.
pub fn bench(options: &LookbackBenchOptions, after_case: AfterCase) -> Result<Report> {
    let mut steps = options.steps.clone();
    steps.sort_unstable();
    steps.dedup();
    // One pool for every CPU case: `multicore` runs on the pool it is called in.
    let pool = thicket_core::pool(options.threads)?;
    if options.convergence {
        return convergence(&steps, options, &pool, after_case);
    }
    let mut rows: Vec<StepsRow> = Vec::new();
    let mut books: Vec<BookRow> = Vec::new();
    let references = References::default();
    for &precision in &options.precisions {
        for (strategy, threshold) in series(options) {
            let mut sweep = Sweep::new(options.max_seconds, AfterFailure::Continue);
            for &n in &steps {
                let row = match sweep.plan(n, |n| Some(lattice_nodes(n) as f64)) {
                    Plan::Run => {
                        let serial = serial_time(&rows, n, precision);
                        steps_row(
                            options,
                            strategy,
                            threshold,
                            precision,
                            n,
                            serial,
                            &references,
                            &pool,
                        )
                    }
                    Plan::Skip(why) => StepsRow::new(strategy, threshold, precision, n)
                        .noted(Outcome::<()>::Skipped(why)),
                    Plan::Stopped => unreachable!("the sweep continues after a failure"),
                };
                sweep.record(n, row.time);
                rows.push(row);
                let line = steps_line(rows.last().expect("just pushed"));
                after_case(&line, &render(&rows, &books))?;
            }
        }
    }
    if let Some((count, book_steps)) = options.book {
        for (name, contracts) in sample_books(count, book_steps) {
            let reference = book_reference(&contracts, &pool)?;
            for &precision in &options.precisions {
                for strategy in book_strategies(options) {
                    let case = BookCase {
                        name,
                        contracts: &contracts,
                        reference: &reference,
                        strategy,
                        precision,
                    };
                    let row = book_row(options, &case, &pool);
                    books.push(row);
                    let line = book_line(books.last().expect("just pushed"));
                    after_case(&line, &render(&rows, &books))?;
                }
            }
        }
    }
    Ok(Report {
        rendered: render(&rows, &books),
        verdict: verdict(&rows, &books),
    })
}

/// The sweep's series: each strategy once, the hybrid once per threshold.
fn series(options: &LookbackBenchOptions) -> Vec<(Strategy, Option<usize>)> {
    options
        .strategies
        .iter()
        .flat_map(|&strategy| match strategy {
            Strategy::Hybrid => options
                .hybrid_thresholds
                .iter()
                .map(|&t| (strategy, Some(t)))
                .collect::<Vec<_>>(),
            _ => vec![(strategy, None)],
        })
        .collect()
}

/// The sweep's option: Table 3.1's first market, an American lookback put on `n` steps.
pub fn sweep_contract(n: usize, style: Style) -> Contract {
    Contract {
        payoff: Payoff::LookbackPut,
        style,
        market: Market {
            spot: 50.0,
            maturity: 0.35,
            volatility: 0.3,
            rate: 0.1,
            dividend_yield: 0.0,
        },
        steps: n,
        observed_extreme: None,
        tree: Default::default(),
    }
}

/// The f64 lattice's price per N, computed once (multicore, bit-identical to serial).
#[derive(Default)]
struct References {
    prices: std::cell::RefCell<Vec<(usize, f64)>>,
}

impl References {
    fn get(&self, n: usize, pool: &ThreadPool) -> Result<f64> {
        if let Some(&(_, price)) = self.prices.borrow().iter().find(|(m, _)| *m == n) {
            return Ok(price);
        }
        let contract = sweep_contract(n, Style::American);
        let settings = reference_options();
        let price = pool
            .install(|| price(&contract, &settings))?
            .output
            .priced
            .price;
        self.prices.borrow_mut().push((n, price));
        Ok(price)
    }
}

/// How the references are priced: f64 `multicore` on the CPU.
fn reference_options() -> PriceOptions {
    PriceOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..RunOptions::default()
        },
        strategy: Some(Strategy::Multicore),
        precision: Precision::F64,
        ..PriceOptions::default()
    }
}

/// `serial`'s time at `n` in `precision`, where it ran.
fn serial_time(rows: &[StepsRow], n: usize, precision: Precision) -> Option<f64> {
    rows.iter()
        .find(|r| r.n == n && r.precision == precision && r.strategy == "serial")
        .and_then(|r| r.time)
}

/// The relative difference the checks use.
fn relative_error(got: f64, reference: f64) -> f64 {
    (got - reference).abs() / reference.abs().max(1.0)
}

/// Whether a price is checked, and against which tolerance.
fn tolerance(strategy: Strategy, precision: Precision, n: usize) -> Option<f64> {
    match precision {
        Precision::F64 => Some(1e-9),
        Precision::F32 if matches!(strategy, Strategy::Thesis | Strategy::Hybrid) => None,
        Precision::F32 if n <= F32_CHECKED_UP_TO => Some(1e-3),
        Precision::F32 => None,
    }
}

/// The run options of one bench call: quiet, no fallback, one trial.
fn price_options(
    options: &LookbackBenchOptions,
    strategy: Strategy,
    threshold: Option<usize>,
    precision: Precision,
) -> PriceOptions {
    PriceOptions {
        run: case_run(strategy.is_gpu()),
        strategy: Some(strategy),
        precision,
        device: options.device,
        hybrid_threshold: threshold.unwrap_or(HYBRID_THRESHOLD),
        // The sweeps time one lattice per option, as the papers and NVIDIA's sample do.
        vega_rho: false,
    }
}

/// Times one case of the sweep.
#[allow(clippy::too_many_arguments)]
fn steps_row(
    options: &LookbackBenchOptions,
    strategy: Strategy,
    threshold: Option<usize>,
    precision: Precision,
    n: usize,
    serial: Option<f64>,
    references: &References,
    pool: &ThreadPool,
) -> StepsRow {
    let row = StepsRow::new(strategy, threshold, precision, n);
    let contract = sweep_contract(n, Style::American);
    let settings = price_options(options, strategy, threshold, precision);
    let runs = match Outcome::of(repeat(options.repeat, || {
        timed(|| pool.install(|| price(&contract, &settings)))
    })) {
        Outcome::Ran(runs) => runs,
        other => return row.noted(other),
    };
    let reference = match Outcome::of(references.get(n, pool)) {
        Outcome::Ran(price) => price,
        other => return row.noted(other),
    };
    let (seconds, best) = runs.best();
    let kernel_seconds = runs
        .outputs()
        .filter_map(|m| m.output.kernel_seconds)
        .min_by(f64::total_cmp);
    let time = kernel_seconds.unwrap_or(seconds);
    let price = best.output.priced.price;
    let error = relative_error(price, reference);
    StepsRow {
        seconds: Some(seconds),
        kernel_seconds,
        time: Some(time),
        speedup: serial
            .or((strategy == Strategy::Serial).then_some(time))
            .map(|s| s / time),
        price: Some(price),
        error: Some(error),
        verified: tolerance(strategy, precision, n).map(|t| error <= t),
        ..row
    }
}

impl StepsRow {
    fn new(
        strategy: Strategy,
        threshold: Option<usize>,
        precision: Precision,
        n: usize,
    ) -> StepsRow {
        StepsRow {
            n,
            strategy: strategy.name().to_owned(),
            threshold,
            precision,
            seconds: None,
            kernel_seconds: None,
            time: None,
            speedup: None,
            price: None,
            error: None,
            verified: None,
            note: None,
            failed: false,
        }
    }

    /// The row of a case that did not run, with why.
    fn noted<T>(self, outcome: Outcome<T>) -> StepsRow {
        StepsRow {
            note: outcome.note(),
            failed: outcome.failed(),
            ..self
        }
    }

    /// The column of the pivot tables: strategy (with the hybrid's threshold) and precision.
    fn column(&self) -> String {
        match self.threshold {
            Some(t) => format!("{} {t} {}", self.strategy, self.precision),
            None => format!("{} {}", self.strategy, self.precision),
        }
    }
}

/// A wrong price or a failed case is an error (an unavailable GPU is not).
fn verdict(rows: &[StepsRow], books: &[BookRow]) -> Result<()> {
    let wrong = rows
        .iter()
        .filter(|r| r.verified == Some(false))
        .map(|r| format!("{} at N = {}", r.column(), r.n))
        .chain(
            books
                .iter()
                .filter(|b| b.verified == Some(false))
                .map(|b| format!("{} on {} {}", b.book, b.strategy, b.precision)),
        )
        .collect::<Vec<_>>();
    if !wrong.is_empty() {
        return Err(Error::Verification(format!(
            "prices out of tolerance: {}",
            wrong.join(", ")
        )));
    }
    let failed = rows
        .iter()
        .filter(|r| r.failed)
        .filter_map(|r| r.note.as_deref())
        .chain(
            books
                .iter()
                .filter(|b| b.failed)
                .filter_map(|b| b.note.as_deref()),
        )
        .next();
    match failed {
        Some(note) => Err(Error::Gpu(note.to_owned())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu_options() -> LookbackBenchOptions {
        LookbackBenchOptions {
            steps: vec![200, 100],
            strategies: vec![Strategy::Serial, Strategy::Multicore, Strategy::Tiles],
            precisions: vec![Precision::F64, Precision::F32],
            hybrid_thresholds: vec![128, 256],
            book: Some((8, 64)),
            convergence: false,
            repeat: 1,
            max_seconds: 60.0,
            threads: 2,
            device: 0,
        }
    }

    #[test]
    fn the_sweep_checks_every_price_and_reports_speedups() {
        let mut lines = Vec::new();
        let report = bench(&cpu_options(), &mut |line, _| {
            lines.push(line.to_owned());
            Ok(())
        })
        .unwrap();
        assert!(report.verdict.is_ok(), "{:?}", report.verdict);
        let json = &report.rendered.json;
        let all = json["rows"].as_array().unwrap();
        // 2 precisions x 3 strategies x 2 sizes, smallest size first.
        assert_eq!(all.len(), 12);
        assert_eq!(all[0]["n"], 100);
        let serial = &all[0];
        assert_eq!(serial["strategy"], "serial");
        assert_eq!(serial["verified"], true);
        assert!((serial["speedup"].as_f64().unwrap() - 1.0).abs() < 1e-12);
        let multicore = all.iter().find(|r| r["strategy"] == "multicore").unwrap();
        assert_eq!(multicore["error"], 0.0);
        let books = json["books"].as_array().unwrap();
        // 2 books x 2 precisions x (serial, multicore, tiles).
        assert_eq!(books.len(), 12);
        assert!(books
            .iter()
            .filter(|b| b["strategy"] != "tiles")
            .all(|b| b["verified"] == true));
        assert!(report.rendered.markdown.contains("Speed-up over serial"));
        assert_eq!(lines.len(), 24);
    }

    #[test]
    fn the_hybrid_runs_once_per_threshold() {
        let options = LookbackBenchOptions {
            strategies: vec![Strategy::Serial, Strategy::Hybrid],
            ..cpu_options()
        };
        let labels: Vec<String> = series(&options)
            .into_iter()
            .map(|(s, t)| StepsRow::new(s, t, Precision::F32, 1).column())
            .collect();
        assert_eq!(labels, ["serial f32", "hybrid 128 f32", "hybrid 256 f32"]);
        assert_eq!(book_strategies(&options), [Strategy::Serial]);
    }

    #[test]
    fn the_european_lattice_approaches_the_closed_form() {
        let options = LookbackBenchOptions {
            steps: vec![400, 100, 1600],
            convergence: true,
            ..cpu_options()
        };
        let report = bench(&options, &mut |_, _| Ok(())).unwrap();
        assert!(report.verdict.is_ok(), "{:?}", report.verdict);
        let rows = report.rendered.json["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 3);
        for row in rows {
            assert!(row["gap"].as_f64().unwrap() > 0.0);
            assert!(row["american"].as_f64() > row["european"].as_f64());
        }
        assert!(!report.rendered.log_y);
    }

    #[test]
    fn the_sample_books_are_valid_and_fixed() {
        let [(_, lookbacks), (_, calls)] = sample_books(64, 100);
        assert!(lookbacks.iter().chain(&calls).all(|c| c.validate().is_ok()));
        let [(_, again), _] = sample_books(64, 100);
        assert_eq!(lookbacks, again);
    }
}
