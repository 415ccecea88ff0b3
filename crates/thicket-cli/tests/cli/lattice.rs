//! End-to-end checks of `thicket lookback` and `thicket binomial`: the JSON keys scripts rely
//! on, prices against references computed outside thicket (`thicket-lattice/data/`, Hull's
//! examples, Black–Scholes, put–call parity), the GPU fallback, one-line errors with exit code 2
//! for bad input, and books of options priced from CSV files.
//!
//! The GPU tests expect a machine without a usable GPU (CI, developer laptops) and say so
//! instead of testing anything where one is found.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{assert_usage_error, gpu_present, json, stderr, stdout, thicket};
use serde_json::Value;

/// Hull's Technical Note 13 market on 3 steps: S = 50, T = 0.25, σ = 0.4, r = 0.1.
const HULL_TN13: &[&str] = &[
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

/// Hull's Black–Scholes example, a vanilla with S = 42, K = 40, T = 0.5, σ = 0.2, r = 0.1
/// (no steps: each test picks its own).
const HULL_VANILLA: &[&str] = &[
    "--spot",
    "42",
    "--strike",
    "40",
    "--maturity",
    "0.5",
    "--volatility",
    "0.2",
    "--rate",
    "0.1",
];

/// The Black–Scholes prices of [`HULL_VANILLA`], from the closed form evaluated outside thicket
/// (Python's `math.erf`); Hull quotes them as 4.76 and 0.81.
const BLACK_SCHOLES_CALL: f64 = 4.759_422_392_871_535;
const BLACK_SCHOLES_PUT: f64 = 0.808_599_372_900_095_8;

/// The reference table of the lookback put (see `thicket-lattice/data/README.md`).
const REFERENCE: &str = include_str!("../../../thicket-lattice/data/lookback-reference.csv");

/// The columns of a book of options, in the order the batch reader documents.
const BOOK_HEADER: &str = "payoff,style,spot,strike,maturity,volatility,rate,steps";

/// A small book: Hull's TN13 lookback put, a lookback call, Hull's vanilla call and his
/// five-step American put.
const BOOK: &[&str] = &[
    "lookback-put,american,50,,0.25,0.4,0.1,3",
    "lookback-call,european,50,,0.35,0.3,0.1,100",
    "call,european,42,40,0.5,0.2,0.1,200",
    "put,american,50,50,0.4166666666666667,0.4,0.1,5",
];

/// `thicket command args… --backend cpu --json --quiet`, the JSON it printed.
fn cpu_json(command: &str, args: &[&str]) -> Value {
    let common = [command, "--backend", "cpu", "--json", "--quiet"];
    json(&thicket(&[&common[..], args].concat()))
}

/// The price of a CPU run of `command` with `args`.
fn cpu_price(command: &str, args: &[&str]) -> f64 {
    let value = cpu_json(command, args);
    value["price"]
        .as_f64()
        .unwrap_or_else(|| panic!("no price in {value}"))
}

/// Whether `got` is within `tolerance` of `want`, relative to max(1, |want|) as the library's
/// own verification measures it.
fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * want.abs().max(1.0)
}

/// `args` with `flag`'s value replaced by `value`, written `flag=value` so that a leading minus
/// reads as a number; with `flag` left out for `None`.
fn with_flag(args: &[&str], flag: &str, value: Option<&str>) -> Vec<String> {
    let at = args
        .iter()
        .position(|a| *a == flag)
        .expect("the flag is there");
    let mut changed: Vec<String> = [&args[..at], &args[at + 2..]]
        .concat()
        .into_iter()
        .map(String::from)
        .collect();
    changed.extend(value.map(|value| format!("{flag}={value}")));
    changed
}

/// Asserts that `output` failed with `code` and one line on stderr containing each of `words`,
/// without a panic or a backtrace.
fn assert_one_line_error(output: &Output, code: i32, words: &[&str], what: &str) {
    let message = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{what}: {message}");
    assert_eq!(message.trim().lines().count(), 1, "{what}: {message}");
    assert!(
        !message.contains("panicked") && !message.contains("backtrace"),
        "{what}: {message}"
    );
    for word in words {
        assert!(
            message.contains(word),
            "{what}: {message:?} should name {word:?}"
        );
    }
    assert!(stdout(output).is_empty(), "{what}: {}", stdout(output));
}

