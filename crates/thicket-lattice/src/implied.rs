//! Implied volatility: the volatility at which an option's lattice price (f64, one thread)
//! equals a quoted price, by Brent's method (inverse quadratic interpolation and secant steps
//! safeguarded by bisection) on a bracket of volatilities whose prices straddle the quote.

use rayon::prelude::*;
use thicket_core::{number, Error, Result};

use crate::book_csv::Book;
use crate::contract::Contract;
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
/// The search runs between the lowest volatility the lattice accepts (its up probability must
/// stay in [0, 1]: σ above |r − q|·sqrt(dt) on CRR, and for a seasoned lookback high enough
/// that its extreme lies within 64·N states of the spot; on another tree the lowest of σ·2^k that
/// gives a valid step) and [`MAX_IMPLIED_VOLATILITY`] (on another tree, halved until its
/// price is above the quote: Tian's and Jarrow–Rudd's trees lose their value at extreme
/// σ·sqrt(dt)); the lattice price
/// increases with the volatility there. A price below the lowest volatility's (for an option
/// in the money, about its intrinsic value) or above the highest's (the bound: the spot for a
/// call, the discounted strike for a European put) is [`Error::InvalidInput`] with one line
/// naming the price and the bound.
pub fn implied_volatility(contract: &Contract, price: f64) -> Result<f64> {
    if !(price.is_finite() && price >= 0.0) {
        return Err(Error::InvalidInput(format!(
            "price is {}; it must be a finite number >= 0",
            number(price)
        )));
    }
    let at = |volatility: f64| -> Result<f64> {
        let mut c = *contract;
        c.market.volatility = volatility;
        Ok(price_serial(&c, Precision::F64)?.price - price)
    };
    let m = &contract.market;
    let dt = m.maturity / contract.steps as f64;
    // Just above the volatility where u = exp((r − q)·dt) and p leaves [0, 1].
    let floor = ((m.rate - m.dividend_yield).abs() * dt.sqrt() * (1.0 + 1e-9)).max(1e-6);
    // A seasoned lookback's extreme lies ln(extreme/S)/(σ·sqrt(dt)) states away: at most 64·N
    // of them, so that the lattice's memory stays within 65 times a fresh one's.
    let far = contract.observed_extreme.map_or(0.0, |extreme| {
        (extreme / m.spot).ln().abs() / (64.0 * contract.steps as f64 * dt.sqrt())
    });
    let floor = floor.max(far);
    let (mut a, mut b) = (floor, MAX_IMPLIED_VOLATILITY);
    // A drifted tree (Leisen–Reimer's above all) has no valid step at some volatilities near
    // the ends: the bracket moves inwards, by factors of 2, to the first volatility it has.
    let (mut fa, mut fb) = (at(a), at(b));
    while matches!(fa, Err(Error::InvalidInput(_))) && 2.0 * a < b {
        a *= 2.0;
        fa = at(a);
    }
    while matches!(fb, Err(Error::InvalidInput(_))) && b > 2.0 * a {
        b *= 0.5;
        fb = at(b);
    }
    let (mut fa, mut fb) = (fa?, fb?);
    // Tian's and Jarrow–Rudd's trees turn back at extreme σ·sqrt(dt) (their price falls to
    // nothing as σ grows on): the top comes down by halves until its price is above the quote.
    while contract.tree != Tree::Crr && fb < 0.0 && b > 2.0 * a {
        b *= 0.5;
        fb = at(b)?;
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
        (a, fa) = (b, fb);
        b += if d.abs() > tolerance {
            d
        } else {
            tolerance.copysign(half)
        };
        fb = at(b)?;
    }
    Ok(b)
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
    use crate::contract::{Market, Payoff, Style};
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
                "put,american,50,60,1,0.05,50,9,,\"line 2: price 9 is below the lowest"
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
}
