//! Seasoned lookbacks (`Contract::observed_extreme`): exact at the lattice's states against
//! brute force over every path (which starts its running extreme at the observed one), the
//! interpolation between states, and convergence to the continuous-monitoring closed form
//! (`seasoned_lookback`) as N grows.

use thicket_lattice::{
    exhaustive, exhaustive_interpolated, price, seasoned_lookback, verify, Contract, Error, Market,
    Payoff, Precision, Priced, Strategy, Style, Tree,
};

use crate::support::options;

fn priced(contract: &Contract, strategy: Strategy, precision: Precision) -> Priced {
    price(contract, &options(strategy, precision))
        .unwrap()
        .output
        .priced
}

const MARKET: Market = Market {
    spot: 50.0,
    maturity: 0.5,
    volatility: 0.3,
    rate: 0.06,
    dividend_yield: 0.02,
};

fn seasoned(payoff: Payoff, style: Style, extreme: f64, steps: usize) -> Contract {
    Contract {
        payoff,
        style,
        market: MARKET,
        steps,
        observed_extreme: Some(extreme),
        tree: Tree::Crr,
    }
}

/// The extreme `state` steps of the lattice of `steps` steps from the spot: above it for the
/// put's maximum, below it for the call's minimum.
fn at_state(payoff: Payoff, state: f64, steps: usize) -> f64 {
    let log_u = MARKET.volatility * (MARKET.maturity / steps as f64).sqrt();
    let sign = if payoff == Payoff::LookbackPut {
        1.0
    } else {
        -1.0
    };
    MARKET.spot * (sign * state * log_u).exp()
}

const LOOKBACKS: [Payoff; 2] = [Payoff::LookbackPut, Payoff::LookbackCall];
const STYLES: [Style; 2] = [Style::American, Style::European];

#[test]
fn at_a_lattice_state_the_price_is_brute_forces_with_that_extreme() {
    for payoff in LOOKBACKS {
        for style in STYLES {
            for steps in 1..=12 {
                for state in 0..=6 {
                    let extreme = at_state(payoff, state as f64, steps);
                    let contract = seasoned(payoff, style, extreme, steps);
                    let want = exhaustive(&contract).unwrap();
                    for strategy in [Strategy::Serial, Strategy::Multicore] {
                        let got = priced(&contract, strategy, Precision::F64).price;
                        assert!(
                            (got - want).abs() <= 1e-12 * want.max(1.0),
                            "{payoff:?} {style:?} N={steps} state {state}: {got}, want {want}"
                        );
                    }
                    let f32 = priced(&contract, Strategy::Serial, Precision::F32);
                    assert_eq!(verify(&contract, &f32, Precision::F32).unwrap(), Some(true));
                }
            }
        }
    }
}

#[test]
fn between_states_the_price_is_interpolated_in_log_extreme() {
    for payoff in LOOKBACKS {
        for style in STYLES {
            for steps in [1, 2, 5, 12] {
                for state in [0.25, 1.5, 3.75] {
                    let extreme = at_state(payoff, state, steps);
                    let contract = seasoned(payoff, style, extreme, steps);
                    let want = exhaustive_interpolated(&contract).unwrap();
                    let got = priced(&contract, Strategy::Serial, Precision::F64);
                    assert!(
                        (got.price - want).abs() <= 1e-12 * want.max(1.0),
                        "{payoff:?} {style:?} N={steps} state {state}: {got:?}, want {want}"
                    );
                    assert_eq!(verify(&contract, &got, Precision::F64).unwrap(), Some(true));
                    // Between the brute-force prices of its two neighbouring states.
                    let floor = at_state(payoff, state.floor(), steps);
                    let ceil = at_state(payoff, state.ceil(), steps);
                    let (a, b) = (
                        exhaustive(&seasoned(payoff, style, floor, steps)).unwrap(),
                        exhaustive(&seasoned(payoff, style, ceil, steps)).unwrap(),
                    );
                    assert!(got.price >= a.min(b) - 1e-12 && got.price <= a.max(b) + 1e-12);
                }
            }
        }
    }
}

#[test]
fn the_spot_as_extreme_is_the_lookback_that_starts_today() {
    for payoff in LOOKBACKS {
        for style in STYLES {
            let fresh = Contract {
                observed_extreme: None,
                ..seasoned(payoff, style, 50.0, 200)
            };
            let at_spot = seasoned(payoff, style, 50.0, 200);
            for precision in [Precision::F32, Precision::F64] {
                assert_eq!(
                    priced(&fresh, Strategy::Serial, precision),
                    priced(&at_spot, Strategy::Serial, precision)
                );
            }
        }
    }
}

