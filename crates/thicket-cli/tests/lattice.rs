//! End-to-end checks of `thicket lookback` and `thicket binomial`: the JSON keys scripts rely
//! on, prices against references computed outside thicket, books from CSV, and bad input
//! (a one-line error, exit code 2, nothing written over an existing output file).

mod common;

use std::path::Path;
use std::process::Output;

use common::{json, thicket};

/// Hull's TN13 market and Table 3.1's first row, as CLI flags.
const HULL: [&str; 10] = [
    "--spot",
    "50",
    "--maturity",
    "0.25",
    "--volatility",
    "0.4",
    "--rate",
    "0.1",
    "--steps",
    "3",
];

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `thicket <command> <args> --backend cpu --json --quiet`, parsed.
fn priced(command: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec![command];
    all.extend_from_slice(args);
    all.extend(["--backend", "cpu", "--json", "--quiet"]);
    json(&thicket(&all))
}

fn price(command: &str, args: &[&str]) -> f64 {
    priced(command, args)["price"].as_f64().expect("a price")
}

/// Asserts that `args` fail with exit code 2 and one line on stderr that contains `says`.
fn refused(args: &[&str], says: &str) {
    let output = thicket(args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
    assert_eq!(message.trim().lines().count(), 1, "{args:?}: {message}");
    assert!(message.contains(says), "{args:?}: {message}");
}

fn relative(got: f64, reference: f64) -> f64 {
    (got - reference).abs() / reference.abs().max(1.0)
}

#[test]
fn lookback_json_has_the_keys_scripts_use() {
    let value = priced("lookback", &HULL);
    for key in [
        "price",
        "delta",
        "gamma",
        "steps",
        "precision",
        "strategy",
        "backend",
        "seconds",
    ] {
        assert!(value.get(key).is_some(), "missing {key}: {value}");
    }
    assert_eq!(value["steps"], 3);
    assert_eq!(value["precision"], "f64");
    assert_eq!(value["strategy"], "multicore");
    assert_eq!(value["backend"], "cpu");
    assert!((value["price"].as_f64().unwrap() - 5.47).abs() < 0.005);
}

#[test]
fn reference_prices_from_outside_thicket_within_1e_9() {
    // data/lookback-reference.csv: t3.1-a (N = 1,000), computed with 50-digit arithmetic.
    let market = [
        "--spot",
        "50",
        "--maturity",
        "0.35",
        "--volatility",
        "0.3",
        "--rate",
        "0.10",
        "--steps",
        "1000",
    ];
    for strategy in ["serial", "multicore"] {
        let mut args = market.to_vec();
        args.extend(["--strategy", strategy]);
        assert!(relative(price("lookback", &args), 6.677206441390) < 1e-9);
        args.push("--european");
        assert!(relative(price("lookback", &args), 6.382892812321) < 1e-9);
    }
}

#[test]
fn the_american_lookback_call_prices_as_the_european_one() {
    let mut args = HULL.to_vec();
    args[9] = "200";
    args.push("--call");
    let american = price("lookback", &args);
    args.push("--european");
    assert_eq!(american, price("lookback", &args));
}

#[test]
fn f32_is_within_the_thesis_tolerance_of_f64() {
    let mut args = HULL.to_vec();
    args[9] = "2000";
    let f64_price = price("lookback", &args);
    args.extend(["--precision", "f32"]);
    let value = priced("lookback", &args);
    assert_eq!(value["precision"], "f32");
    assert!(relative(value["price"].as_f64().unwrap(), f64_price) < 1e-3);
}

#[test]
fn european_binomial_prices_obey_put_call_parity_and_approach_black_scholes() {
    let market = [
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
        "--steps",
        "2000",
        "--european",
    ];
    let put = price("binomial", &market);
    let mut call_args = market.to_vec();
    call_args.push("--call");
    let call = price("binomial", &call_args);
    // C - P = S - K e^{-rT} holds on the lattice itself.
    let parity = 100.0 - 95.0 * (-0.05f64).exp();
    assert!(
        (call - put - parity).abs() < 1e-9,
        "{call} - {put} != {parity}"
    );
    // Black-Scholes for these inputs: 13.3464 (CRR's error is O(1/N)).
    assert!((call - 13.3464).abs() < 0.01, "{call}");
}

#[test]
fn verify_reports_the_check() {
    let mut args = HULL.to_vec();
    args.push("--verify");
    assert_eq!(priced("lookback", &args)["verified"], true);
}

#[test]
fn gpu_strategies_on_the_cpu_backend_are_refused() {
    let mut args = vec!["lookback"];
    args.extend(HULL);
    args.extend(["--strategy", "tiles", "--backend", "cpu"]);
    refused(&args, "runs on a GPU");
}

#[test]
fn auto_prices_on_some_backend() {
    let mut args = vec!["lookback"];
    args.extend(HULL);
    args.extend(["--backend", "auto", "--json", "--quiet"]);
    let value = json(&thicket(&args));
    assert!((value["price"].as_f64().unwrap() - 5.4702).abs() < 1e-4);
}

#[test]
fn bad_markets_are_one_line_errors_with_exit_code_2() {
    let with = |flag: &'static str, value: &'static str| {
        let mut args = vec!["lookback"];
        args.extend(HULL);
        let at = args.iter().position(|a| *a == flag).unwrap();
        args[at + 1] = value;
        args
    };
    refused(&with("--volatility", "0"), "volatility");
    refused(&with("--volatility", "-0.4"), "volatility");
    refused(&with("--maturity", "-1"), "maturity");
    refused(&with("--steps", "0"), "steps");
    refused(&with("--spot", "nan"), "spot");
    refused(&with("--rate", "inf"), "rate");
    // e^{r dt} > u: the up probability leaves [0, 1].
    let mut args = with("--rate", "50");
    args[10] = "1";
    refused(&args, "rate");
}

#[test]
fn binomial_needs_a_positive_strike() {
    let mut args = vec!["binomial"];
    args.extend(HULL);
    refused(&args, "strike");
    args.extend(["--strike", "-5"]);
    refused(&args, "strike");
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("a scratch file");
}

#[test]
fn a_book_is_priced_to_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.csv");
    write(
        &book,
        "payoff,style,spot,strike,maturity,volatility,rate,steps\n\
         lookback-put,american,50,,0.25,0.4,0.1,3\n\
         call,european,100,95,1,0.2,0.05,200\n",
    );
    let csv = dir.path().join("prices.csv");
    let output = thicket(&[
        "lookback",
        "--batch",
        book.to_str().unwrap(),
        "--output",
        csv.to_str().unwrap(),
        "--backend",
        "cpu",
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains("5.470181"), "{text}");
    let value = json(&thicket(&[
        "binomial",
        "--batch",
        book.to_str().unwrap(),
        "--backend",
        "cpu",
        "--json",
        "--quiet",
    ]));
    assert_eq!(value["options"], 2);
    assert_eq!(value["priced"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_bad_book_row_names_file_line_and_column_and_leaves_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.csv");
    write(
        &book,
        "payoff,style,spot,strike,maturity,volatility,rate,steps\n\
         lookback-put,american,50,,0.25,0.4,0.1,3\n\
         lookback-put,american,fifty,,0.25,0.4,0.1,3\n",
    );
    let out = dir.path().join("prices.csv");
    write(&out, "kept\n");
    let args = [
        "lookback",
        "--batch",
        book.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--backend",
        "cpu",
    ];
    let output = thicket(&args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("book.csv"), "{message}");
    assert!(message.contains('3'), "line 3: {message}");
    assert!(message.contains("spot"), "{message}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

#[test]
fn help_explains_the_main_flags() {
    for command in ["lookback", "binomial"] {
        let output = thicket(&[command, "--help"]);
        let text = String::from_utf8_lossy(&output.stdout);
        for flag in [
            "--spot",
            "--volatility",
            "--steps",
            "--precision",
            "--strategy",
            "--batch",
        ] {
            assert!(text.contains(flag), "{command} --help lacks {flag}");
        }
    }
    let text = String::from_utf8_lossy(&thicket(&["binomial", "--help"]).stdout).into_owned();
    assert!(text.contains("--strike"));
}
