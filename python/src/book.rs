//! `thicket.price_book`: a book of options from columns, each a scalar or a 1-D array
//! broadcast numpy-style, read where they are.
//!
//! What a call costs beyond the same work in Rust is paid here, once per call and once per
//! option, so both are kept to what a Rust caller pays: scalars and names are read once
//! (a payoff name is matched once, not once per option), float64 and uint8 arrays are
//! borrowed, the contracts are built straight from the columns, and the prices are written
//! into the numpy array that is returned. Anything else (lists, other dtypes, Fortran order)
//! goes once through the package's `_book_column`, which converts it.

use numpy::{Element, PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use thicket_lattice::{Contract, Market, Payoff, Priced, Style};

use crate::errors::invalid;
use crate::lattice::{options, sensitivities, NAMES};
use crate::solve::{solve_anytime, Answer};

/// The payoffs in the order of their codes.
const PAYOFFS: [&str; 4] = ["lookback-put", "lookback-call", "put", "call"];

/// The exercise styles in the order of their codes.
const STYLES: [&str; 2] = ["american", "european"];

/// One column of a book: one value for every option, or an array of one or `count`.
enum Column<'py, T: Element> {
    /// A scalar (or a name, as its code).
    One(T),
    /// A C-contiguous, aligned 1-D array, borrowed.
    Each(PyReadonlyArray1<'py, T>),
}

impl<'py, T: Element + Copy> Column<'py, T> {
    /// The array's length, `None` for a scalar.
    fn len(&self) -> Option<usize> {
        match self {
            Column::One(_) => None,
            Column::Each(array) => Some(array.len()),
        }
    }

    /// The column's values as option `i` reads them: `values[i * stride]`, the stride 0 for
    /// one value (a scalar or a one-element array), 1 for `count`.
    fn values(&self) -> (&[T], usize) {
        match self {
            Column::One(value) => (std::slice::from_ref(value), 0),
            Column::Each(array) => {
                // Only C-contiguous arrays are kept (`borrowed`).
                let values = array.as_slice().unwrap_or(&[]);
                (values, usize::from(values.len() != 1))
            }
        }
    }
}

/// `value` borrowed as a 1-D array of `T`, where it is one that can be read in place
/// (C-contiguous and aligned).
fn borrowed<'py, T: Element>(value: &Bound<'py, PyAny>) -> Option<PyReadonlyArray1<'py, T>> {
    let array = value.cast::<PyArray1<T>>().ok()?;
    if !array.is_c_contiguous() || !array.is_aligned() {
        return None;
    }
    array.try_readonly().ok()
}

/// Whether `value` is a Python int (not a bool, which the package reads as an array).
fn is_int(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>()
}

/// Reads one column of a book, converting it once through the package's `convert`
/// (`_book_column(value, name)`) where it cannot be read where it is.
struct Reader<'a, 'py> {
    convert: &'a Bound<'py, PyAny>,
}

impl<'py> Reader<'_, 'py> {
    /// `value` as an array of `T` after the package's conversion.
    fn converted<T: Element>(
        &self,
        value: &Bound<'py, PyAny>,
        name: &str,
    ) -> PyResult<Column<'py, T>> {
        let array = self.convert.call1((value, name))?;
        borrowed(&array).map(Column::Each).ok_or_else(|| {
            invalid(format!(
                "{name} could not be converted to a {} array",
                std::any::type_name::<T>()
            ))
        })
    }

    /// A number column: a float or an int once, or float64 values.
    fn reals(&self, value: &Bound<'py, PyAny>, name: &str) -> PyResult<Column<'py, f64>> {
        if let Ok(number) = value.cast::<PyFloat>() {
            return Ok(Column::One(number.value()));
        }
        if is_int(value) {
            return Ok(Column::One(value.extract()?));
        }
        match borrowed(value) {
            Some(array) => Ok(Column::Each(array)),
            None => self.converted(value, name),
        }
    }

    /// A payoff or style column as codes into `names`: a name (looked up once here) or
    /// uint8 codes (checked as the contracts are built).
    fn codes(
        &self,
        value: &Bound<'py, PyAny>,
        name: &str,
        names: &[&str],
    ) -> PyResult<Column<'py, u8>> {
        if let Ok(text) = value.cast::<PyString>() {
            let text = text.to_cow()?;
            return match names.iter().position(|known| *known == text) {
                Some(code) => Ok(Column::One(code as u8)),
                None => Err(invalid(format!(
                    "unknown {name} {} ({})",
                    value.repr()?,
                    names.join(", ")
                ))),
            };
        }
        match borrowed(value) {
            Some(array) => Ok(Column::Each(array)),
            None => self.converted(value, name),
        }
    }

    /// The steps column: an int once, or int64 values (checked as the contracts are built).
    fn steps(&self, value: &Bound<'py, PyAny>) -> PyResult<Column<'py, i64>> {
        if is_int(value) {
            return match value.extract::<i64>() {
                Ok(steps) if steps >= 0 => Ok(Column::One(steps)),
                Ok(_) => Err(invalid(format!("steps is {value}; it must be at least 0"))),
                Err(_) => Err(invalid(format!("steps is {value}; it must be below 2^63"))),
            };
        }
        match borrowed(value) {
            Some(array) => Ok(Column::Each(array)),
            None => self.converted(value, "steps"),
        }
    }
}

