//! Implied volatility: the volatility at which an option's lattice price (f64, one thread)
//! equals a quoted price, by Brent's method (inverse quadratic interpolation and secant steps
//! safeguarded by bisection) on a bracket of volatilities whose prices straddle the quote.

use rayon::prelude::*;
use thicket_core::{number, Error, Progress, Result, StopFlag};

use crate::book_csv::Book;
use crate::contract::{Contract, Payoff, Style};
use crate::cpu::serial::price_serial;
use crate::scheme::Precision;
use crate::trees::Tree;

/// The highest volatility searched: 1,000% a year.
pub const MAX_IMPLIED_VOLATILITY: f64 = 10.0;

/// How close in volatility the answer is: the bracket is narrowed to this width.
const VOLATILITY_TOLERANCE: f64 = 1e-12;

/// The volatility at which `contract`'s lattice price (its own volatility ignored) is `price`,
/// to 1e-10 or better where the price is attainable.
///
/// Refused first, each as [`Error::InvalidInput`] in one line: a contract that is invalid
/// at any volatility (a bad spot, strike, steps, ...), a price that is negative or not
/// finite, and a price at or below the option's lower no-arbitrage bound (0, its exercise
/// today for an American, the forward part of its payoff) or at or above its upper one
/// (the stock for a call, the strike for a put; the lookback put has none), which no
/// volatility gives, naming the bound and its formula.
///
/// The search runs over the volatilities whose lattice is valid ([`Contract::validate`]:
/// u > 1 > d > 0 and 0 <= p <= 1 on every tree): from the lowest (σ just above
/// |r − q|·sqrt(dt) on CRR; on another tree the edge found by doubling from 1e-6 and
/// bisecting back; for a seasoned lookback high enough that its extreme lies within 64·N
/// states of the spot) to the highest up to [`MAX_IMPLIED_VOLATILITY`] (on another tree,
/// halved further until its price is above the quote: Tian's and Jarrow–Rudd's trees lose
/// their value at extreme σ·sqrt(dt)); the lattice price increases with the volatility
/// there. A price below the lowest volatility's (for an option in the money, about its
/// intrinsic value) or above the highest's is refused naming that price. A tree whose valid
/// volatilities are not one interval (Tian's and Leisen–Reimer's can have gaps at extreme
/// parameters) is bisected past a gap the search lands in; a gap it cannot step past is
/// refused naming the volatility and why its lattice is invalid.
///
/// A search its caller stops ([`thicket_core::stoppable`]) ends at its next lattice as
/// [`Error::Interrupted`].
pub fn implied_volatility(contract: &Contract, price: f64) -> Result<f64> {
    search(contract, price, Progress::hidden().stop_flag().as_ref())
}

/// [`Error::Interrupted`] where `stop` was raised.
fn check_stop(stop: Option<&StopFlag>) -> Result<()> {
    match stop {
        Some(flag) if flag.is_raised() => Err(Error::Interrupted(
            "the search was stopped by its caller".into(),
        )),
        _ => Ok(()),
    }
}

