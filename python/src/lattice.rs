//! `thicket.lookback`, `thicket.binomial` and `thicket.implied_volatility`: binomial-lattice
//! pricing of one option (books are in `book.rs`) and the volatility a quoted price implies.
//! Every sensitivity the library's `Priced` carries comes back under its own name.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_core::number;
use thicket_lattice::{Contract, Market, Payoff, PriceOptions, Priced, Style};

use crate::devices::{add_run_info, run_options};
use crate::errors::{choice, invalid, to_py};
use crate::solve::solve;

/// The payoff named `name` (`lookback-put`, `lookback-call`, `put`, `call`), its strike given
/// for the vanillas only: as `thicket implied-vol --strike`, a missing strike of a put or
/// call and a strike given to a lookback (whose strike floats) are refused, each naming it.
fn payoff(name: &str, strike: Option<f64>) -> PyResult<Payoff> {
    let strike_of =
        |payoff: &str| strike.ok_or_else(|| invalid(format!("strike is required for a {payoff}")));
    let floating = |payoff: Payoff| match strike {
        Some(k) => Err(invalid(format!(
            "strike {} given for a {}, whose strike floats",
            number(k),
            payoff.name()
        ))),
        None => Ok(payoff),
    };
    match name {
        "lookback-put" => floating(Payoff::LookbackPut),
        "lookback-call" => floating(Payoff::LookbackCall),
        "put" => Ok(Payoff::Put {
            strike: strike_of(name)?,
        }),
        "call" => Ok(Payoff::Call {
            strike: strike_of(name)?,
        }),
        other => Err(invalid(format!(
            "unknown payoff {other:?} (lookback-put, lookback-call, put, call)"
        ))),
    }
}

/// The running extreme a seasoned lookback has observed, from the keywords `observed_max`
/// (a lookback put's) and `observed_min` (a lookback call's); `None` (the spot) where neither
/// is given. The keyword of the other option, or either for a vanilla, is refused naming it,
/// as `thicket implied-vol --observed-max/--observed-min` are; whether the extreme lies on
/// the right side of the spot is the library's check.
fn observed_extreme(
    payoff: Payoff,
    observed_max: Option<f64>,
    observed_min: Option<f64>,
) -> PyResult<Option<f64>> {
    let max = observed_max.map(|v| ("observed_max", v));
    let min = observed_min.map(|v| ("observed_min", v));
    let misfit = match payoff {
        Payoff::LookbackPut => min,
        Payoff::LookbackCall => max,
        Payoff::Put { .. } | Payoff::Call { .. } => max.or(min),
    };
    match misfit {
        Some((keyword, value)) => Err(invalid(format!(
            "{keyword} {} does not fit a {}: observed_max is a lookback-put's, observed_min a \
             lookback-call's",
            number(value),
            payoff.name()
        ))),
        None => Ok(observed_max.or(observed_min)),
    }
}

/// One option from the Python keywords: the payoff and its strike ([`payoff`]), the style,
/// the market, the steps, the tree (`crr`, `jarrow-rudd`, `tian`, `leisen-reimer`) and a
/// seasoned lookback's observed extreme ([`observed_extreme`]). The values themselves are
/// checked where the library prices or searches, in the CLI's words.
#[allow(clippy::too_many_arguments)] // the option's terms, as Python passes them
fn contract(
    payoff_name: &str,
    style_name: &str,
    market: Market,
    strike: Option<f64>,
    steps: usize,
    tree: &str,
    observed_max: Option<f64>,
    observed_min: Option<f64>,
) -> PyResult<Contract> {
    let payoff = payoff(payoff_name, strike)?;
    Ok(Contract {
        payoff,
        style: style(style_name).map_err(to_py)?,
        market,
        steps,
        observed_extreme: observed_extreme(payoff, observed_max, observed_min)?,
        tree: choice(tree)?,
    })
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

/// Prices one option on an N-step lattice of `tree`: a dict of `price` and its sensitivities
/// (`delta`, `gamma`, `theta`, and with `vega_rho` `vega` and `rho`, else NaN), `tree`,
/// `observed_extreme` (as the CLI's JSON: a lookback's running extreme, the spot where none
/// was given; None for a vanilla), `seconds` and `backend`. `strike` is a vanilla's (None for a lookback); `observed_max`/`observed_min`
/// a seasoned lookback put's/call's running extreme.
#[pyfunction]
#[pyo3(signature = (payoff_name, style_name, spot, strike, maturity, volatility, rate, dividend_yield, steps, tree, observed_max, observed_min, vega_rho, precision, backend))]
#[allow(clippy::too_many_arguments)] // the option's terms, as Python passes them
pub fn price_one<'py>(
    py: Python<'py>,
    payoff_name: &str,
    style_name: &str,
    spot: f64,
    strike: Option<f64>,
    maturity: f64,
    volatility: f64,
    rate: f64,
    dividend_yield: f64,
    steps: usize,
    tree: &str,
    observed_max: Option<f64>,
    observed_min: Option<f64>,
    vega_rho: bool,
    precision: &str,
    backend: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let market = Market {
        spot,
        maturity,
        volatility,
        rate,
        dividend_yield,
    };
    let contract = contract(
        payoff_name,
        style_name,
        market,
        strike,
        steps,
        tree,
        observed_max,
        observed_min,
    )?;
    let options = options(precision, backend, vega_rho)?;
    let measured = solve(py, || thicket_lattice::price(&contract, &options))?;
    let dict = PyDict::new(py);
    for (name, value) in NAMES.iter().zip(sensitivities(&measured.output.priced)) {
        dict.set_item(name, value)?;
    }
    let priced = &measured.output.contract;
    dict.set_item("tree", priced.tree.name())?;
    let lookback = priced.payoff.strike().is_none();
    let extreme = lookback.then(|| priced.observed_extreme.unwrap_or(priced.market.spot));
    dict.set_item("observed_extreme", extreme)?;
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}

/// The volatility at which the option's f64 lattice (one thread) prices at `price`, by the
/// library's search (`thicket_lattice::implied_volatility`, as `thicket implied-vol`): a
/// price the lattice cannot give (past a no-arbitrage bound, below the intrinsic value, above
/// the highest volatility's price) is a `ValueError` in the CLI's words.
#[pyfunction]
#[pyo3(signature = (payoff_name, style_name, price, spot, strike, maturity, rate, dividend_yield, steps, tree, observed_max, observed_min))]
#[allow(clippy::too_many_arguments)] // the option's terms, as Python passes them
pub fn implied_volatility(
    py: Python<'_>,
    payoff_name: &str,
    style_name: &str,
    price: f64,
    spot: f64,
    strike: Option<f64>,
    maturity: f64,
    rate: f64,
    dividend_yield: f64,
    steps: usize,
    tree: &str,
    observed_max: Option<f64>,
    observed_min: Option<f64>,
) -> PyResult<f64> {
    let market = Market {
        spot,
        maturity,
        // Ignored: the search checks the other values at a volatility of its own, so that a
        // bad one names itself, and then searches the valid volatilities.
        volatility: 0.2,
        rate,
        dividend_yield,
    };
    let contract = contract(
        payoff_name,
        style_name,
        market,
        strike,
        steps,
        tree,
        observed_max,
        observed_min,
    )?;
    solve(py, || thicket_lattice::implied_volatility(&contract, price))
}
