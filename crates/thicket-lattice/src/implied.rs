//! Implied volatility: the volatility at which an option's lattice price (f64, one thread)
//! equals a quoted price, by Brent's method (inverse quadratic interpolation and secant steps
//! safeguarded by bisection) on a bracket of volatilities whose prices straddle the quote.

use rayon::prelude::*;
use thicket_core::{number, Error, Result};

use crate::book_csv::Book;
use crate::contract::{Contract, Payoff, Style};
use crate::scheme::Precision;
use crate::serial::price_serial;
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
pub fn implied_volatility(contract: &Contract, price: f64) -> Result<f64> {
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
        Ok(price_serial(&with_volatility(contract, volatility), Precision::F64)?.price - price)
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
        let price_there = at(next).map_err(|why| {
            Error::InvalidInput(format!(
                "price {} lies between the lattice's prices at volatilities {} and {}, but the \
                 lattice is invalid at {} between them: {}",
                number(price),
                number(b.min(c)),
                number(b.max(c)),
                number(next),
                why.message()
            ))
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

/// The implied volatility of every option of a [`crate::BookKind::Quotes`] book (its quoted
/// `price` column), one option per task of the caller's rayon pool, in the book's order: per
/// option the volatility, or why none was found ([`implied_volatility`]'s error, the option's
/// line of the file before it), so that one unattainable quote does not stop the book.
pub fn implied_book(book: &Book) -> Vec<Result<f64>> {
    let rows: Vec<(&Contract, (&f64, &u64))> = book
        .contracts()
        .iter()
        .zip(book.quotes().iter().zip(book.lines()))
        .collect();
    rows.par_iter()
        .map(|(contract, (price, line))| {
            implied_volatility(contract, **price)
                .map_err(|e| Error::from_kind(e.kind(), format!("line {line}: {}", e.message())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Market;
    use thicket_core::SplitMix;

    /// The `k`th random option's payoff: calls, puts and both lookbacks in turn, the vanillas'
    /// strikes drawn from 30 to 70.
    fn payoff_of(k: usize, uniform: &mut impl FnMut(f64, f64) -> f64) -> Payoff {
        match k % 4 {
            0 => Payoff::Call {
                strike: uniform(30.0, 70.0),
            },
            1 => Payoff::Put {
                strike: uniform(30.0, 70.0),
            },
            2 => Payoff::LookbackPut,
            _ => Payoff::LookbackCall,
        }
    }

    #[test]
    fn a_thousand_random_options_on_every_tree_and_seasoned_round_trip() {
        let mut random = SplitMix::new(34);
        let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * random.unit();
        let mut worst: f64 = 0.0;
        let mut not_monotone = 0;
        for k in 0..1_000 {
            let payoff = payoff_of(k, &mut uniform);
            let contract = Contract {
                payoff,
                style: if k % 8 < 4 {
                    Style::American
                } else {
                    Style::European
                },
                market: Market {
                    spot: 50.0,
                    maturity: uniform(0.1, 2.0),
                    volatility: uniform(0.05, 0.9),
                    rate: uniform(0.0, 0.08),
                    dividend_yield: uniform(0.0, 0.05),
                },
                steps: 10 + k % 23,
                observed_extreme: None,
                tree: Default::default(),
            };
            // Vanillas on every tree (Leisen–Reimer on odd steps); a third of the lookbacks
            // seasoned, their extreme up to 20% from the spot.
            let tree = Tree::ALL[(k / 4) % 4];
            let contract = match payoff {
                Payoff::Call { .. } | Payoff::Put { .. } => Contract {
                    tree,
                    steps: contract.steps | usize::from(tree == Tree::LeisenReimer),
                    ..contract
                },
                Payoff::LookbackPut if k % 3 == 0 => Contract {
                    observed_extreme: Some(50.0 * uniform(1.0, 1.2)),
                    ..contract
                },
                Payoff::LookbackCall if k % 3 == 0 => Contract {
                    observed_extreme: Some(50.0 / uniform(1.0, 1.2)),
                    ..contract
                },
                _ => contract,
            };
            let price = price_serial(&contract, Precision::F64).unwrap().price;
            // Far out of the money a price barely moves with the volatility: no vol to find.
            let mut flatter = contract;
            flatter.market.volatility *= 0.999;
            let moves = price - price_serial(&flatter, Precision::F64).unwrap().price;
            if moves < 1e-9 {
                continue;
            }
            let volatility = match implied_volatility(&contract, price) {
                Ok(volatility) => volatility,
                // A seasoned lookback deep in the money (its extreme far from the spot) can
                // be worth a little less at a modest volatility than at the lowest: then the
                // price is truly below the lowest the search starts from.
                Err(e)
                    if contract.observed_extreme.is_some()
                        && e.to_string().contains("below the lowest price") =>
                {
                    not_monotone += 1;
                    continue;
                }
                Err(e) => panic!("{contract:?}: {e}"),
            };
            let mut back = contract;
            back.market.volatility = volatility;
            let again = price_serial(&back, Precision::F64).unwrap().price;
            assert!(
                (again - price).abs() < 1e-10 * price.max(1.0),
                "{contract:?}: {price} -> {volatility} -> {again}"
            );
            // A seasoned lookback's price wiggles with σ at the scale of the lattice's error
            // (its states move with σ): its quote is met, but maybe at another volatility.
            if contract.observed_extreme.is_none() {
                worst = worst.max((volatility - contract.market.volatility).abs());
            }
        }
        assert!(worst < 1e-8, "{worst}");
        assert!(not_monotone < 20, "{not_monotone}");
    }

    /// `count` random options with `steps_below` steps at most, priced, as a quotes book's
    /// CSV text (an id column carried), without those whose price barely moves with the
    /// volatility (no volatility to find there); and their prices.
    fn quoted_book(count: usize, steps_below: usize, seed: u64) -> (String, Vec<f64>) {
        let mut random = SplitMix::new(seed);
        let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * random.unit();
        let mut text =
            String::from("id,payoff,style,spot,strike,maturity,rate,dividend_yield,steps,price\n");
        let mut prices = Vec::new();
        for k in 0..count {
            let payoff = payoff_of(k, &mut uniform);
            let style = if k % 8 < 4 {
                Style::American
            } else {
                Style::European
            };
            let contract = Contract {
                payoff,
                style,
                market: Market {
                    spot: 50.0,
                    maturity: uniform(0.1, 2.0),
                    volatility: uniform(0.05, 0.9),
                    rate: uniform(0.0, 0.08),
                    dividend_yield: uniform(0.0, 0.05),
                },
                steps: 10 + k % steps_below.saturating_sub(10).max(1),
                observed_extreme: None,
                tree: Tree::Crr,
            };
            let price = price_serial(&contract, Precision::F64).unwrap().price;
            let mut flatter = contract;
            flatter.market.volatility *= 0.999;
            if price - price_serial(&flatter, Precision::F64).unwrap().price < 1e-9 {
                continue;
            }
            let m = &contract.market;
            let strike = payoff.strike().map(|k| k.to_string()).unwrap_or_default();
            text += &format!(
                "opt-{k},{},{},{},{strike},{},{},{},{},{price}\n",
                payoff.name(),
                style.name(),
                m.spot,
                m.maturity,
                m.rate,
                m.dividend_yield,
                contract.steps
            );
            prices.push(price);
        }
        (text, prices)
    }

    /// Prices -> the book's implied volatilities -> prices again, through the CSV both ways.
    fn round_trip_through_a_book(count: usize, steps_below: usize) {
        let (text, prices) = quoted_book(count, steps_below, 34);
        let book = crate::parse_book_of("quotes.csv", &text, crate::BookKind::Quotes).unwrap();
        let implied = implied_book(&book);
        let out = book.implied_csv(&implied);
        // The answer is a book to price: its volatility column is now filled.
        let priced = crate::parse_book("implied.csv", &out).unwrap();
        assert_eq!(priced.len(), prices.len());
        for (contract, price) in priced.contracts().iter().zip(&prices) {
            let again = price_serial(contract, Precision::F64).unwrap().price;
            assert!(
                (again - price).abs() < 1e-10 * price.max(1.0),
                "{contract:?}: {price} -> {again}"
            );
        }
        assert!(out.starts_with("id,"), "the id column leads: {out:.40}");
    }

    #[test]
    fn a_thousand_random_options_round_trip_through_a_quotes_book() {
        round_trip_through_a_book(1_000, 33);
    }

    #[test]
    #[ignore = "ten thousand options up to 200 steps: slow in debug"]
    fn ten_thousand_random_options_round_trip_through_a_quotes_book() {
        round_trip_through_a_book(10_000, 200);
    }

    #[test]
    fn an_unattainable_quote_leaves_its_row_empty_with_a_note() {
        let text = "payoff,style,spot,strike,maturity,rate,steps,price\n\
                    put,american,50,60,1,0.05,50,9\n\
                    put,american,50,60,1,0.05,50,11.5\n";
        let book = crate::parse_book_of("q.csv", text, crate::BookKind::Quotes).unwrap();
        let implied = implied_book(&book);
        assert!(implied[1].is_ok());
        let out = book.implied_csv(&implied);
        let second = out.lines().nth(1).unwrap();
        assert!(
            second.starts_with(
                "put,american,50,60,1,0.05,50,9,,\"line 2: price 9 is at or below the lowest \
                 price no arbitrage allows for this american put, 10 = max(0, K − S, "
            ),
            "{second}"
        );
    }

    #[test]
    fn unattainable_prices_are_one_line_naming_the_bound() {
        let contract = Contract {
            payoff: Payoff::Put { strike: 60.0 },
            style: Style::American,
            market: Market {
                spot: 50.0,
                maturity: 1.0,
                volatility: 0.3,
                rate: 0.05,
                dividend_yield: 0.0,
            },
            steps: 50,
            observed_extreme: None,
            tree: Default::default(),
        };
        let below = implied_volatility(&contract, 9.0).unwrap_err().to_string();
        assert!(below.contains("below the lowest price"), "{below}");
        let above = implied_volatility(&contract, 61.0).unwrap_err().to_string();
        assert!(above.contains("above the highest price"), "{above}");
        for text in [below, above] {
            assert!(!text.contains('\n'));
        }
        assert!(implied_volatility(&contract, f64::NAN).is_err());
    }

    /// A vanilla or lookback on S = 50, T = 1, r = 5%, q = 2%, 50 steps.
    fn option(payoff: Payoff, style: Style) -> Contract {
        Contract {
            payoff,
            style,
            market: Market {
                spot: 50.0,
                maturity: 1.0,
                volatility: 0.3,
                rate: 0.05,
                dividend_yield: 0.02,
            },
            steps: 50,
            observed_extreme: None,
            tree: Tree::Crr,
        }
    }

    #[test]
    fn a_price_at_a_no_arbitrage_bound_is_refused_naming_it() {
        let (bond, stock) = ((-0.05_f64).exp(), (-0.02_f64).exp());
        let put = Payoff::Put { strike: 60.0 };
        let call = Payoff::Call { strike: 40.0 };
        let far_put = Payoff::Put { strike: 40.0 };
        // (option, its lower bound, its upper bound)
        let cases = [
            (option(put, Style::American), 10.0, Some(60.0)),
            (
                option(put, Style::European),
                60.0 * bond - 50.0 * stock,
                Some(60.0 * bond),
            ),
            (
                option(call, Style::American),
                50.0 * stock - 40.0 * bond,
                Some(50.0),
            ),
            (
                option(call, Style::European),
                50.0 * stock - 40.0 * bond,
                Some(50.0 * stock),
            ),
            // Out of the money: 0, the price that returned the bottom of the bracket.
            (option(far_put, Style::American), 0.0, Some(40.0)),
            (option(Payoff::LookbackPut, Style::European), 0.0, None),
            // A fresh lookback call is worth at least the forward of the stock less the
            // spot, its minimum so far: S·e^(−qT) − S·e^(−rT).
            (
                option(Payoff::LookbackCall, Style::American),
                50.0 * stock - 50.0 * bond,
                Some(50.0),
            ),
        ];
        for (contract, lower, upper) in cases {
            let what = format!("{} {}", contract.style.name(), contract.payoff.name());
            for price in [lower, lower * 0.99] {
                let m = implied_volatility(&contract, price)
                    .unwrap_err()
                    .to_string();
                assert!(
                    m.contains("at or below the lowest price no arbitrage allows")
                        && m.contains(&what)
                        && m.contains(&format!(", {} = max(0, ", number(lower))),
                    "{what} at {price}: {m}"
                );
            }
            // Just above the lower bound a price is either found or below the lattice's
            // lowest: never the bottom of the bracket returned as an answer.
            if let Ok(volatility) = implied_volatility(&contract, lower + 1e-9) {
                let mut back = contract;
                back.market.volatility = volatility;
                let again = price_serial(&back, Precision::F64).unwrap().price;
                assert!((again - lower - 1e-9).abs() < 1e-10, "{what}: {again}");
            }
            if let Some(upper) = upper {
                let m = implied_volatility(&contract, upper)
                    .unwrap_err()
                    .to_string();
                assert!(
                    m.contains("at or above the highest price no arbitrage allows")
                        && m.contains(&format!(", {} = ", number(upper))),
                    "{what}: {m}"
                );
            }
        }
        // A seasoned lookback put is worth its running maximum's lead, at least.
        let seasoned = Contract {
            observed_extreme: Some(60.0),
            ..option(Payoff::LookbackPut, Style::American)
        };
        let m = implied_volatility(&seasoned, 10.0).unwrap_err().to_string();
        assert!(
            m.contains("10 = max(0, M − S, M·e^(−rT) − S·e^(−qT)), M the running maximum"),
            "{m}"
        );
    }

    /// A put at the money on a stock at 100 over a year of 3 steps at a rate of 60% on
    /// `tree`: its lattice is invalid at low volatilities on every tree, at high ones on
    /// Tian's (whose d climbs back above 1) and Jarrow–Rudd's, and in a narrow gap near its
    /// lowest on Leisen–Reimer's.
    fn high_rate_put(tree: Tree) -> Contract {
        Contract {
            payoff: Payoff::Put { strike: 100.0 },
            market: Market {
                spot: 100.0,
                rate: 0.6,
                dividend_yield: 0.0,
                ..option(Payoff::LookbackPut, Style::American).market
            },
            steps: 3,
            tree,
            ..option(Payoff::LookbackPut, Style::American)
        }
    }

    #[test]
    fn the_search_keeps_to_the_volatilities_whose_tree_is_valid() {
        for tree in Tree::ALL {
            let contract = high_rate_put(tree);
            let floor = |v: f64| with_volatility(&contract, v).validate().is_ok();
            let (low, high) = valid_range(&contract, 1e-6, &floor).unwrap();
            assert!(floor(low) && !floor(low * (1.0 - 1e-9)), "{tree:?} {low}");
            assert!(floor(high), "{tree:?} {high}");
            for volatility in [low * 1.01, 0.8] {
                let quote = price_serial(&with_volatility(&contract, volatility), Precision::F64)
                    .unwrap()
                    .price;
                let found = implied_volatility(&contract, quote)
                    .unwrap_or_else(|e| panic!("{tree:?} at {volatility}: {e}"));
                let again = price_serial(&with_volatility(&contract, found), Precision::F64)
                    .unwrap()
                    .price;
                assert!(
                    (again - quote).abs() < 1e-10,
                    "{tree:?}: {quote} -> {found}"
                );
            }
        }
        // Tian's valid volatilities end below 10: its d climbs back above 1.
        let tian = high_rate_put(Tree::Tian);
        let (_, high) = valid_range(&tian, 1e-6, &|v| {
            with_volatility(&tian, v).validate().is_ok()
        })
        .unwrap();
        assert!((1.9..2.0).contains(&high), "{high}");
        // A drift no volatility of Tian's tree straddles (its d/exp((r − q)·dt) stays above
        // 3/4): one line naming the range searched and why its lattice is invalid.
        let never = Contract {
            market: Market {
                rate: 3.0,
                ..tian.market
            },
            ..tian
        };
        let m = implied_volatility(&never, 5.0).unwrap_err().to_string();
        assert!(
            m.contains("no volatility from")
                && m.contains("gives a valid lattice")
                && m.contains("tian tree"),
            "{m}"
        );
        assert!(!m.contains('\n'));
    }
}