/// [`implied_volatility`], checking `stop` before each lattice it prices.
fn search(contract: &Contract, price: f64, stop: Option<&StopFlag>) -> Result<f64> {
    // The contract's own volatility is ignored: its other values are checked at one that
    // is valid, so that a bad one names itself before any search.
    with_volatility(contract, 1.0).check_inputs()?;
    if !(price.is_finite() && price >= 0.0) {
        return Err(Error::InvalidInput(format!(
            "price is {}; it must be a finite number >= 0",
            number(price)
        )));
    }
    check_bounds(contract, price)?;
    let at = |volatility: f64| -> Result<f64> {
        check_stop(stop)?;
        let option = with_volatility(contract, volatility).checked()?;
        let priced = price_serial(&option, Precision::F64).price;
        // A stop during the lattice may have cut it short: its price is not one.
        check_stop(stop)?;
        Ok(priced - price)
    };
    let valid = |volatility: f64| with_volatility(contract, volatility).validate().is_ok();
    let m = &contract.market;
    let dt = m.maturity / contract.steps as f64;
    // On CRR just above the volatility where u = exp((r − q)·dt) and p leaves [0, 1]; the
    // drifted trees' edges lie elsewhere (Jarrow–Rudd's below CRR's), found from 1e-6 up.
    let floor = match contract.tree {
        Tree::Crr => (m.rate - m.dividend_yield).abs() * dt.sqrt() * (1.0 + 1e-9),
        _ => 0.0,
    }
    .max(1e-6);
    // A seasoned lookback's extreme lies ln(extreme/S)/(σ·sqrt(dt)) states away: at most 64·N
    // of them, so that the lattice's memory stays within 65 times a fresh one's.
    let far = contract.observed_extreme.map_or(0.0, |extreme| {
        (extreme / m.spot).ln().abs() / (64.0 * contract.steps as f64 * dt.sqrt())
    });
    let (mut a, mut b) = valid_range(contract, floor.max(far), &valid)?;
    let (mut fa, mut fb) = (at(a)?, at(b)?);
    // Tian's and Jarrow–Rudd's trees turn back at extreme σ·sqrt(dt) (their price falls to
    // nothing as σ grows on): the top comes down by halves until its price is above the quote,
    // past any volatility whose lattice is invalid.
    let mut top = b;
    while contract.tree != Tree::Crr && fb < 0.0 && top > 2.0 * a {
        top *= 0.5;
        if valid(top) {
            (b, fb) = (top, at(top)?);
        }
    }
    if fa > 0.0 {
        return Err(Error::InvalidInput(format!(
            "price {} is below the lowest price the lattice gives, {} at volatility {} (the \
             intrinsic value or the price of no uncertainty)",
            number(price),
            number(fa + price),
            number(a)
        )));
    }
    if fb < 0.0 {
        return Err(Error::InvalidInput(format!(
            "price {} is above the highest price the lattice gives, {} at volatility {} (the \
             bound no volatility reaches)",
            number(price),
            number(fb + price),
            number(b)
        )));
    }
    if fa == 0.0 {
        return Ok(a);
    }
    // Brent's method: b is the best estimate, a the previous one, c the bracket's other end.
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut e = d;
    for _ in 0..200 {
        if fb.signum() == fc.signum() {
            (c, fc) = (a, fa);
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            (a, fa) = (b, fb);
            (b, fb) = (c, fc);
            (c, fc) = (a, fa);
        }
        let tolerance = 2.0 * f64::EPSILON * b.abs() + 0.5 * VOLATILITY_TOLERANCE;
        let half = 0.5 * (c - b);
        if half.abs() <= tolerance || fb == 0.0 {
            return Ok(b);
        }
        if e.abs() >= tolerance && fa.abs() > fb.abs() {
            let s = fb / fa;
            let (mut p, mut q) = if a == c {
                (2.0 * half * s, 1.0 - s)
            } else {
                let (q, r) = (fa / fc, fb / fc);
                (
                    s * (2.0 * half * q * (q - r) - (b - a) * (r - 1.0)),
                    (q - 1.0) * (r - 1.0) * (s - 1.0),
                )
            };
            if p > 0.0 {
                q = -q;
            } else {
                p = -p;
            }
            if 2.0 * p < (3.0 * half * q - (tolerance * q).abs()).min((e * q).abs()) {
                e = d;
                d = p / q;
            } else {
                d = half;
                e = d;
            }
        } else {
            d = half;
            e = d;
        }
        let step = if d.abs() > tolerance {
            d
        } else {
            tolerance.copysign(half)
        };
        // Where the tree has no valid step (in a gap of its valid volatilities), bisect.
        let next = if valid(b + step) {
            b + step
        } else {
            d = half;
            e = d;
            b + half
        };
        let price_there = at(next).map_err(|why| match why {
            Error::Interrupted(_) => why,
            _ => Error::InvalidInput(format!(
                "price {} lies between the lattice's prices at volatilities {} and {}, but the \
                 lattice is invalid at {} between them: {}",
                number(price),
                number(b.min(c)),
                number(b.max(c)),
                number(next),
                why.message()
            )),
        })?;
        (a, fa) = (b, fb);
        (b, fb) = (next, price_there);
    }
    Ok(b)
}

