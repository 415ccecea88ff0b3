//! `thicket.lookback`, `thicket.binomial` and `thicket.price_book`: binomial-lattice pricing.
//! Every sensitivity the library's `Priced` carries comes back under its own name.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt};
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

/// The payoffs in the order of their codes in [`price_book`] (`thicket.price_book` maps the
/// names to these codes).
const PAYOFFS: [&str; 4] = ["lookback-put", "lookback-call", "put", "call"];

/// The exercise styles in the order of their codes.
const STYLES: [&str; 2] = ["american", "european"];

/// A column of a book's numbers: one for every option, or a float64 array (one value per
/// option, or one for all).
pub enum Reals<'py> {
    /// A float64 array, borrowed.
    Each(PyReadonlyArray1<'py, f64>),
    /// One number.
    One(f64),
}

// Read by hand rather than derived: a derived enum formats an error message for every
// variant it tries and rejects, which cost more than the rest of a small book's call.
impl<'a, 'py> FromPyObject<'a, 'py> for Reals<'py> {
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Reals<'py>> {
        match object.cast::<PyFloat>() {
            Ok(number) => Ok(Reals::One(number.value())),
            Err(_) => Ok(Reals::Each(object.extract()?)),
        }
    }
}

/// A column of a book's whole numbers (its steps).
pub enum Counts<'py> {
    /// An integer array.
    Each(Ints<'py>),
    /// One count.
    One(u64),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Counts<'py> {
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Counts<'py>> {
        if object.is_instance_of::<PyInt>() {
            Ok(Counts::One(object.extract()?))
        } else {
            Ok(Counts::Each(object.extract()?))
        }
    }
}

/// A column read for `count` options: value `i` is the column's `i`th, or its only one.
struct Column<'a, T: Clone>(std::borrow::Cow<'a, [T]>);

impl<T: Copy> Column<'_, T> {
    /// The value of option `i`.
    fn at(&self, i: usize) -> T {
        self.0[if self.0.len() == 1 { 0 } else { i }]
    }
}

/// `values` as a column of a book of `count` options: one value, or `count` of them.
fn column<'a, T: Clone>(
    values: impl Into<std::borrow::Cow<'a, [T]>>,
    count: usize,
    what: &str,
) -> PyResult<Column<'a, T>> {
    let values = values.into();
    if values.len() != 1 && values.len() != count {
        return Err(invalid(format!(
            "{what} has {} values; a book of {count} options takes 1 or {count}",
            values.len()
        )));
    }
    Ok(Column(values))
}

impl Reals<'_> {
    /// The column for a book of `count` options.
    fn column(&self, count: usize, what: &str) -> PyResult<Column<'_, f64>> {
        match self {
            Reals::Each(array) => column(slice(array, what)?, count, what),
            Reals::One(value) => column(vec![*value], count, what),
        }
    }
}

/// The code of option `i`'s payoff or style: an index into `names`.
fn code<'n>(
    codes: &Column<'_, u8>,
    i: usize,
    count: usize,
    names: &[&'n str],
    what: &str,
) -> PyResult<&'n str> {
    let code = codes.at(i);
    names.get(usize::from(code)).copied().ok_or_else(|| {
        invalid(format!(
            "option {} of {count}: {what} code {code} is not one of 0..={} ({})",
            i + 1,
            names.len() - 1,
            names.join(", ")
        ))
    })
}

/// Prices a book of `count` options given as columns of one value or `count` values (the
/// package checks the broadcast and maps the payoff and style names to the codes of
/// [`PAYOFFS`] and [`STYLES`], as uint8): a dict of float64 arrays, `price` and, with
/// `greeks`, every sensitivity.
#[pyfunction]
#[pyo3(signature = (count, payoffs, styles, spot, strike, maturity, volatility, rate, dividend_yield, steps, greeks, precision, backend))]
#[allow(clippy::too_many_arguments)] // the book's columns, as Python passes them
pub fn price_book<'py>(
    py: Python<'py>,
    count: usize,
    payoffs: PyReadonlyArray1<'py, u8>,
    styles: PyReadonlyArray1<'py, u8>,
    spot: Reals<'py>,
    strike: Reals<'py>,
    maturity: Reals<'py>,
    volatility: Reals<'py>,
    rate: Reals<'py>,
    dividend_yield: Reals<'py>,
    steps: Counts<'py>,
    greeks: bool,
    precision: &str,
    backend: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let payoffs = column(slice(&payoffs, "payoff")?, count, "payoff")?;
    let styles = column(slice(&styles, "style")?, count, "style")?;
    let (spot, strike) = (spot.column(count, "spot")?, strike.column(count, "strike")?);
    let maturity = maturity.column(count, "maturity")?;
    let volatility = volatility.column(count, "volatility")?;
    let rate = rate.column(count, "rate")?;
    let dividend_yield = dividend_yield.column(count, "dividend_yield")?;
    let steps = match &steps {
        Counts::Each(ints) => ints.to_u64("steps", usize::MAX as u64)?,
        Counts::One(steps) => vec![*steps],
    };
    let steps = column(steps, count, "steps")?;
    let contracts = (0..count)
        .map(|i| {
            let named = |e: thicket_core::Error| {
                invalid(format!("option {} of {count}: {}", i + 1, e.message()))
            };
            let payoff_name = code(&payoffs, i, count, &PAYOFFS, "payoff")?;
            let style_name = code(&styles, i, count, &STYLES, "style")?;
            Ok(Contract {
                payoff: payoff(payoff_name, strike.at(i)).map_err(named)?,
                style: style(style_name).map_err(named)?,
                market: Market {
                    spot: spot.at(i),
                    maturity: maturity.at(i),
                    volatility: volatility.at(i),
                    rate: rate.at(i),
                    dividend_yield: dividend_yield.at(i),
                },
                steps: steps.at(i) as usize,
                observed_extreme: None,
                tree: Default::default(),
            })
        })
        .collect::<PyResult<Vec<Contract>>>()?;
    let options = options(precision, backend, greeks)?;
    let measured = solve(py, || thicket_lattice::price_book(&contracts, &options))?;
    let priced = &measured.output.priced;
    let arrays = PyDict::new(py);
    // Without `greeks` only the prices are asked for.
    let kept = if greeks { NAMES.len() } else { 1 };
    for (at, name) in NAMES.iter().enumerate().take(kept) {
        let values = PyArray1::from_iter(py, priced.iter().map(|p| sensitivities(p)[at]));
        arrays.set_item(name, values)?;
    }
    Ok(arrays)
}
