//! `thicket.lookback` and `thicket.binomial`: binomial-lattice pricing of one option (books
//! are in `book.rs`). Every sensitivity the library's `Priced` carries comes back under its
//! own name.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_lattice::{Contract, Market, Payoff, PriceOptions, Priced, Style};

use crate::devices::{add_run_info, run_options};
use crate::errors::{choice, to_py};
use crate::solve::solve;

/// The payoff named `name` (`lookback-put`, `lookback-call`, `put`, `call`); the strike is
/// ignored for lookbacks.
fn payoff(name: &str, strike: f64) -> thicket_core::Result<Payoff> {
    match name {
        "lookback-put" => Ok(Payoff::LookbackPut),
        "lookback-call" => Ok(Payoff::LookbackCall),
        "put" => Ok(Payoff::Put { strike }),
        "call" => Ok(Payoff::Call { strike }),
        other => Err(thicket_core::Error::InvalidInput(format!(
            "unknown payoff {other:?} (lookback-put, lookback-call, put, call)"
        ))),
    }
}

/// The exercise style named `name` (`american`, `european`).
fn style(name: &str) -> thicket_core::Result<Style> {
    match name {
        "american" => Ok(Style::American),
        "european" => Ok(Style::European),
        other => Err(thicket_core::Error::InvalidInput(format!(
            "unknown style {other:?} (american, european)"
        ))),
    }
}

/// The names of an answer's values, the price first.
pub(crate) const NAMES: [&str; 6] = ["price", "delta", "gamma", "theta", "vega", "rho"];

/// Price and every sensitivity of `priced`, in the order of [`NAMES`]; NaN where the lattice
/// gives none (vega and rho of a bumped lattice that is invalid, or not asked for). Read
/// field by field: a book of a thousand options turned into JSON values first cost more than
/// the GPU's whole call.
pub(crate) fn sensitivities(priced: &Priced) -> [f64; 6] {
    [
        priced.price,
        priced.delta,
        priced.gamma,
        priced.theta,
        priced.vega.unwrap_or(f64::NAN),
        priced.rho.unwrap_or(f64::NAN),
    ]
}

/// Pricing options from the Python keywords; `vega_rho` re-prices bumped lattices for vega
/// and rho (four more lattices an option).
pub(crate) fn options(precision: &str, backend: &str, vega_rho: bool) -> PyResult<PriceOptions> {
    Ok(PriceOptions {
        run: run_options(backend)?,
        precision: choice(precision)?,
        vega_rho,
        ..PriceOptions::default()
    })
}

/// Prices one option on an N-step Cox–Ross–Rubinstein lattice: a dict of `price` and its
/// sensitivities (`delta`, `gamma`, `theta`, and with `vega_rho` `vega` and `rho`, else NaN)
/// with `seconds` and `backend`.
#[pyfunction]
#[pyo3(signature = (payoff_name, style_name, spot, strike, maturity, volatility, rate, dividend_yield, steps, vega_rho, precision, backend))]
#[allow(clippy::too_many_arguments)] // the option's terms, as Python passes them
pub fn price_one<'py>(
    py: Python<'py>,
    payoff_name: &str,
    style_name: &str,
    spot: f64,
    strike: f64,
    maturity: f64,
    volatility: f64,
    rate: f64,
    dividend_yield: f64,
    steps: usize,
    vega_rho: bool,
    precision: &str,
    backend: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let contract = Contract {
        payoff: payoff(payoff_name, strike).map_err(to_py)?,
        style: style(style_name).map_err(to_py)?,
        market: Market {
            spot,
            maturity,
            volatility,
            rate,
            dividend_yield,
        },
        steps,
        observed_extreme: None,
        tree: Default::default(),
    };
    let options = options(precision, backend, vega_rho)?;
    let measured = solve(py, || thicket_lattice::price(&contract, &options))?;
    let dict = PyDict::new(py);
    for (name, value) in NAMES.iter().zip(sensitivities(&measured.output.priced)) {
        dict.set_item(name, value)?;
    }
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}
