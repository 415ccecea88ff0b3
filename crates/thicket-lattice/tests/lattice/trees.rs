//! The trees for vanilla options (`Tree`) against outside references: `data/trees-reference.csv`
//! (an independent numpy pricer of the four trees, `data/tools/trees_reference.py`), brute
//! force over every path of each tree, and Black–Scholes–Merton's price and greeks as N grows.

use thicket_lattice::{
    black_scholes, exhaustive, price, Contract, Error, Market, Payoff, Precision, Strategy, Style,
    Tree,
};

use crate::support::options;

fn priced(
    contract: &Contract,
    strategy: Strategy,
    precision: Precision,
) -> thicket_lattice::Priced {
    price(contract, &options(strategy, precision))
        .unwrap()
        .output
        .priced
}

fn vanilla(tree: Tree, payoff: Payoff, style: Style, market: Market, steps: usize) -> Contract {
    Contract {
        payoff,
        style,
        market,
        steps,
        observed_extreme: None,
        tree,
    }
}

const MARKET: Market = Market {
    spot: 100.0,
    maturity: 1.0,
    volatility: 0.2,
    rate: 0.05,
    dividend_yield: 0.02,
};

/// The reference table's contracts and prices.
fn reference() -> Vec<(Contract, f64)> {
    let text = include_str!("../../data/trees-reference.csv");
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let number = |i: usize| f[i].parse::<f64>().unwrap();
            let strike = number(4);
            let payoff = match f[1] {
                "call" => Payoff::Call { strike },
                _ => Payoff::Put { strike },
            };
            let style = match f[2] {
                "american" => Style::American,
                _ => Style::European,
            };
            let market = Market {
                spot: number(3),
                maturity: number(5),
                volatility: number(6),
                rate: number(7),
                dividend_yield: number(8),
            };
            let contract = vanilla(
                f[0].parse().unwrap(),
                payoff,
                style,
                market,
                f[9].parse().unwrap(),
            );
            (contract, number(10))
        })
        .collect()
}

#[test]
fn every_tree_matches_the_independent_numpy_pricer() {
    let rows = reference();
    assert_eq!(rows.len(), 144);
    for (contract, want) in rows {
        for strategy in [Strategy::Serial, Strategy::Multicore] {
            let got = priced(&contract, strategy, Precision::F64).price;
            assert!(
                (got - want).abs() <= 1e-10 * want.max(1.0),
                "{contract:?} {strategy:?}: {got}, want {want}"
            );
        }
        let got = priced(&contract, Strategy::Serial, Precision::F32).price;
        assert!(
            (got - want).abs() <= 1e-3 * want.max(1.0),
            "{contract:?} f32: {got}, want {want}"
        );
    }
}

#[test]
fn every_tree_equals_brute_force_over_all_paths() {
    for tree in Tree::ALL {
        for payoff in [
            Payoff::Call { strike: 103.0 },
            Payoff::Put { strike: 103.0 },
        ] {
            for style in [Style::American, Style::European] {
                for steps in (1..=13).filter(|n| tree != Tree::LeisenReimer || n % 2 == 1) {
                    let contract = vanilla(tree, payoff, style, MARKET, steps);
                    let got = priced(&contract, Strategy::Serial, Precision::F64).price;
                    let want = exhaustive(&contract).unwrap();
                    assert!(
                        (got - want).abs() <= 1e-12 * want.max(1.0),
                        "{tree:?} {payoff:?} {style:?} N={steps}: {got}, want {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn crr_is_the_default_and_prices_as_before() {
    let contract = vanilla(
        Tree::default(),
        Payoff::Put { strike: 95.0 },
        Style::American,
        MARKET,
        300,
    );
    assert_eq!(contract.tree, Tree::Crr);
    let json = price(&contract, &options(Strategy::Serial, Precision::F64))
        .unwrap()
        .output
        .stats();
    assert_eq!(json["tree"], "crr");
    assert!(json["observed_extreme"].is_null());
}

/// Black–Scholes–Merton's put and its greeks by central differences (spot, and calendar
/// time: theta = −∂price/∂T).
fn bsm_put(market: &Market, strike: f64) -> [f64; 4] {
    let at = |spot: f64, maturity: f64| {
        black_scholes(
            &Market {
                spot,
                maturity,
                ..*market
            },
            strike,
            false,
        )
    };
    let (s, t, h) = (market.spot, market.maturity, 1e-3);
    [
        at(s, t),
        (at(s + h * s, t) - at(s - h * s, t)) / (2.0 * h * s),
        (at(s + h * s, t) - 2.0 * at(s, t) + at(s - h * s, t)) / (h * s).powi(2),
        -(at(s, t + 1e-5) - at(s, t - 1e-5)) / 2e-5,
    ]
}

#[test]
fn every_tree_approaches_black_scholes_merton_and_its_greeks() {
    let put = Payoff::Put { strike: 95.0 };
    let [price, delta, gamma, theta] = bsm_put(&MARKET, 95.0);
    for tree in Tree::ALL {
        let got = priced(
            &vanilla(tree, put, Style::European, MARKET, 1001),
            Strategy::Multicore,
            Precision::F64,
        );
        let error = (got.price - price).abs();
        let bound = if tree == Tree::LeisenReimer {
            1e-6
        } else {
            5e-3
        };
        assert!(error < bound, "{tree:?}: {} vs {price}", got.price);
        assert!(
            (got.delta - delta).abs() < 2e-3,
            "{tree:?}: {got:?} {delta}"
        );
        assert!(
            (got.gamma / gamma - 1.0).abs() < 0.02,
            "{tree:?}: {got:?} {gamma}"
        );
        assert!(
            (got.theta / theta - 1.0).abs() < 0.02,
            "{tree:?}: {got:?} {theta}"
        );
    }
}

#[test]
fn leisen_reimer_converges_fastest() {
    let put = Payoff::Put { strike: 95.0 };
    let want = black_scholes(&MARKET, 95.0, false);
    let error = |tree: Tree, steps: usize| {
        let contract = vanilla(tree, put, Style::European, MARKET, steps);
        (priced(&contract, Strategy::Serial, Precision::F64).price - want).abs()
    };
    for steps in [51, 201] {
        let lr = error(Tree::LeisenReimer, steps);
        for tree in [Tree::Crr, Tree::JarrowRudd, Tree::Tian] {
            assert!(lr * 10.0 < error(tree, steps), "{tree:?} N={steps}");
        }
    }
    // Second order: four times the steps, about a sixteenth of the error.
    assert!(error(Tree::LeisenReimer, 801) < error(Tree::LeisenReimer, 201) / 8.0);
}

fn refusal(contract: &Contract) -> String {
    match contract.validate() {
        Err(Error::InvalidInput(message)) => message,
        other => panic!("expected invalid input, got {other:?}"),
    }
}

#[test]
fn a_lookback_on_another_tree_and_an_even_leisen_reimer_are_refused_in_one_line() {
    let lookback = vanilla(Tree::Tian, Payoff::LookbackPut, Style::American, MARKET, 11);
    let message = refusal(&lookback);
    assert!(
        message.contains("tian") && message.contains("lookback-put"),
        "{message}"
    );
    let even = vanilla(
        Tree::LeisenReimer,
        Payoff::Call { strike: 90.0 },
        Style::European,
        MARKET,
        100,
    );
    let message = refusal(&even);
    assert!(
        message.contains("odd") && message.contains("100"),
        "{message}"
    );
    for message in [refusal(&lookback), refusal(&even)] {
        assert!(!message.contains('\n'), "{message}");
    }
}
