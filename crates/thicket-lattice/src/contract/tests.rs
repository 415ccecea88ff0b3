use super::*;

fn contract(spot: f64, maturity: f64, volatility: f64, rate: f64, steps: usize) -> Contract {
    Contract {
        payoff: Payoff::LookbackPut,
        style: Style::American,
        market: Market {
            spot,
            maturity,
            volatility,
            rate,
            dividend_yield: 0.0,
        },
        steps,
        observed_extreme: None,
        tree: Tree::Crr,
    }
}

fn message(c: &Contract) -> String {
    match c.validate() {
        Err(Error::InvalidInput(m)) => m,
        other => panic!("expected invalid input, got {other:?}"),
    }
}

#[test]
fn hulls_parameters_are_the_crr_ones() {
    let l = contract(50.0, 0.25, 0.4, 0.1, 3).validate().unwrap();
    assert!((l.dt - 0.25 / 3.0).abs() < 1e-16);
    assert!((l.u * l.d - 1.0).abs() < 1e-15);
    assert!((l.u - (0.4 * (0.25f64 / 3.0).sqrt()).exp()).abs() < 1e-15);
    // Hull quotes p = 0.5073.
    assert!((l.p - 0.5073).abs() < 1e-4, "{}", l.p);
    assert!((l.disc * (0.1 * l.dt).exp() - 1.0).abs() < 1e-15);
    assert_eq!(l.steps, 3);
}

#[test]
fn a_million_steps_are_accepted() {
    assert!(contract(50.0, 0.35, 0.3, 0.1, 1_000_000).validate().is_ok());
}

#[test]
fn each_bad_value_is_one_line_naming_the_parameter() {
    let bad = [
        (contract(0.0, 1.0, 0.3, 0.1, 10), "spot"),
        (contract(-1.0, 1.0, 0.3, 0.1, 10), "spot"),
        (contract(f64::NAN, 1.0, 0.3, 0.1, 10), "spot"),
        (contract(50.0, 0.0, 0.3, 0.1, 10), "maturity"),
        (contract(50.0, f64::INFINITY, 0.3, 0.1, 10), "maturity"),
        (contract(50.0, 1.0, -0.3, 0.1, 10), "volatility"),
        (contract(50.0, 1.0, 0.3, f64::NAN, 10), "rate"),
        (
            Contract {
                market: Market {
                    dividend_yield: f64::INFINITY,
                    ..contract(50.0, 1.0, 0.3, 0.1, 10).market
                },
                ..contract(50.0, 1.0, 0.3, 0.1, 10)
            },
            "dividend yield",
        ),
        (
            Contract {
                market: Market {
                    dividend_yield: 100.0,
                    ..contract(50.0, 1.0, 0.3, 0.1, 10).market
                },
                ..contract(50.0, 1.0, 0.3, 0.1, 10)
            },
            "dividend yield × maturity",
        ),
        (contract(50.0, 1.0, 0.3, 0.1, 0), "steps"),
        (contract(50.0, 1.0, 0.3, 0.1, MAX_STEPS + 1), "steps"),
        (contract(50.0, 1000.0, 0.3, 0.1, 10), "rate × maturity"),
        (contract(50.0, 1.0, 2000.0, 0.1, 1), "volatility"),
    ];
    for (c, name) in bad {
        let m = message(&c);
        assert!(m.contains(name), "{m:?} should name {name}");
        assert!(!m.contains('\n') && !m.contains("--"), "{m:?}");
    }
    for strike in [0.0, -5.0, f64::NAN, f64::INFINITY] {
        for payoff in [Payoff::Call { strike }, Payoff::Put { strike }] {
            let c = Contract {
                payoff,
                ..contract(50.0, 1.0, 0.3, 0.1, 10)
            };
            assert!(message(&c).starts_with("strike is"), "{}", message(&c));
        }
    }
}

#[test]
fn an_up_probability_outside_zero_one_names_its_causes() {
    // A high rate against a low volatility over long steps: exp(r·dt) > u. The lookback
    // put is on CRR: the same check as every tree's, the same message.
    let m = message(&contract(50.0, 1.0, 0.01, 0.5, 2));
    assert!(m.starts_with("the up probability"), "{m}");
    for name in [
        "rate",
        "volatility",
        "maturity",
        "steps",
        STEP_RANGE,
        "crr tree",
    ] {
        assert!(m.contains(name), "{m:?} should name {name}");
    }
    // A negative rate the other way: exp(r·dt) < d.
    let m = message(&contract(50.0, 1.0, 0.01, -0.5, 2));
    assert!(m.contains(STEP_RANGE), "{m}");
    // More steps make the same market valid.
    assert!(contract(50.0, 1.0, 0.01, 0.5, 10_000).validate().is_ok());
}

/// A put of `strike` on a stock at 100 over a year of 3 steps at a rate of 60%, on
/// `tree` at `volatility`.
fn high_rate_put(tree: Tree, strike: f64, volatility: f64) -> Contract {
    Contract {
        payoff: Payoff::Put { strike },
        tree,
        ..contract(100.0, 1.0, volatility, 0.6, 3)
    }
}

#[test]
fn every_tree_refuses_a_step_outside_the_range_and_prices_up_to_its_edge() {
    // The edges, where a condition of the range holds with equality (found outside
    // thicket by bisection on the trees' formulas): CRR's p = 1 at σ = r·sqrt(dt),
    // Jarrow–Rudd's and Tian's d = 1, Leisen–Reimer's p = 1 (its moves depend on the
    // strike; at 95 its valid volatilities start there and have no gap near it).
    let edges = [
        (Tree::Crr, 100.0, 0.346_410_161_513_775_35),
        (Tree::JarrowRudd, 100.0, 0.317_339_345_623_042_5),
        (Tree::Tian, 100.0, 0.463_437_847_124_684_7),
        (Tree::LeisenReimer, 95.0, 0.058_697_087_004_326_645),
    ];
    for (tree, strike, edge) in edges {
        let m = message(&high_rate_put(tree, strike, edge * 0.999));
        assert!(m.starts_with("the up probability"), "{m}");
        let strike = format!("strike {strike}");
        for word in [STEP_RANGE, tree.name(), "rate 0.6", &strike, "steps 3"] {
            assert!(m.contains(word), "{tree:?}: {m:?} should name {word:?}");
        }
        let inside = high_rate_put(tree, 100.0, edge * 1.001);
        let lattice = inside.validate().unwrap();
        assert!(lattice.u > 1.0 && lattice.d < 1.0, "{tree:?} {lattice:?}");
        let priced = crate::test_support::serial_of(&inside, crate::Precision::F64);
        // At the money the stock can fall below the strike: worth something.
        assert!(
            priced.price > 0.0 && priced.price < 100.0,
            "{tree:?} {priced:?}"
        );
    }
    // The case: Tian's d above 1 at a large volatility and rate over few steps
    // priced the put at exactly 0 with every greek 0.
    let tian = Contract {
        market: Market {
            rate: 3.0,
            ..high_rate_put(Tree::Tian, 95.0, 1.5).market
        },
        ..high_rate_put(Tree::Tian, 95.0, 1.5)
    };
    assert!(message(&tian).contains("d = 2.089"), "{}", message(&tian));
    // Tian's d also climbs back above 1 as the volatility grows (towards exp((r − q)·dt)).
    assert!(message(&high_rate_put(Tree::Tian, 100.0, 2.5)).contains(STEP_RANGE));
}