/// `contract` at `volatility`.
fn with_volatility(contract: &Contract, volatility: f64) -> Contract {
    let mut c = *contract;
    c.market.volatility = volatility;
    c
}

/// The lowest and highest volatilities from `floor` to [`MAX_IMPLIED_VOLATILITY`] at which
/// `contract`'s lattice is `valid`, each to 1e-12 of its edge: up from the floor by doubling
/// to the first valid one and down from the top by halving, each then bisected back to the
/// edge it passed. None valid is one line naming the range and why the floor's lattice is
/// invalid.
fn valid_range(
    contract: &Contract,
    floor: f64,
    valid: &impl Fn(f64) -> bool,
) -> Result<(f64, f64)> {
    let mut low = floor;
    let mut below = None;
    while !valid(low) {
        if low >= MAX_IMPLIED_VOLATILITY {
            let why = with_volatility(contract, floor)
                .validate()
                .err()
                .map(|e| e.message())
                .unwrap_or_default();
            return Err(Error::InvalidInput(format!(
                "no volatility from {} to {} gives a valid lattice; at {}: {why}",
                number(floor),
                number(MAX_IMPLIED_VOLATILITY),
                number(floor)
            )));
        }
        below = Some(low);
        low = (2.0 * low).min(MAX_IMPLIED_VOLATILITY);
    }
    if let Some(invalid) = below {
        low = edge(invalid, low, valid);
    }
    let mut high = MAX_IMPLIED_VOLATILITY.max(low);
    let mut above = None;
    // Ends: `low` is valid.
    while !valid(high) {
        above = Some(high);
        high = (0.5 * high).max(low);
    }
    if let Some(invalid) = above {
        high = edge(invalid, high, valid);
    }
    Ok((low, high))
}

/// The valid end of the bracket [`invalid`, `inside`] (either order) bisected to 1e-12 of
/// its width relative to the volatility: the valid volatility nearest the edge between.
fn edge(mut invalid: f64, mut inside: f64, valid: &impl Fn(f64) -> bool) -> f64 {
    while (invalid - inside).abs() > 1e-12 * inside {
        let middle = 0.5 * (invalid + inside);
        if valid(middle) {
            inside = middle;
        } else {
            invalid = middle;
        }
    }
    inside
}

