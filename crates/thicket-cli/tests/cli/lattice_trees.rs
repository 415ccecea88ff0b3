//! End-to-end checks of `thicket binomial --tree` and `thicket lookback --observed-max/--observed-min`
//! (and the same inputs of `thicket implied-vol`): the JSON keys `tree` and
//! `observed_extreme`, prices against the independent references in `thicket-lattice/data/`,
//! and one-line refusals with exit code 2.

use crate::common::{json, stderr, stdout, thicket};
use serde_json::Value;

/// The market of `thicket-lattice/data/trees-reference.csv`'s first rows: S = 100, K = 95,
/// T = 1, σ = 0.2, r = 0.05.
const MARKET: &[&str] = &[
    "--spot",
    "100",
    "--strike",
    "95",
    "--maturity",
    "1",
    "--volatility",
    "0.2",
    "--rate",
    "0.05",
];

/// The seasoned lookbacks' market: S = 50, T = 0.5, σ = 0.3, r = 0.06.
const LOOKBACK: &[&str] = &[
    "--spot",
    "50",
    "--maturity",
    "0.5",
    "--volatility",
    "0.3",
    "--rate",
    "0.06",
];

fn cpu_json(command: &str, args: &[&str]) -> Value {
    let common = [command, "--backend", "cpu", "--json", "--quiet"];
    json(&thicket(&[&common[..], args].concat()))
}

/// Asserts a failure with exit code 2 and one line on stderr naming each of `words`.
fn assert_refused<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S], words: &[&str]) {
    let output = thicket(args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
    assert_eq!(message.trim().lines().count(), 1, "{args:?}: {message}");
    for word in words {
        assert!(message.contains(word), "{message:?} should name {word:?}");
    }
    assert!(stdout(&output).is_empty());
}

#[test]
fn each_tree_prices_as_the_numpy_reference_and_is_named_in_json() {
    // Rows of trees-reference.csv: put, european, 101 steps, no dividends.
    for (tree, want) in [
        ("crr", None),
        ("jarrow-rudd", None),
        ("tian", None),
        ("leisen-reimer", Some(3.713_237_802_285_044)),
    ] {
        let mut args = MARKET.to_vec();
        args.extend(["--steps", "101", "--european", "--tree", tree]);
        let value = cpu_json("binomial", &args);
        assert_eq!(value["tree"], tree, "{value}");
        assert!(value["observed_extreme"].is_null(), "{value}");
        let price = value["price"].as_f64().unwrap();
        if let Some(want) = want {
            assert!((price - want).abs() < 1e-10, "{tree}: {price} vs {want}");
        }
        // Black–Scholes–Merton's put is 3.7133 (the closed form outside thicket).
        assert!((price - 3.7133).abs() < 0.02, "{tree}: {price}");
    }
}

#[test]
fn an_even_leisen_reimer_and_an_unknown_tree_are_refused() {
    let mut args = vec!["binomial", "--backend", "cpu"];
    args.extend(MARKET);
    let mut even = args.clone();
    even.extend(["--steps", "100", "--tree", "leisen-reimer"]);
    assert_refused(&even, &["odd", "99", "101"]);
    let mut unknown = args.clone();
    unknown.extend(["--steps", "101", "--tree", "boyle"]);
    let output = thicket(&unknown);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn a_seasoned_lookback_names_its_extreme_and_is_worth_more() {
    let mut args = LOOKBACK.to_vec();
    args.extend(["--steps", "200"]);
    let fresh = cpu_json("lookback", &args);
    assert_eq!(fresh["observed_extreme"], 50.0, "{fresh}");
    let mut seasoned = args.clone();
    seasoned.extend(["--observed-max", "57.5"]);
    let value = cpu_json("lookback", &seasoned);
    assert_eq!(value["observed_extreme"], 57.5, "{value}");
    assert_eq!(value["tree"], "crr", "{value}");
    assert!(
        value["price"].as_f64() > fresh["price"].as_f64(),
        "{value} {fresh}"
    );
    let mut call = args.clone();
    call.extend(["--call", "--observed-min", "44"]);
    let value = cpu_json("lookback", &call);
    assert_eq!(value["observed_extreme"], 44.0, "{value}");
}

#[test]
fn an_extreme_on_the_wrong_side_or_of_the_other_option_is_refused() {
    let mut args = vec!["lookback", "--backend", "cpu"];
    args.extend(LOOKBACK);
    args.extend(["--steps", "50"]);
    let mut below = args.clone();
    below.extend(["--observed-max", "45"]);
    assert_refused(&below, &["maximum", "45", "below the spot"]);
    let mut min_of_put = args.clone();
    min_of_put.extend(["--observed-min", "45"]);
    assert_refused(&min_of_put, &["--observed-min", "--observed-max"]);
    let mut max_of_call = args.clone();
    max_of_call.extend(["--call", "--observed-max", "55"]);
    assert_refused(&max_of_call, &["--observed-max", "--observed-min"]);
}

#[test]
fn implied_vol_takes_the_tree_and_the_observed_extreme() {
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "binomial",
            &["--tree", "leisen-reimer", "--strike", "52"],
            &[
                "--payoff",
                "put",
                "--tree",
                "leisen-reimer",
                "--strike",
                "52",
            ],
        ),
        (
            "lookback",
            &["--observed-max", "57.5"],
            &["--payoff", "lookback-put", "--observed-max", "57.5"],
        ),
    ];
    for (command, pricing, asking) in cases {
        let market = [
            "--spot",
            "50",
            "--maturity",
            "0.5",
            "--rate",
            "0.06",
            "--steps",
            "151",
        ];
        let mut args = market.to_vec();
        args.extend(pricing);
        args.extend(["--volatility", "0.27"]);
        let price = cpu_json(command, &args)["price"]
            .as_f64()
            .unwrap()
            .to_string();
        let mut implied = vec!["implied-vol", "--json", "--price", &price];
        implied.extend(market);
        implied.extend(asking);
        let value = json(&thicket(&implied));
        let volatility = value["volatility"].as_f64().unwrap();
        assert!((volatility - 0.27).abs() < 1e-9, "{command}: {value}");
    }
}