/// One row of the reference table: its id, the lattice flags and the high-precision American
/// and European prices of the lookback put.
struct ReferenceRow {
    id: String,
    flags: Vec<String>,
    american: f64,
    european: f64,
}

/// The reference rows with at most `max_steps` steps (larger ones are slow in a debug build).
fn reference_rows(max_steps: usize) -> Vec<ReferenceRow> {
    let mut lines = REFERENCE.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let flags = [
        ("--spot", column("S")),
        ("--maturity", column("T")),
        ("--volatility", column("sigma")),
        ("--rate", column("r")),
        ("--steps", column("N")),
    ];
    let (id, steps) = (column("id"), column("N"));
    let (american, european) = (column("american_hp"), column("european_hp"));
    lines
        .map(|line| line.split(',').collect::<Vec<_>>())
        .filter(|fields| fields[steps].parse::<usize>().expect("whole N") <= max_steps)
        .map(|fields| ReferenceRow {
            id: fields[id].to_string(),
            flags: flags
                .iter()
                .flat_map(|&(flag, i)| [flag.to_string(), fields[i].to_string()])
                .collect(),
            american: fields[american].parse().expect("a price"),
            european: fields[european].parse().expect("a price"),
        })
        .collect()
}

impl ReferenceRow {
    /// The row's flags followed by `extra`.
    fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args: Vec<&str> = self.flags.iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        args
    }
}

/// Writes `rows` under [`BOOK_HEADER`] as `name` in `dir`.
fn write_book(dir: &Path, name: &str, rows: &[&str]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("{BOOK_HEADER}\n{}\n", rows.join("\n"))).unwrap();
    path
}

/// `thicket lookback --batch book --output out --backend cpu --quiet` and more `args`.
fn price_book(book: &Path, out: &Path, args: &[&str]) -> Output {
    let book = book.to_str().expect("a UTF-8 path");
    let out = out.to_str().expect("a UTF-8 path");
    let flags = [
        "lookback",
        "--batch",
        book,
        "--output",
        out,
        "--backend",
        "cpu",
        "--quiet",
    ];
    thicket(&[&flags[..], args].concat())
}

#[test]
fn json_has_every_key_scripts_rely_on() {
    let vanilla = [HULL_VANILLA, &["--steps", "3"]].concat();
    for (command, args, payoff) in [
        ("lookback", HULL_TN13, "lookback-put"),
        ("binomial", &vanilla[..], "put"),
    ] {
        let value = cpu_json(command, args);
        for key in ["price", "delta", "gamma"] {
            assert!(
                value[key].as_f64().is_some_and(f64::is_finite),
                "{key}: {value}"
            );
        }
        assert_eq!(value["steps"], 3, "{value}");
        assert_eq!(value["precision"], "f64", "{value}");
        assert_eq!(value["strategy"], "multicore", "{value}");
        assert_eq!(value["backend"], "cpu", "{value}");
        assert_eq!(value["payoff"], payoff, "{value}");
        assert_eq!(value["style"], "american", "{value}");
        assert!(
            value["seconds"].as_f64().is_some_and(|s| s >= 0.0),
            "{value}"
        );
    }
}

#[test]
fn vega_and_rho_are_priced_only_when_asked() {
    for command in ["lookback", "binomial"] {
        let market = match command {
            "lookback" => HULL_TN13.to_vec(),
            _ => [HULL_VANILLA, &["--steps", "50"]].concat(),
        };
        let basic = cpu_json(command, &market);
        assert!(basic["vega"].is_null() && basic["rho"].is_null(), "{basic}");
        assert!(basic["theta"].as_f64().is_some(), "{basic}");
        let old_flag = cpu_json(command, &[&market[..], &["--no-vega-rho"]].concat());
        assert_eq!(old_flag["price"], basic["price"], "{old_flag}");
        assert!(old_flag["vega"].is_null(), "{old_flag}");
        let all = cpu_json(command, &[&market[..], &["--greeks", "all"]].concat());
        assert_eq!(all["price"], basic["price"], "{all}");
        assert!(all["vega"].as_f64().is_some_and(|v| v > 0.0), "{all}");
        assert!(all["rho"].as_f64().is_some(), "{all}");
    }
    let both = [
        &["lookback"],
        HULL_TN13,
        &["--greeks", "all", "--no-vega-rho"],
    ]
    .concat();
    assert_usage_error(&thicket(&both), &["--no-vega-rho"], "both flags");
}