/// The payoff of `code` (an index into [`PAYOFFS`], checked) with `strike`.
fn payoff(code: u8, strike: f64) -> Payoff {
    match code {
        0 => Payoff::LookbackPut,
        1 => Payoff::LookbackCall,
        2 => Payoff::Put { strike },
        _ => Payoff::Call { strike },
    }
}

/// The style of `code` (an index into [`STYLES`], checked).
fn style(code: u8) -> Style {
    match code {
        0 => Style::American,
        _ => Style::European,
    }
}

/// Checks a column of codes into `names` before the contracts are built (so that building
/// them has no error to take): `invalid input: payoff codes must be 0..=3 (...); option 2 of
/// 4 has 7`.
fn check_codes(codes: &[u8], what: &str, names: &[&str], count: usize) -> PyResult<()> {
    match codes
        .iter()
        .position(|&code| usize::from(code) >= names.len())
    {
        None => Ok(()),
        Some(i) => Err(invalid(format!(
            "{what} codes must be 0..={} ({}); option {} of {count} has {}",
            names.len() - 1,
            names.join(", "),
            i + 1,
            codes[i]
        ))),
    }
}

/// Prices a book of options given as columns (each a scalar, a name, or a 1-D array of one
/// value or one per option; `convert` is the package's `_book_column`, for columns that are
/// not read where they are): the float64 prices, or with `greeks` a dict of float64 arrays,
/// `price` and every sensitivity. A book stopped by Ctrl-C raises `Interrupted` with the
/// options priced so far (NaN for the rest) and which were.
#[pyfunction]
#[pyo3(signature = (payoff, style, spot, strike, maturity, volatility, rate, dividend_yield, steps, greeks, precision, backend, convert))]
#[allow(clippy::too_many_arguments)] // the book's columns, as Python passes them
pub fn price_book<'py>(
    py: Python<'py>,
    payoff: &Bound<'py, PyAny>,
    style: &Bound<'py, PyAny>,
    spot: &Bound<'py, PyAny>,
    strike: &Bound<'py, PyAny>,
    maturity: &Bound<'py, PyAny>,
    volatility: &Bound<'py, PyAny>,
    rate: &Bound<'py, PyAny>,
    dividend_yield: &Bound<'py, PyAny>,
    steps: &Bound<'py, PyAny>,
    greeks: bool,
    precision: &str,
    backend: &str,
    convert: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let read = Reader { convert };
    let payoffs = read.codes(payoff, "payoff", &PAYOFFS)?;
    let styles = read.codes(style, "style", &STYLES)?;
    let reals = [
        (read.reals(spot, "spot")?, "spot"),
        (read.reals(strike, "strike")?, "strike"),
        (read.reals(maturity, "maturity")?, "maturity"),
        (read.reals(volatility, "volatility")?, "volatility"),
        (read.reals(rate, "rate")?, "rate"),
        (
            read.reals(dividend_yield, "dividend_yield")?,
            "dividend_yield",
        ),
    ];
    let steps = read.steps(steps)?;
    let lengths: Vec<(&str, usize)> = [("payoff", payoffs.len()), ("style", styles.len())]
        .into_iter()
        .chain(reals.iter().map(|(column, name)| (*name, column.len())))
        .chain([("steps", steps.len())])
        .filter_map(|(name, len)| Some((name, len?)).filter(|&(_, len)| len != 1))
        .collect();
    let count = lengths.iter().map(|&(_, len)| len).max().unwrap_or(1);
    if lengths.iter().any(|&(_, len)| len != count) {
        let listed: Vec<String> = lengths
            .iter()
            .map(|(name, len)| format!("'{name}': {len}"))
            .collect();
        return Err(invalid(format!(
            "the book's arguments do not broadcast (lengths {{{}}})",
            listed.join(", ")
        )));
    }
    let contracts = contracts(count, &payoffs, &styles, &reals, &steps)?;
    let options = options(precision, backend, greeks)?;
    let work = || thicket_lattice::price_book(&contracts, &options);
    solve_anytime(py, work, |measured| {
        // A book stopped by Ctrl-C has priced its first options: the rest are NaN.
        let priced = &measured.output.priced;
        let value = if greeks {
            let arrays = PyDict::new(py);
            for (at, name) in NAMES.iter().enumerate() {
                arrays.set_item(name, filled(py, priced, count, at)?)?;
            }
            arrays.into_any()
        } else {
            filled(py, priced, count, 0)?.into_any()
        };
        let finished: Vec<bool> = (0..count).map(|i| i < priced.len()).collect();
        Ok(Answer {
            value,
            finished: Some(PyArray1::from_vec(py, finished).into_any()),
        })
    })
}