/// An option's no-arbitrage bounds, whatever the volatility: its lower bound and its upper
/// one (none for the lookback put, whose running maximum has none), each with its formula
/// as messages show it. The lower is what the option is surely worth: 0, its exercise today
/// (an American), or the part of its payoff that is a forward (K·e^(−rT) − S·e^(−qT) for a
/// put); the upper what its payoff is surely below (the stock for a call, the strike for a
/// put) at the best date to have it (an American's: today or at maturity).
fn no_arbitrage_bounds(contract: &Contract) -> ((f64, String), Option<(f64, &'static str)>) {
    let m = &contract.market;
    let (spot, american) = (m.spot, contract.style == Style::American);
    let (bond, stock) = (
        (-m.rate * m.maturity).exp(),
        (-m.dividend_yield * m.maturity).exp(),
    );
    // (exercised today, the forward at maturity), each with its formula, and what the
    // formulas' letters are where they are not the contract's own.
    let ((today, today_text), (forward, forward_text), letters) = match contract.payoff {
        Payoff::Call { strike } => (
            (spot - strike, "S − K"),
            (spot * stock - strike * bond, "S·e^(−qT) − K·e^(−rT)"),
            "",
        ),
        Payoff::Put { strike } => (
            (strike - spot, "K − S"),
            (strike * bond - spot * stock, "K·e^(−rT) − S·e^(−qT)"),
            "",
        ),
        Payoff::LookbackPut => {
            let max = contract.observed_extreme.unwrap_or(spot);
            (
                (max - spot, "M − S"),
                (max * bond - spot * stock, "M·e^(−rT) − S·e^(−qT)"),
                ", M the running maximum",
            )
        }
        Payoff::LookbackCall => {
            let min = contract.observed_extreme.unwrap_or(spot);
            (
                (spot - min, "S − m"),
                (spot * stock - min * bond, "S·e^(−qT) − m·e^(−rT)"),
                ", m the running minimum",
            )
        }
    };
    let lower = match american {
        true => (
            today.max(forward).max(0.0),
            format!("max(0, {today_text}, {forward_text}){letters}"),
        ),
        false => (forward.max(0.0), format!("max(0, {forward_text}){letters}")),
    };
    let upper = match (contract.payoff, american) {
        (Payoff::LookbackPut, _) => None,
        (Payoff::Call { .. } | Payoff::LookbackCall, true) => {
            Some((spot.max(spot * stock), "S·max(1, e^(−qT))"))
        }
        (Payoff::Call { .. } | Payoff::LookbackCall, false) => Some((spot * stock, "S·e^(−qT)")),
        (Payoff::Put { strike }, true) => Some((strike.max(strike * bond), "K·max(1, e^(−rT))")),
        (Payoff::Put { strike }, false) => Some((strike * bond, "K·e^(−rT)")),
    };
    (lower, upper)
}

/// Refuses a price at or below `contract`'s lower no-arbitrage bound or at or above its
/// upper one: no volatility gives either (at the lower bound, the volatility is not even
/// one: every low enough one gives it).
fn check_bounds(contract: &Contract, price: f64) -> Result<()> {
    let ((lower, lower_text), upper) = no_arbitrage_bounds(contract);
    let option = format!("this {} {}", contract.style.name(), contract.payoff.name());
    if price <= lower {
        return Err(Error::InvalidInput(format!(
            "price {} is at or below the lowest price no arbitrage allows for {option}, {} = \
             {lower_text}: no volatility gives it",
            number(price),
            number(lower)
        )));
    }
    if let Some((upper, upper_text)) = upper.filter(|(upper, _)| price >= *upper) {
        return Err(Error::InvalidInput(format!(
            "price {} is at or above the highest price no arbitrage allows for {option}, {} = \
             {upper_text}: no volatility gives it",
            number(price),
            number(upper)
        )));
    }
    Ok(())
}

/// The implied volatilities of a book ([`implied_book`]).
#[derive(Debug)]
pub struct ImpliedBook {
    /// Per option, in the book's order, the volatility or why none was found
    /// ([`implied_volatility`]'s error, the option's line of the file before it); where the
    /// book was stopped, the first options only.
    pub volatilities: Vec<Result<f64>>,
    /// Whether the caller stopped the book ([`thicket_core::stoppable`]) before its end.
    pub stopped: bool,
}

/// The implied volatility of every option of a [`crate::BookKind::Quotes`] book (its quoted
/// `price` column), one option per task of the caller's rayon pool, in the book's order, so
/// that one unattainable quote does not stop the book. A book its caller stops ends at the
/// next lattice of each search with the options found so far, the first ones of the book,
/// marked [`ImpliedBook::stopped`].
pub fn implied_book(book: &Book) -> ImpliedBook {
    // The pool's threads do not see the caller's stop request: it travels with the rows.
    let stop = Progress::hidden().stop_flag();
    let rows: Vec<(&Contract, (&f64, &u64))> = book
        .contracts()
        .iter()
        .zip(book.quotes().iter().zip(book.lines()))
        .collect();
    let found: Vec<Option<Result<f64>>> = rows
        .par_iter()
        .map(
            |(contract, (price, line))| match search(contract, **price, stop.as_ref()) {
                Err(Error::Interrupted(_)) => None,
                found => Some(found.map_err(|e| {
                    Error::from_kind(e.kind(), format!("line {line}: {}", e.message()))
                })),
            },
        )
        .collect();
    let stopped = found.iter().any(Option::is_none);
    ImpliedBook {
        volatilities: found.into_iter().map_while(|row| row).collect(),
        stopped,
    }
}

#[cfg(test)]
mod tests;