#[test]
fn hulls_tn13_lookback_put_is_worth_5_47() {
    let price = cpu_price("lookback", HULL_TN13);
    assert_eq!(format!("{price:.2}"), "5.47");
    // The reference table's high-precision value of the same lattice, 5.4701813761337739608.
    assert!(close(price, 5.470_181_376_133_774, 1e-9), "{price}");
    let text = stdout(&thicket(
        &[&["lookback", "--backend", "cpu"], HULL_TN13].concat(),
    ));
    assert!(text.contains("price      5.4701813761"), "{text}");
}

#[test]
fn reference_lookback_puts_match_on_serial_and_multicore() {
    let rows = reference_rows(5_000);
    assert!(rows.len() >= 4, "the table has small-N rows");
    for row in &rows {
        for strategy in ["serial", "multicore"] {
            let american = cpu_price("lookback", &row.args(&["--strategy", strategy]));
            let european = cpu_price(
                "lookback",
                &row.args(&["--strategy", strategy, "--european"]),
            );
            let what = format!("{} on {strategy}", row.id);
            assert!(close(american, row.american, 1e-9), "{what}: {american}");
            assert!(close(european, row.european, 1e-9), "{what}: {european}");
        }
    }
}

/// Without dividends early exercise of a floating-strike lookback call never pays (its
/// continuation value S − e^{−r(T−t)}·min exceeds S − min for r > 0), so the lattice's American
/// and European prices are the same number.
#[test]
fn american_lookback_call_equals_the_european_one() {
    for row in reference_rows(1_000) {
        for strategy in ["serial", "multicore"] {
            let american = cpu_price("lookback", &row.args(&["--call", "--strategy", strategy]));
            let european = cpu_price(
                "lookback",
                &row.args(&["--call", "--european", "--strategy", strategy]),
            );
            assert_eq!(american, european, "{} on {strategy}", row.id);
            assert!(american > 0.0, "{}: {american}", row.id);
        }
    }
}

#[test]
fn european_vanillas_converge_to_black_scholes() {
    let args = [HULL_VANILLA, &["--steps", "2000", "--european"]].concat();
    let call = cpu_json("binomial", &[&args[..], &["--call"]].concat());
    let put = cpu_price("binomial", &args);
    // The CRR error falls like 1/N; at N = 2000 it is about 1e-4 here.
    let price = call["price"].as_f64().unwrap();
    assert!((price - BLACK_SCHOLES_CALL).abs() < 1e-3, "call {price}");
    assert!((put - BLACK_SCHOLES_PUT).abs() < 1e-3, "put {put}");
    // Black–Scholes delta of the call, N(d1), from the same outside computation.
    let delta = call["delta"].as_f64().unwrap();
    assert!(
        (delta - 0.779_131_290_942_669).abs() < 1e-3,
        "delta {delta}"
    );
}

/// On the lattice the discounted stock is a martingale, so C − P = S − K·e^{−rT} holds exactly
/// in exact arithmetic; in f64 each of the N layers may round, hence N·ε·S.
#[test]
fn european_put_call_parity_holds_on_the_lattice() {
    let steps = 2_000;
    let n = steps.to_string();
    let args = [HULL_VANILLA, &["--steps", &n, "--european"]].concat();
    let call = cpu_price("binomial", &[&args[..], &["--call"]].concat());
    let put = cpu_price("binomial", &args);
    let forward = 42.0 - 40.0 * (-0.1f64 * 0.5).exp();
    let tolerance = steps as f64 * f64::EPSILON * 42.0;
    assert!(
        (call - put - forward).abs() <= tolerance,
        "C − P = {}, S − K·e^(−rT) = {forward}",
        call - put
    );
}