/// The `count` contracts of the columns (spot, strike, maturity, volatility, rate and
/// dividend yield in `reals`), each read at its stride; a payoff or style code that names
/// none, or negative steps, is a `ValueError` naming the option.
fn contracts(
    count: usize,
    payoffs: &Column<'_, u8>,
    styles: &Column<'_, u8>,
    reals: &[(Column<'_, f64>, &str); 6],
    steps: &Column<'_, i64>,
) -> PyResult<Vec<Contract>> {
    let (payoffs, payoff_stride) = payoffs.values();
    let (styles, style_stride) = styles.values();
    let [spot, strike, maturity, volatility, rate, dividend_yield] =
        reals.each_ref().map(|(column, _)| column.values());
    let (steps, steps_stride) = steps.values();
    check_codes(payoffs, "payoff", &PAYOFFS, count)?;
    check_codes(styles, "style", &STYLES, count)?;
    if let Some(i) = steps.iter().position(|&steps| steps < 0) {
        return Err(invalid(format!(
            "steps[{i}] is {}; it must be at least 0",
            steps[i]
        )));
    }
    let at = |(values, stride): (&[f64], usize), i: usize| values[i * stride];
    // Every column checked above, the contracts are collected as a Rust caller's are, from
    // an iterator of known length into one allocation (through `Result`, the vector grew by
    // doubling, a copy of the book at every step).
    Ok((0..count)
        .map(|i| Contract {
            payoff: payoff(payoffs[i * payoff_stride], at(strike, i)),
            style: style(styles[i * style_stride]),
            market: Market {
                spot: at(spot, i),
                maturity: at(maturity, i),
                volatility: at(volatility, i),
                rate: at(rate, i),
                dividend_yield: at(dividend_yield, i),
            },
            steps: steps[i * steps_stride] as usize,
            observed_extreme: None,
            tree: Default::default(),
        })
        .collect())
}

/// A new float64 array of sensitivity `at` ([`NAMES`]) of the `count` options of a book whose
/// first ones are `priced` (all of them unless the book was stopped), written in place: NaN
/// for the options not priced.
fn filled<'py>(
    py: Python<'py>,
    priced: &[Priced],
    count: usize,
    at: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    // SAFETY: every element is written below before the array is handed to Python.
    let array = unsafe { PyArray1::<f64>::new(py, count, false) };
    {
        // SAFETY: the array is new, C-contiguous and not shared with any other code yet.
        let values = unsafe { array.as_slice_mut() }
            .map_err(|_| invalid("the answer array is not contiguous".into()))?;
        let (done, rest) = values.split_at_mut(priced.len().min(count));
        for (value, priced) in done.iter_mut().zip(priced) {
            *value = sensitivities(priced)[at];
        }
        rest.fill(f64::NAN);
    }
    Ok(array)
}
