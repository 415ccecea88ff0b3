//! Dividend yields against outside references: `data/crr-dividends.csv` (an independent CRR
//! pricer in mpmath, `data/tools/crr_dividends.py`), put-call parity, and the closed forms
//! (Black–Scholes–Merton, Goldman–Sosin–Gatto with a cost of carry) as N grows.

use thicket_lattice::{
    black_scholes, goldman_sosin_gatto, price, price_book, Contract, Market, Payoff, Precision,
    Strategy, Style,
};

use crate::support::options;

fn value(contract: &Contract, strategy: Strategy, precision: Precision) -> f64 {
    price(contract, &options(strategy, precision))
        .unwrap()
        .output
        .priced
        .price
}

/// The reference table's contracts and prices.
fn reference() -> Vec<(Contract, f64)> {
    let text = include_str!("../../data/crr-dividends.csv");
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let number = |i: usize| f[i].parse::<f64>().unwrap();
            let payoff = match f[0] {
                "call" => Payoff::Call { strike: number(3) },
                "put" => Payoff::Put { strike: number(3) },
                "lookback-put" => Payoff::LookbackPut,
                _ => Payoff::LookbackCall,
            };
            let style = match f[1] {
                "american" => Style::American,
                _ => Style::European,
            };
            let contract = Contract {
                payoff,
                style,
                market: Market {
                    spot: number(2),
                    maturity: number(4),
                    volatility: number(5),
                    rate: number(6),
                    dividend_yield: number(7),
                },
                steps: f[8].parse().unwrap(),
                observed_extreme: None,
                tree: Default::default(),
            };
            (contract, number(9))
        })
        .collect()
}

#[test]
fn every_payoff_with_dividends_matches_the_independent_pricer() {
    let rows = reference();
    assert_eq!(rows.len(), 160);
    let contracts: Vec<Contract> = rows.iter().map(|r| r.0).collect();
    for (strategy, precision, tolerance) in [
        (Strategy::Serial, Precision::F64, 1e-10),
        (Strategy::Multicore, Precision::F64, 1e-10),
        (Strategy::Serial, Precision::F32, 1e-4),
    ] {
        let book = price_book(&contracts, &options(strategy, precision)).unwrap();
        for ((contract, want), got) in rows.iter().zip(&book.output.priced) {
            assert!(
                (got.price - want).abs() <= tolerance * want.abs().max(1.0),
                "{strategy:?} {precision:?} {contract:?}: {} want {want}",
                got.price
            );
        }
        // One option at a time as well (multicore tiles a long lattice, not a book).
        for (contract, want) in rows.iter().filter(|r| r.0.steps == 400).take(8) {
            let got = value(contract, strategy, precision);
            assert!((got - want).abs() <= tolerance * want.abs().max(1.0));
        }
    }
}

#[test]
fn european_put_call_parity_holds_with_dividends() {
    for q in [-0.02, 0.0, 0.03, 0.1] {
        for steps in [1, 2, 50, 501] {
            let market = Market {
                spot: 47.0,
                maturity: 0.8,
                volatility: 0.27,
                rate: 0.04,
                dividend_yield: q,
            };
            let at = |payoff| Contract {
                payoff,
                style: Style::European,
                market,
                steps,
                observed_extreme: None,
                tree: Default::default(),
            };
            let strike = 50.0;
            let call = value(
                &at(Payoff::Call { strike }),
                Strategy::Serial,
                Precision::F64,
            );
            let put = value(
                &at(Payoff::Put { strike }),
                Strategy::Serial,
                Precision::F64,
            );
            let parity = 47.0 * (-q * 0.8f64).exp() - strike * (-0.04f64 * 0.8).exp();
            assert!(
                (call - put - parity).abs() < 1e-11,
                "q {q} N {steps}: {call} - {put} vs {parity}"
            );
        }
    }
}

#[test]
fn european_prices_with_dividends_approach_the_closed_forms() {
    let market = Market {
        spot: 50.0,
        maturity: 1.0,
        volatility: 0.3,
        rate: 0.05,
        dividend_yield: 0.03,
    };
    let european = |payoff, steps| Contract {
        payoff,
        style: Style::European,
        market,
        steps,
        observed_extreme: None,
        tree: Default::default(),
    };
    for (payoff, call) in [
        (Payoff::Call { strike: 50.0 }, true),
        (Payoff::Put { strike: 50.0 }, false),
    ] {
        let want = black_scholes(&market, 50.0, call);
        let got = value(
            &european(payoff, 2_000),
            Strategy::Multicore,
            Precision::F64,
        );
        assert!((got - want).abs() < 2e-3, "{payoff:?}: {got} vs {want}");
    }
    for (payoff, call) in [(Payoff::LookbackPut, false), (Payoff::LookbackCall, true)] {
        let want = goldman_sosin_gatto(&market, call);
        let gaps: Vec<f64> = [100, 1_000, 4_000]
            .iter()
            .map(|&n| want - value(&european(payoff, n), Strategy::Multicore, Precision::F64))
            .collect();
        // Discrete monitoring undervalues; the gap shrinks like sqrt(dt).
        assert!(
            gaps[0] > gaps[1] && gaps[1] > gaps[2] && gaps[2] > 0.0,
            "{payoff:?} {gaps:?}"
        );
        assert!((1.7..2.3).contains(&(gaps[1] / gaps[2])), "{gaps:?}");
    }
}

#[test]
fn a_dividend_makes_an_american_call_worth_more_than_the_european() {
    let market = Market {
        spot: 50.0,
        maturity: 1.0,
        volatility: 0.2,
        rate: 0.02,
        dividend_yield: 0.1,
    };
    let at = |style| Contract {
        payoff: Payoff::Call { strike: 45.0 },
        style,
        market,
        steps: 300,
        observed_extreme: None,
        tree: Default::default(),
    };
    let american = value(&at(Style::American), Strategy::Serial, Precision::F64);
    let european = value(&at(Style::European), Strategy::Serial, Precision::F64);
    assert!(american > european + 1e-2, "{american} vs {european}");
}