#[test]
fn american_vanillas_match_hull_and_calls_are_never_exercised_early() {
    // Hull's five-step American put: S = K = 50, r = 0.1, σ = 0.4, T = 5 months, worth 4.49.
    let put = cpu_price(
        "binomial",
        &[
            "--spot",
            "50",
            "--strike",
            "50",
            "--maturity",
            "0.4166666666666667",
            "--volatility",
            "0.4",
            "--rate",
            "0.1",
            "--steps",
            "5",
        ],
    );
    assert_eq!(format!("{put:.2}"), "4.49");
    // Without dividends an American call is worth its European twin.
    let args = [HULL_VANILLA, &["--steps", "500", "--call"]].concat();
    let american = cpu_price("binomial", &args);
    let european = cpu_price("binomial", &[&args[..], &["--european"]].concat());
    assert_eq!(american, european);
}

#[test]
fn f32_is_within_a_thousandth_of_f64() {
    let vanilla = [HULL_VANILLA, &["--steps", "2000"]].concat();
    let sweep = reference_rows(1_000)
        .into_iter()
        .find(|row| row.id == "sweep-1000")
        .expect("the sweep-1000 row");
    let cases = [
        ("lookback", HULL_TN13.to_vec()),
        ("lookback", sweep.args(&[])),
        ("lookback", sweep.args(&["--call"])),
        ("binomial", vanilla.clone()),
        (
            "binomial",
            [&vanilla[..], &["--call", "--european"]].concat(),
        ),
    ];
    for (command, args) in cases {
        let f64_price = cpu_price(command, &args);
        let f32_run = cpu_json(command, &[&args[..], &["--precision", "f32"]].concat());
        assert_eq!(f32_run["precision"], "f32");
        let f32_price = f32_run["price"].as_f64().unwrap();
        assert!(
            close(f32_price, f64_price, 1e-3),
            "{command} {args:?}: f32 {f32_price}, f64 {f64_price}"
        );
    }
}

#[test]
fn verify_and_trials_are_reported() {
    let vanilla = [HULL_VANILLA, &["--steps", "200"]].concat();
    for (command, args) in [
        // N <= 14: checked against every path of the tree.
        ("lookback", HULL_TN13.to_vec()),
        // Larger: checked against the f64 serial lattice.
        ("binomial", vanilla),
    ] {
        for precision in ["f64", "f32"] {
            let extra = ["--verify", "--trials", "2", "--precision", precision];
            let value = cpu_json(command, &[&args[..], &extra].concat());
            assert_eq!(value["verified"], true, "{command} {precision}: {value}");
            assert_eq!(value["trial_seconds"].as_array().map(Vec::len), Some(2));
        }
    }
    // The text names the reference it checked against.
    let verify = ["lookback", "--backend", "cpu", "--verify"];
    let text = stdout(&thicket(&[&verify[..], HULL_TN13].concat()));
    assert!(text.contains("verified   against every path"), "{text}");
    let larger = with_flag(&[&verify[..], HULL_TN13].concat(), "--steps", Some("20"));
    let text = stdout(&thicket(&larger));
    assert!(
        text.contains("verified   against the f64 serial lattice"),
        "{text}"
    );
}

#[test]
fn cuda_backend_without_gpu_fails_with_one_line() {
    if gpu_present("cuda_backend_without_gpu_fails_with_one_line") {
        return;
    }
    let vanilla = [HULL_VANILLA, &["--steps", "3"]].concat();
    for args in [
        [&["lookback", "--backend", "cuda"], HULL_TN13].concat(),
        [&["binomial", "--backend", "cuda", "--json"], &vanilla[..]].concat(),
    ] {
        assert_one_line_error(&thicket(&args), 1, &["unavailable"], &args.join(" "));
    }
}

