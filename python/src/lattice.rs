//! `thicket.lookback`, `thicket.binomial` and `thicket.price_book`: binomial-lattice pricing.
//! Every sensitivity the library's `Priced` carries comes back under its own name.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
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

/// The names of an answer's values, the price first.
const NAMES: [&str; 6] = ["price", "delta", "gamma", "theta", "vega", "rho"];

/// Price and every sensitivity of `priced`, in the order of [`NAMES`]; NaN where the lattice
/// gives none (vega and rho of a bumped lattice that is invalid, or not asked for). Read
/// field by field: a book of a thousand options turned into JSON values first cost more than
/// the GPU's whole call.
fn sensitivities(priced: &Priced) -> [f64; 6] {
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
        observed_extreme: None,
        tree: Default::default(),
    };
    let options = options(precision, backend, true)?;
    let measured = solve(py, || thicket_lattice::price(&contract, &options))?;
    let dict = PyDict::new(py);
    for (name, value) in NAMES.iter().zip(sensitivities(&measured.output.priced)) {
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
                observed_extreme: None,
                tree: Default::default(),
            })
        })
        .collect::<PyResult<Vec<Contract>>>()?;
    let options = options(precision, backend, greeks)?;
    let measured = solve(py, || thicket_lattice::price_book(&contracts, &options))?;
    let rows: Vec<[f64; 6]> = measured.output.priced.iter().map(sensitivities).collect();
    let arrays = PyDict::new(py);
    for (at, name) in NAMES.iter().enumerate() {
        let column: Vec<f64> = rows.iter().map(|row| row[at]).collect();
        arrays.set_item(name, PyArray1::from_vec(py, column))?;
    }
    let info = PyDict::new(py);
    add_run_info(&info, &measured.info)?;
    Ok((arrays, info))
}
