//! The books of `thicket bench lookback`: the two sample books, their f64 references on the
//! CPU and the timing of one book on one strategy and precision.

use rayon::ThreadPool;
use thicket_core::{Result, SplitMix};
use thicket_lattice::{price_book, BookRun, Contract, Market, Payoff, Precision, Strategy, Style};

use super::{price_options, reference_options, relative_error, tolerance};
use super::{BookRow, LookbackBenchOptions};
use crate::harness::{repeat, timed, Outcome};

/// The strategies that price books (the thesis's kernels price one option at a time).
pub(super) fn book_strategies(options: &LookbackBenchOptions) -> Vec<Strategy> {
    options
        .strategies
        .iter()
        .copied()
        .filter(|s| !matches!(s, Strategy::Thesis | Strategy::Hybrid))
        .collect()
}

/// The two books: American lookback puts (S 20..40, σ 0.15..0.45, T 0.25..2, r 0.02..0.1) and
/// NVIDIA's binomialOptions book (European calls, S 5..30, K 1..100, T 0.25..10, r 0.06,
/// σ 0.10), from a fixed seed.
pub fn sample_books(count: usize, steps: usize) -> [(&'static str, Vec<Contract>); 2] {
    let mut random = SplitMix::new(0x0074_6869_636b_6574);
    let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * random.unit();
    let lookbacks = (0..count)
        .map(|_| Contract {
            payoff: Payoff::LookbackPut,
            style: Style::American,
            market: Market {
                spot: uniform(20.0, 40.0),
                maturity: uniform(0.25, 2.0),
                volatility: uniform(0.15, 0.45),
                rate: uniform(0.02, 0.1),
                dividend_yield: 0.0,
            },
            steps,
            observed_extreme: None,
            tree: Default::default(),
        })
        .collect();
    let calls = (0..count)
        .map(|_| {
            let spot = uniform(5.0, 30.0);
            let strike = uniform(1.0, 100.0);
            let maturity = uniform(0.25, 10.0);
            Contract {
                payoff: Payoff::Call { strike },
                style: Style::European,
                market: Market {
                    spot,
                    maturity,
                    volatility: 0.10,
                    rate: 0.06,
                    dividend_yield: 0.0,
                },
                steps,
                observed_extreme: None,
                tree: Default::default(),
            }
        })
        .collect();
    [
        ("american lookback puts", lookbacks),
        ("NVIDIA European calls", calls),
    ]
}

/// The f64 prices of a book, one option per task of `pool`.
pub(super) fn book_reference(contracts: &[Contract], pool: &ThreadPool) -> Result<Vec<f64>> {
    let settings = reference_options();
    Ok(pool
        .install(|| price_book(contracts, &settings))?
        .output
        .priced
        .into_iter()
        .map(|p| p.price)
        .collect())
}

/// One book on one strategy and precision, with its reference prices.
pub(super) struct BookCase<'a> {
    pub(super) name: &'a str,
    pub(super) contracts: &'a [Contract],
    pub(super) reference: &'a [f64],
    pub(super) strategy: Strategy,
    pub(super) precision: Precision,
}

/// Times one book on one strategy.
pub(super) fn book_row(
    options: &LookbackBenchOptions,
    case: &BookCase<'_>,
    pool: &ThreadPool,
) -> BookRow {
    let BookCase {
        name,
        contracts,
        reference,
        strategy,
        precision,
    } = *case;
    let steps = contracts.first().map_or(0, |c| c.steps);
    let mut row = BookRow {
        book: name.to_owned(),
        options: contracts.len(),
        steps,
        strategy: strategy.name().to_owned(),
        precision,
        seconds: None,
        kernel_seconds: None,
        span_seconds: None,
        options_per_second: None,
        nodes_per_second: None,
        worst_error: None,
        verified: None,
        note: None,
        failed: false,
    };
    let settings = price_options(options, strategy, None, precision);
    let runs = match Outcome::of(repeat(options.repeat, || {
        timed(|| pool.install(|| price_book(contracts, &settings)))
    })) {
        Outcome::Ran(runs) => runs,
        other => {
            row.note = other.note();
            row.failed = other.failed();
            return row;
        }
    };
    let (seconds, best) = runs.best();
    let fastest = |key: fn(&BookRun) -> Option<f64>| {
        runs.outputs()
            .filter_map(|m| key(&m.output))
            .min_by(f64::total_cmp)
    };
    row.seconds = Some(seconds);
    row.kernel_seconds = fastest(|b| b.kernel_seconds);
    row.span_seconds = fastest(|b| b.span_seconds);
    let time = row.kernel_seconds.unwrap_or(seconds);
    row.options_per_second = Some(contracts.len() as f64 / time);
    row.nodes_per_second = Some(best.output.nodes as f64 / time);
    let worst = best
        .output
        .priced
        .iter()
        .zip(reference)
        .map(|(got, &want)| relative_error(got.price, want))
        .fold(0.0, f64::max);
    row.worst_error = Some(worst);
    row.verified = tolerance(strategy, precision, steps).map(|t| worst <= t);
    row
}