#[test]
fn auto_backend_falls_back_to_the_cpu_and_says_so() {
    if gpu_present("auto_backend_falls_back_to_the_cpu_and_says_so") {
        return;
    }
    let output = thicket(&[&["lookback", "--json"], HULL_TN13].concat());
    let value = json(&output);
    assert_eq!(value["backend"], "cpu");
    assert_eq!(value["strategy"], "multicore");
    assert_eq!(value["price"], cpu_json("lookback", HULL_TN13)["price"]);
    let note = stderr(&output);
    assert_eq!(note.trim().lines().count(), 1, "{note}");
    assert!(note.contains("CPU"), "{note}");
}

/// A strategy of the other backend than the one asked for is a contradiction in the flags,
/// refused before any GPU is looked for, so these hold with or without one.
#[test]
fn strategies_of_the_other_backend_are_refused() {
    for (strategy, backend) in [
        ("tiles", "cpu"),
        ("thesis", "cpu"),
        ("hybrid", "cpu"),
        ("serial", "cuda"),
        ("multicore", "cuda"),
    ] {
        let flags = ["lookback", "--strategy", strategy, "--backend", backend];
        let output = thicket(&[&flags[..], HULL_TN13].concat());
        assert_one_line_error(&output, 2, &[strategy], &flags.join(" "));
    }
}

/// Like `--strategy bp-dfs` of `perm-queens`, a GPU strategy under `--backend auto` needs the
/// GPU: without one it should fail with one line, not announce a fallback to the CPU first.
#[test]
fn gpu_strategy_under_auto_without_gpu_fails_with_one_line() {
    if gpu_present("gpu_strategy_under_auto_without_gpu_fails_with_one_line") {
        return;
    }
    for strategy in ["tiles", "thesis", "hybrid"] {
        let flags = ["lookback", "--strategy", strategy];
        let output = thicket(&[&flags[..], HULL_TN13].concat());
        assert_one_line_error(&output, 1, &["unavailable"], &flags.join(" "));
    }
    let dir = tempfile::tempdir().unwrap();
    let book = write_book(dir.path(), "book.csv", BOOK);
    let book = book.to_str().expect("a UTF-8 path");
    let output = thicket(&["lookback", "--batch", book, "--strategy", "tiles"]);
    assert_one_line_error(&output, 1, &["unavailable"], "a book on tiles");
}

#[test]
fn bad_values_exit_with_two_and_name_them() {
    let hull = [&["lookback", "--backend", "cpu"], HULL_TN13].concat();
    let cases = [
        ("--volatility", "0", "volatility"),
        ("--volatility", "-0.4", "volatility"),
        ("--maturity", "0", "maturity"),
        ("--maturity", "-1", "maturity"),
        ("--maturity", "inf", "maturity"),
        ("--steps", "0", "steps"),
        ("--steps", "-3", "--steps"),
        ("--steps", "3.5", "--steps"),
        ("--steps", "200000000", "steps"),
        ("--spot", "nan", "spot"),
        ("--spot", "-50", "spot"),
        ("--spot", "1e400", "spot"),
        ("--spot", "abc", "--spot"),
        ("--rate", "inf", "rate"),
        ("--rate", "-inf", "rate"),
        ("--rate", "NaN", "rate"),
        // |r·T| beyond 80 would overflow the lattice's units of a bond in f32.
        ("--rate", "400", "rate × maturity"),
    ];
    for (flag, value, name) in cases {
        let args = with_flag(&hull, flag, Some(value));
        // A value that is not a number of the flag's type is clap's error, rendered as clap
        // renders it; a number the lattice refuses is the library's, on one line.
        let clap_rejects = match flag {
            "--steps" => value.parse::<usize>().is_err(),
            _ => value.parse::<f64>().is_err(),
        };
        match clap_rejects {
            true => assert_usage_error(&thicket(&args), &[name], &args.join(" ")),
            false => assert_one_line_error(&thicket(&args), 2, &[name], &args.join(" ")),
        }
    }
    // Without `=` a negative number is still read as a value, not as a flag.
    let mut spaced = with_flag(&hull, "--spot", None);
    spaced.extend(["--spot".into(), "-50".into()]);
    assert_one_line_error(&thicket(&spaced), 2, &["spot is -50"], "--spot -50");
    let mut spaced = with_flag(&hull, "--rate", None);
    spaced.extend(["--rate".into(), "-inf".into()]);
    assert_one_line_error(&thicket(&spaced), 2, &["rate is -inf"], "--rate -inf");
    let mut spaced = with_flag(&hull, "--steps", None);
    spaced.extend(["--steps".into(), "-3".into()]);
    assert_usage_error(&thicket(&spaced), &["'-3'"], "--steps -3");
}

