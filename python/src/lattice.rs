//! `thicket.lookback`, `thicket.binomial` and `thicket.price_book`: binomial-lattice pricing.
//! Every sensitivity the library's `Priced` carries comes back under its own name, so a Greek
//! the library adds reaches Python with no change here.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use thicket_lattice::{Contract, Market, Payoff, PriceOptions, Priced, Style};

use crate::arrays::{slice, Ints};
use crate::devices::{add_run_info, run_options};
use crate::errors::{choice, invalid, to_py};
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

/// Price and every sensitivity of `priced`, by name, the price first.
fn sensitivities(priced: &Priced) -> Vec<(String, f64)> {
    let mut named: Vec<(String, f64)> = match serde_json::to_value(priced) {
        Ok(Value::Object(map)) => map
            .into_iter()
            .map(|(name, value)| (name, value.as_f64().unwrap_or(f64::NAN)))
            .collect(),
        _ => Vec::new(),
    };
    named.sort_by_key(|(name, _)| name != "price");
    named
}

/// Pricing options from the Python keywords; `vega_rho` re-prices bumped lattices for vega
/// and rho (four more lattices an option).
fn options(precision: &str, backend: &str, vega_rho: bool) -> PyResult<PriceOptions> {
    Ok(PriceOptions {
        run: run_options(backend)?,
        precision: choice(precision)?,
        vega_rho,
        ..PriceOptions::default()
    })
}

/// Prices one option on an N-step Cox–Ross–Rubinstein lattice: a dict of `price` and its
/// sensitivities (`delta`, `gamma`, `theta`, `vega`, `rho`) with `seconds` and `backend`.
#[pyfunction]
#[pyo3(signature = (payoff_name, style_name, spot, strike, maturity, volatility, rate, dividend_yield, steps, precision, backend))]
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
    };
    let options = options(precision, backend, true)?;
    let measured = solve(py, || thicket_lattice::price(&contract, &options))?;
    let dict = PyDict::new(py);
    for (name, value) in sensitivities(&measured.output.priced) {
        dict.set_item(name, value)?;
    }
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}

/// Prices a book of options given as equal-length arrays (the package broadcasts them):
/// a dict of arrays, `price` and every sensitivity, and a dict of the run's `seconds`,
/// `backend` and `notes`.
#[pyfunction]
#[pyo3(signature = (payoffs, styles, spot, strike, maturity, volatility, rate, dividend_yield, steps, greeks, precision, backend))]
#[allow(clippy::too_many_arguments)] // the book's columns, as Python passes them
pub fn price_book<'py>(
    py: Python<'py>,
    payoffs: Vec<String>,
    styles: Vec<String>,
    spot: PyReadonlyArray1<'py, f64>,
    strike: PyReadonlyArray1<'py, f64>,
    maturity: PyReadonlyArray1<'py, f64>,
    volatility: PyReadonlyArray1<'py, f64>,
    rate: PyReadonlyArray1<'py, f64>,
    dividend_yield: PyReadonlyArray1<'py, f64>,
    steps: Ints<'py>,
    greeks: bool,
    precision: &str,
    backend: &str,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let (spot, strike) = (slice(&spot, "spot")?, slice(&strike, "strike")?);
    let (maturity, volatility) = (
        slice(&maturity, "maturity")?,
        slice(&volatility, "volatility")?,
    );
    let rate = slice(&rate, "rate")?;
    let dividend_yield = slice(&dividend_yield, "dividend_yield")?;
    let steps = steps.to_u64("steps", usize::MAX as u64)?;
    let count = steps.len();
    let columns = [
        payoffs.len(),
        styles.len(),
        spot.len(),
        strike.len(),
        maturity.len(),
        volatility.len(),
        rate.len(),
        dividend_yield.len(),
    ];
    if columns.iter().any(|&len| len != count) {
        return Err(invalid(format!(
            "the book's columns differ in length ({columns:?} and {count} steps)"
        )));
    }
    let contracts = (0..count)
        .map(|i| {
            let named = |e: thicket_core::Error| {
                invalid(format!("option {} of {count}: {}", i + 1, e.message()))
            };
            Ok(Contract {
                payoff: payoff(&payoffs[i], strike[i]).map_err(named)?,
                style: style(&styles[i]).map_err(named)?,
                market: Market {
                    spot: spot[i],
                    maturity: maturity[i],
                    volatility: volatility[i],
                    rate: rate[i],
                    dividend_yield: dividend_yield[i],
                },
                steps: steps[i] as usize,
            })
        })
        .collect::<PyResult<Vec<Contract>>>()?;
    let options = options(precision, backend, greeks)?;
    let measured = solve(py, || thicket_lattice::price_book(&contracts, &options))?;
    let rows: Vec<Vec<(String, f64)>> = measured.output.priced.iter().map(sensitivities).collect();
    let arrays = PyDict::new(py);
    arrays.set_item("price", PyArray1::<f64>::zeros(py, 0, false))?;
    for (at, (name, _)) in rows.first().into_iter().flatten().enumerate() {
        let column: Vec<f64> = rows.iter().map(|row| row[at].1).collect();
        arrays.set_item(name, PyArray1::from_vec(py, column))?;
    }
    let info = PyDict::new(py);
    add_run_info(&info, &measured.info)?;
    Ok((arrays, info))
}
