//! What the tests of the CPU lattices share: contracts from four numbers, the reference
//! tables in `data/`, and a relative comparison.

use crate::contract::{Contract, Market, Payoff, Style};
use crate::cpu::serial::price_serial;
use crate::scheme::{Precision, Priced};

/// An option on the market (spot, maturity, volatility, rate) `m`.
pub(crate) fn lookback(payoff: Payoff, style: Style, m: [f64; 4], steps: usize) -> Contract {
    Contract {
        payoff,
        style,
        market: Market {
            spot: m[0],
            maturity: m[1],
            volatility: m[2],
            rate: m[3],
            dividend_yield: 0.0,
        },
        steps,
        observed_extreme: None,
        tree: Default::default(),
    }
}

/// The f64 serial lattice's price.
pub(crate) fn price(contract: &Contract) -> f64 {
    serial_of(contract, Precision::F64).price
}

/// The serial lattice's answer for a contract the test knows is valid.
pub(crate) fn serial_of(contract: &Contract, precision: Precision) -> Priced {
    price_serial(&contract.checked().unwrap(), precision)
}

/// The f64 serial lattice's answers for a book the test knows is valid.
pub(crate) fn serial_all(contracts: &[Contract]) -> Vec<Priced> {
    contracts
        .iter()
        .map(|c| serial_of(c, Precision::F64))
        .collect()
}

/// Whether `got` is within `relative` of `want`.
pub(crate) fn close(got: f64, want: f64, relative: f64) -> bool {
    (got - want).abs() <= relative * want.abs()
}

/// The rows of a reference CSV as (column name → field) maps.
pub(crate) fn rows(text: &str) -> Vec<Vec<(String, String)>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|line| {
            header
                .iter()
                .cloned()
                .zip(line.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// A row's field as a number.
pub(crate) fn get(row: &[(String, String)], column: &str) -> f64 {
    row.iter()
        .find(|(c, _)| c == column)
        .unwrap()
        .1
        .parse()
        .unwrap()
}

/// The four payoffs, vanilla ones struck at 52.
pub(crate) fn payoffs() -> [Payoff; 4] {
    [
        Payoff::LookbackPut,
        Payoff::LookbackCall,
        Payoff::Call { strike: 52.0 },
        Payoff::Put { strike: 52.0 },
    ]
}

/// The reference prices up to 100,000 steps.
pub(crate) const REFERENCE: &str = include_str!("../data/lookback-reference.csv");

/// The reference prices of small N.
pub(crate) const SMALL_N: &str = include_str!("../data/lookback-small-n.csv");