#[test]
fn an_up_probability_outside_zero_one_names_its_parameters() {
    let hull = [&["lookback", "--backend", "cpu"], HULL_TN13].concat();
    // exp(r·dt) far above u = exp(σ·sqrt(dt)): a rate of 50 over steps of a month.
    let names = ["up probability", "rate", "volatility", "maturity", "steps"];
    let high = with_flag(&hull, "--rate", Some("50"));
    assert_one_line_error(&thicket(&high), 2, &names, "rate 50");
    // A negative rate the other way: exp(r·dt) below d. The message states the range every
    // tree keeps, Hull's lattice (CRR) included.
    let low = with_flag(&hull, "--rate", Some("-50"));
    let range = ["of the crr tree leave the valid range u > 1 > d > 0, 0 <= p <= 1"];
    assert_one_line_error(&thicket(&low), 2, &range, "rate -50");
    // Just inside the range (r·dt just below σ·sqrt(dt): r < 0.4/sqrt(1/12) = 1.3856) the
    // lookback prices; just outside it is refused.
    let inside = with_flag(HULL_TN13, "--rate", Some("1.3855"));
    let inside: Vec<&str> = inside.iter().map(String::as_str).collect();
    let edge = cpu_json("lookback", &inside);
    assert!(edge["price"].as_f64().is_some_and(|p| p > 0.0), "{edge}");
    let past = with_flag(&hull, "--rate", Some("1.3857"));
    assert_one_line_error(&thicket(&past), 2, &range, "rate 1.3857");
}

#[test]
fn json_beside_a_priced_book_on_stdout_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let book = write_book(dir.path(), "book.csv", BOOK);
    let book = book.to_str().unwrap();
    for command in ["lookback", "binomial"] {
        // Without --output the book goes to stdout, as with --output -: JSON beside it is
        // two answers there (docs/cli.md, "Clean output").
        for extra in [&[][..], &["--output", "-"]] {
            let mut args = vec![command, "--batch", book, "--backend", "cpu", "--json"];
            args.extend(extra);
            assert_one_line_error(
                &thicket(&args),
                2,
                &["--json", "--output", "stdout"],
                &args.join(" "),
            );
        }
        // With the book in a file, the JSON has stdout to itself.
        let out = dir.path().join(format!("{command}.csv"));
        let value = json(&thicket(&[
            command,
            "--batch",
            book,
            "--backend",
            "cpu",
            "--json",
            "--quiet",
            "--output",
            out.to_str().unwrap(),
        ]));
        assert_eq!(value["options"], BOOK.len(), "{value}");
        assert!(std::fs::read_to_string(&out)
            .unwrap()
            .starts_with(BOOK_HEADER));
    }
}

#[test]
fn strikes_are_checked_and_required_by_binomial_only() {
    let binomial = [
        &["binomial", "--backend", "cpu", "--steps", "3"],
        HULL_VANILLA,
    ]
    .concat();
    for strike in ["-40", "0", "nan", "inf"] {
        let args = with_flag(&binomial, "--strike", Some(strike));
        assert_one_line_error(&thicket(&args), 2, &["strike"], &args.join(" "));
    }
    let missing = with_flag(&binomial, "--strike", None);
    assert_usage_error(&thicket(&missing), &["--strike", "Usage:"], "no --strike");
    let lookback = [
        &["lookback", "--backend", "cpu", "--strike", "40"],
        HULL_TN13,
    ]
    .concat();
    assert_usage_error(&thicket(&lookback), &["--strike"], "lookback --strike");
}