/// The closed form of the European seasoned lookback and its delta and gamma in the spot
/// (the extreme held), by central differences.
fn closed_form(payoff: Payoff, extreme: f64) -> [f64; 3] {
    let call = payoff == Payoff::LookbackCall;
    let at = |spot: f64| seasoned_lookback(&Market { spot, ..MARKET }, extreme, call);
    let (s, h) = (MARKET.spot, 1e-3 * MARKET.spot);
    [
        at(s),
        (at(s + h) - at(s - h)) / (2.0 * h),
        (at(s + h) - 2.0 * at(s) + at(s - h)) / (h * h),
    ]
}

#[test]
fn the_european_seasoned_price_and_greeks_approach_the_closed_form() {
    for (payoff, extreme) in [(Payoff::LookbackPut, 57.5), (Payoff::LookbackCall, 44.0)] {
        let [want, delta, gamma] = closed_form(payoff, extreme);
        let errors: Vec<f64> = [250, 1000, 4000]
            .iter()
            .map(|&steps| {
                let contract = seasoned(payoff, Style::European, extreme, steps);
                let got = priced(&contract, Strategy::Multicore, Precision::F64);
                if steps == 4000 {
                    assert!(
                        (got.delta - delta).abs() < 0.01,
                        "{payoff:?} {got:?} {delta}"
                    );
                    assert!(
                        (got.gamma / gamma - 1.0).abs() < 0.05,
                        "{payoff:?} {got:?} {gamma}"
                    );
                }
                (got.price - want).abs()
            })
            .collect();
        // Discrete monitoring: the gap shrinks like sqrt(dt), halving for four times the steps.
        assert!(
            errors[0] > errors[1] && errors[1] > errors[2],
            "{payoff:?} {errors:?}"
        );
        assert!(errors[2] < 0.02 * want, "{payoff:?} {errors:?} {want}");
    }
}

fn refusal(contract: &Contract) -> String {
    match contract.validate() {
        Err(Error::InvalidInput(message)) => message,
        other => panic!("expected invalid input, got {other:?}"),
    }
}

#[test]
fn an_extreme_on_the_wrong_side_or_on_a_vanilla_is_refused_in_one_line() {
    let cases = [
        (
            seasoned(Payoff::LookbackPut, Style::American, 49.0, 10),
            "below the spot",
        ),
        (
            seasoned(Payoff::LookbackCall, Style::American, 51.0, 10),
            "above the spot",
        ),
        (
            seasoned(Payoff::Put { strike: 50.0 }, Style::American, 55.0, 10),
            "for lookbacks",
        ),
        (
            seasoned(Payoff::LookbackPut, Style::American, f64::NAN, 10),
            "positive finite",
        ),
    ];
    for (contract, says) in cases {
        let message = refusal(&contract);
        assert!(message.contains(says), "{message:?} should say {says:?}");
        assert!(!message.contains('\n'), "{message}");
    }
}

#[test]
fn the_json_answer_names_the_extreme_and_the_tree() {
    let contract = seasoned(Payoff::LookbackPut, Style::American, 57.5, 100);
    let json = price(&contract, &options(Strategy::Serial, Precision::F64))
        .unwrap()
        .output
        .stats();
    assert_eq!(json["observed_extreme"], 57.5);
    assert_eq!(json["tree"], "crr");
    let fresh = Contract {
        observed_extreme: None,
        ..contract
    };
    let json = price(&fresh, &options(Strategy::Serial, Precision::F64))
        .unwrap()
        .output
        .stats();
    assert_eq!(json["observed_extreme"], 50.0);
}

/// The table of docs/lattice.md: the European seasoned lookbacks' error against the closed
/// form as N grows (printed with `--nocapture`), each row smaller than the one before.
#[test]
#[ignore = "slow in debug builds: lattices of up to 25,600 steps"]
fn the_error_against_the_closed_form_shrinks_with_n() {
    let cases = [
        (Payoff::LookbackPut, 50.0),
        (Payoff::LookbackPut, 52.5),
        (Payoff::LookbackPut, 60.0),
        (Payoff::LookbackCall, 45.0),
    ];
    println!("| N | put, M/S = 1 | put, M/S = 1.05 | put, M/S = 1.2 | call, m/S = 0.9 |");
    println!("|---:|---:|---:|---:|---:|");
    let mut last = [f64::INFINITY; 4];
    for steps in [100, 400, 1_600, 6_400, 25_600] {
        let mut cells = vec![];
        for (k, (payoff, extreme)) in cases.into_iter().enumerate() {
            let want = closed_form(payoff, extreme)[0];
            let contract = seasoned(payoff, Style::European, extreme, steps);
            let error = priced(&contract, Strategy::Multicore, Precision::F64).price - want;
            assert!(
                error.abs() < last[k],
                "{payoff:?} {extreme} N={steps}: {error}"
            );
            last[k] = error.abs();
            cells.push(format!("{error:+.2e}"));
        }
        println!("| {steps} | {} |", cells.join(" | "));
    }
}