/// A put on a stock at 100 over a year of 3 steps at a rate of 60%, at `volatility` on
/// `tree` with `strike`: the drift of a step outgrows the volatility at a low enough one.
fn high_rate_put(tree: &str, strike: &str, volatility: &str) -> Vec<String> {
    [
        "binomial",
        "--backend",
        "cpu",
        "--spot",
        "100",
        "--maturity",
        "1",
        "--rate",
        "0.6",
        "--steps",
        "3",
        "--tree",
        tree,
        "--strike",
        strike,
        "--volatility",
        volatility,
    ]
    .map(String::from)
    .to_vec()
}

/// The words of the one message every tree's step outside its range gives.
const RANGE: &str = "leave the valid range u > 1 > d > 0, 0 <= p <= 1";

#[test]
fn every_tree_refuses_a_step_outside_its_range_and_prices_just_inside() {
    // Each tree's edge at this market (outside thicket, by bisection on its formulas): CRR's
    // p = 1 at 0.34641, Jarrow–Rudd's d = 1 at 0.31734, Tian's d = 1 at 0.46344 and
    // Leisen–Reimer's p = 1 at 0.05870 (strike 95). Just past the edge: refused, naming the
    // range and the tree; just inside: priced, worth something at the money.
    for (tree, strike, outside, inside) in [
        ("crr", "100", "0.3460", "0.3468"),
        ("jarrow-rudd", "100", "0.3170", "0.3177"),
        ("tian", "100", "0.4630", "0.4639"),
        ("leisen-reimer", "95", "0.0586", "0.0588"),
    ] {
        let refused = high_rate_put(tree, strike, outside);
        let name = format!("of the {tree} tree");
        assert_refused(&refused, &[RANGE, &name, "rate 0.6", "steps 3"]);
        let mut priced = high_rate_put(tree, strike, inside);
        priced.extend(["--json".into(), "--quiet".into()]);
        let value = json(&thicket(&priced));
        assert!(
            value["price"].as_f64().is_some_and(|p| p > 0.0),
            "{tree}: {value}"
        );
    }
    // The case: Tian's d above 1 (a large volatility and rate over few steps) priced
    // the put at exactly 0 with every greek 0, exit 0.
    let mut tian = high_rate_put("tian", "95", "1.5");
    tian[8] = "3".into();
    assert_refused(&tian, &[RANGE, "d = 2.089"]);
    // Tian's d climbs back above 1 at a high volatility: refused there too.
    assert_refused(&high_rate_put("tian", "100", "2.5"), &[RANGE]);
}

#[test]
fn a_book_row_outside_its_trees_range_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("trees.csv");
    std::fs::write(
        &book,
        "payoff,style,spot,strike,maturity,volatility,rate,steps,tree\n\
         put,american,100,100,1,0.3468,0.6,3,crr\n\
         put,american,100,95,1,1.5,3,3,tian\n",
    )
    .unwrap();
    let book = book.to_str().unwrap();
    for command in ["lookback", "binomial"] {
        assert_refused(
            &[command, "--batch", book, "--backend", "cpu"],
            &["trees.csv:3: the up probability", RANGE, "tian tree"],
        );
    }
}

#[test]
fn implied_vol_searches_only_where_the_tree_is_valid() {
    // Jarrow–Rudd's tree is valid here from 0.31734, below CRR's edge (0.34641), where the
    // search used to start: a quote priced at 0.33 is found.
    let mut pricing = high_rate_put("jarrow-rudd", "100", "0.33");
    pricing.extend(["--json".into(), "--quiet".into()]);
    let price = json(&thicket(&pricing))["price"]
        .as_f64()
        .unwrap()
        .to_string();
    let asking = [
        "implied-vol",
        "--json",
        "--payoff",
        "put",
        "--strike",
        "100",
        "--spot",
        "100",
        "--maturity",
        "1",
        "--rate",
        "0.6",
        "--steps",
        "3",
        "--tree",
        "jarrow-rudd",
        "--price",
        &price,
    ];
    let value = json(&thicket(&asking));
    let volatility = value["volatility"].as_f64().unwrap();
    assert!((volatility - 0.33).abs() < 1e-9, "{value}");
    // Tian's tree is valid at no volatility at a rate of 300% over steps of 4 months: one
    // line saying so, not a bare lattice error of some volatility.
    let mut never = asking.to_vec();
    never[11] = "3";
    never[15] = "tian";
    never[17] = "5";
    assert_refused(
        &never,
        &["no volatility from", "gives a valid lattice", "tian tree"],
    );
}