#[test]
fn a_book_is_priced_into_csv_and_json_files() {
    let dir = tempfile::tempdir().unwrap();
    let book = write_book(dir.path(), "book.csv", BOOK);
    let csv = dir.path().join("prices.csv");
    let output = price_book(&book, &csv, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!("{BOOK_HEADER},price,delta,gamma,theta,vega,rho")
    );
    assert_eq!(lines.len(), BOOK.len() + 1, "{text}");
    let csv_prices: Vec<f64> = lines[1..]
        .iter()
        .zip(BOOK)
        .map(|(line, row)| {
            // Each line is the input row as it was, then its price and greeks.
            let priced = line
                .strip_prefix(&format!("{row},"))
                .expect("the input row");
            priced.split(',').next().unwrap().parse().unwrap()
        })
        .collect();
    // The first row is Hull's TN13 put, priced as a single option would be.
    assert_eq!(csv_prices[0], cpu_price("lookback", HULL_TN13));

    let json_file = dir.path().join("prices.json");
    let output = price_book(&book, &json_file, &["--strategy", "serial"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap())
        .expect("one JSON object");
    assert_eq!(value["options"], BOOK.len());
    assert_eq!(value["strategy"], "serial");
    let json_prices: Vec<f64> = value["priced"]
        .as_array()
        .expect("a priced array")
        .iter()
        .map(|p| p["price"].as_f64().unwrap())
        .collect();
    // serial and multicore price a book identically.
    assert_eq!(json_prices, csv_prices);
}

#[test]
fn a_malformed_book_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = BOOK.to_vec();
    rows[2] = "call,european,42,40,0.5,abc,0.1,200";
    let book = write_book(dir.path(), "bad.csv", &rows);
    let output = price_book(&book, &dir.path().join("out.csv"), &[]);
    let want = ["bad.csv:4: column volatility", "\"abc\""];
    assert_one_line_error(&output, 2, &want, "bad volatility");
}

/// `--output` is replaced only once the whole book is priced: a bad row, an invalid option or
/// a refused strategy leaves an existing file as it was, and no temporary file beside it.
#[test]
fn a_failed_book_leaves_the_existing_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    std::fs::write(&out, "yesterday's prices\n").unwrap();
    let mut malformed = BOOK.to_vec();
    malformed[3] = "put,american,50,50,0.4166666666666667,0.4,0.1,five";
    let mut invalid = BOOK.to_vec();
    invalid[3] = "put,american,50,50,0.4166666666666667,0.4,0.1,0";
    let failures = [
        (
            write_book(dir.path(), "malformed.csv", &malformed),
            vec![],
            ":5: column steps",
        ),
        (
            write_book(dir.path(), "invalid.csv", &invalid),
            vec![],
            ":5: steps is 0",
        ),
        (
            write_book(dir.path(), "book.csv", BOOK),
            vec!["--strategy", "thesis"],
            "one option at a time",
        ),
        (
            write_book(dir.path(), "header.csv", &[]),
            vec![],
            "no options",
        ),
    ];
    for (book, args, want) in &failures {
        let output = price_book(book, &out, args);
        assert_one_line_error(&output, 2, &[*want], want);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "yesterday's prices\n"
        );
    }
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "book.csv",
            "header.csv",
            "invalid.csv",
            "malformed.csv",
            "out.csv"
        ]
    );
    // An output in a directory that does not exist is named, not a temporary file, and
    // refused before the run as bad input.
    let missing = dir.path().join("no-such-dir").join("out.csv");
    let output = price_book(&dir.path().join("book.csv"), &missing, &[]);
    assert_one_line_error(&output, 2, &["no-such-dir/out.csv"], "missing directory");
    assert!(!stderr(&output).contains("at path"), "{}", stderr(&output));
}

/// A book names every option itself: the flags of a single option are refused beside it.
#[test]
fn single_option_flags_conflict_with_a_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = write_book(dir.path(), "book.csv", BOOK);
    let book = book.to_str().unwrap();
    for (command, flag, value) in [
        ("lookback", "--spot", Some("50")),
        ("lookback", "--steps", Some("10")),
        ("lookback", "--call", None),
        ("lookback", "--european", None),
        ("binomial", "--strike", Some("40")),
        ("binomial", "--rate", Some("0.1")),
    ] {
        let mut args = vec![command, "--batch", book, "--backend", "cpu", flag];
        args.extend(value);
        assert_usage_error(&thicket(&args), &["--batch", flag], &args.join(" "));
    }
}

#[test]
fn help_names_the_main_flags() {
    let flags = [
        "--spot",
        "--maturity",
        "--volatility",
        "--rate",
        "--steps",
        "--call",
        "--european",
        "--precision",
        "--strategy",
        "--backend",
        "--batch",
        "--output",
        "--json",
        "--verify",
    ];
    for command in ["lookback", "binomial"] {
        let output = thicket(&[command, "--help"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        for flag in flags
            .iter()
            .chain((command == "binomial").then_some(&"--strike"))
        {
            assert!(text.contains(flag), "{command} --help lacks {flag}");
        }
    }
}

#[test]
fn implied_vol_recovers_the_volatility_of_a_price_with_dividends() {
    let market = [
        "--spot",
        "42",
        "--maturity",
        "0.5",
        "--rate",
        "0.1",
        "--steps",
        "300",
    ];
    for (payoff, strike) in [("put", Some("40")), ("lookback-call", None)] {
        let mut flags: Vec<&str> = market.to_vec();
        flags.extend(["--dividend-yield", "0.03"]);
        if let Some(k) = strike {
            flags.extend(["--strike", k]);
        }
        let (command, call) = match payoff {
            "put" => ("binomial", false),
            _ => ("lookback", true),
        };
        let mut pricing = flags.clone();
        pricing.extend(["--volatility", "0.27"]);
        if call {
            pricing.push("--call");
        }
        let price = cpu_price(command, &pricing).to_string();
        let mut asking = vec![
            "implied-vol",
            "--json",
            "--payoff",
            payoff,
            "--price",
            &price,
        ];
        asking.extend(flags.iter());
        let value = json(&thicket(&asking));
        let volatility = value["volatility"].as_f64().unwrap();
        assert!((volatility - 0.27).abs() < 1e-10, "{payoff}: {value}");
    }
    let below = thicket(&[
        "implied-vol",
        "--payoff",
        "put",
        "--strike",
        "60",
        "--price",
        "1",
        "--spot",
        "50",
        "--maturity",
        "1",
        "--rate",
        "0.05",
        "--steps",
        "50",
    ]);
    assert_one_line_error(
        &below,
        2,
        &["price 1", "below"],
        "implied-vol below intrinsic",
    );
}

#[test]
fn implied_vol_refuses_a_price_at_or_past_a_no_arbitrage_bound() {
    let market = [
        "implied-vol",
        "--spot",
        "42",
        "--maturity",
        "0.5",
        "--rate",
        "0.1",
        "--steps",
        "100",
    ];
    // (the option and its price, what the message names)
    let cases: [(&[&str], &[&str]); 4] = [
        // Out of the money a price of 0 returned the bottom of the search's bracket.
        (
            &[
                "--payoff",
                "put",
                "--strike",
                "40",
                "--european",
                "--price",
                "0",
            ],
            &[
                "price 0 is at or below the lowest price no arbitrage allows",
                "european put, 0 = max(0, K·e^(−rT) − S·e^(−qT))",
            ],
        ),
        // An American put in the money is worth K − S = 2 at least.
        (
            &["--payoff", "put", "--strike", "44", "--price", "1.5"],
            &["american put, 2 = max(0, K − S, K·e^(−rT) − S·e^(−qT))"],
        ),
        // A call is worth less than the stock.
        (
            &["--payoff", "call", "--strike", "40", "--price", "42"],
            &[
                "at or above the highest price no arbitrage allows",
                "42 = S·max(1, e^(−qT))",
            ],
        ),
        (
            &[
                "--payoff",
                "put",
                "--strike",
                "40",
                "--european",
                "--price",
                "40",
            ],
            &["K·e^(−rT)"],
        ),
    ];
    for (option, words) in cases {
        let args = [&market[..], option].concat();
        assert_one_line_error(&thicket(&args), 2, words, &args.join(" "));
    }
}
