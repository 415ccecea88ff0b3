//! Issue 34 on the GPU: the four trees of the vanillas and seasoned lookbacks (at and between
//! their states), every payoff and style, priced by the GPU's tile kernels and by the CPU, in
//! one mixed book (trees, seasoned and fresh lookbacks side by side in each kernel's launch)
//! and as single long lattices (the overlapping tiles). Every column the book adds (price and
//! the five greeks) is compared.

use std::collections::HashMap;
use std::path::Path;

use super::support::{no_gpu, run_json, Checks};

/// The columns priced books add, compared between the backends.
const PRICED: [&str; 6] = ["price", "delta", "gamma", "theta", "vega", "rho"];

/// How far the GPU may be from the CPU in `precision`, for `column`, relative to max(1, |CPU|):
/// the price to the working precision's accumulated rounding (1e-12 in f64, 1e-5 in f32);
/// delta, gamma and theta divide differences of node values by S·(u − d) or 2·dt, and vega
/// and rho differences of prices by 2h (h = 1e-4 in f64, 1e-2 in f32), so they keep fewer
/// digits.
fn tolerance(precision: &str, column: &str) -> f64 {
    match (precision, column) {
        ("f64", "price") => 1e-12,
        ("f64", "vega" | "rho") => 1e-7,
        ("f64", _) => 1e-9,
        (_, "price") => 1e-5,
        (_, "vega" | "rho") => 1e-2,
        _ => 1e-3,
    }
}

/// CRR's log step of a lookback with these inputs, as the lattice computes it.
fn log_u(volatility: f64, maturity: f64, steps: usize) -> f64 {
    volatility * (maturity / steps as f64).sqrt()
}

/// The mixed book: vanillas on every tree (calls and puts, American and European, strikes
/// around the spot, with and without dividends, 1 to 1,001 steps; odd counts only for
/// Leisen–Reimer), fresh lookbacks, and seasoned ones whose extreme is exactly a state (j of
/// 0, 1, 3 and 6 up-steps from the spot) or between two (j + 0.37), 1 to 1,500 steps.
fn mixed_book() -> String {
    let mut text = String::from(
        "id,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps,tree,observed_extreme\n",
    );
    let mut id = 0;
    let mut row = |text: &mut String, fields: String| {
        id += 1;
        text.push_str(&format!("r{id},{fields}\n"));
    };
    for tree in ["crr", "jarrow-rudd", "tian", "leisen-reimer"] {
        for payoff in ["call", "put"] {
            for style in ["american", "european"] {
                for (k, steps) in [1, 2, 3, 25, 100, 101, 1001].into_iter().enumerate() {
                    if tree == "leisen-reimer" && steps % 2 == 0 {
                        continue;
                    }
                    let strike = [90, 100, 110][k % 3];
                    let dividend = if k % 2 == 0 { "0" } else { "0.03" };
                    let maturity = if k % 2 == 0 { 0.5 } else { 1.0 };
                    row(
                        &mut text,
                        format!("{payoff},{style},100,{strike},{maturity},0.25,0.05,{dividend},{steps},{tree},"),
                    );
                }
            }
        }
    }
    let (spot, maturity, volatility) = (50.0, 0.5, 0.3);
    for payoff in ["lookback-put", "lookback-call"] {
        for style in ["american", "european"] {
            for steps in [1, 2, 3, 5, 12, 200, 1500] {
                row(
                    &mut text,
                    format!(
                        "{payoff},{style},{spot},,{maturity},{volatility},0.06,0.02,{steps},crr,"
                    ),
                );
                for states in [0.0, 1.0, 3.0, 6.0, 0.37, 1.37, 6.37] {
                    // The put's maximum above the spot, the call's minimum below it.
                    let sign = if payoff == "lookback-put" { 1.0 } else { -1.0 };
                    let extreme = spot * (sign * states * log_u(volatility, maturity, steps)).exp();
                    row(
                        &mut text,
                        format!("{payoff},{style},{spot},,{maturity},{volatility},0.06,0.02,{steps},crr,{extreme:?}"),
                    );
                }
            }
        }
    }
    text
}

/// The priced columns of a book's output CSV, by id (an empty field: `None`).
fn priced_columns(path: &Path) -> HashMap<String, Vec<Option<f64>>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let columns: Vec<usize> = PRICED.iter().map(|name| at(name)).collect();
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let values = columns.iter().map(|&c| fields[c].parse().ok()).collect();
            (fields[at("id")].to_owned(), values)
        })
        .collect()
}

/// Every priced column of every row, GPU against CPU, into `checks`: one row per column
/// with its worst relative difference.
fn compare(
    checks: &mut Checks,
    what: &str,
    precision: &str,
    cpu: &HashMap<String, Vec<Option<f64>>>,
    gpu: &HashMap<String, Vec<Option<f64>>>,
) {
    checks.record(
        cpu.len() == gpu.len(),
        format!(
            "{what}: {} rows priced on the CPU, {} on the GPU",
            cpu.len(),
            gpu.len()
        ),
    );
    for (c, column) in PRICED.iter().enumerate() {
        let mut worst = (0.0_f64, String::new());
        let mut nan = false;
        let mut missing = Vec::new();
        for (id, cpu_row) in cpu {
            match (cpu_row[c], gpu.get(id).and_then(|row| row[c])) {
                (Some(a), Some(b)) => {
                    let error = (a - b).abs() / a.abs().max(1.0);
                    // A NaN on either side is the worst of all.
                    if !nan && (error.is_nan() || error > worst.0) {
                        nan = error.is_nan();
                        worst = (error, format!("{id}: CPU {a}, GPU {b}"));
                    }
                }
                (None, None) => {}
                _ => missing.push(id.clone()),
            }
        }
        let limit = tolerance(precision, column);
        checks.record(
            !nan && worst.0 <= limit && missing.is_empty(),
            format!(
                "{what} {column}: worst relative difference {:.2e} (limit {limit:.0e}){}{}",
                worst.0,
                if worst.1.is_empty() {
                    String::new()
                } else {
                    format!(" at {}", worst.1)
                },
                if missing.is_empty() {
                    String::new()
                } else {
                    format!("; empty on one backend only: {}", missing.join(" "))
                }
            ),
        );
    }
}

#[test]
fn lattice_trees_and_seasoned_lookbacks_on_the_gpu_match_the_cpu() {
    if no_gpu("lattice_trees_and_seasoned_lookbacks_on_the_gpu_match_the_cpu") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("mixed.csv");
    std::fs::write(&book, mixed_book()).unwrap();
    let book = book.to_str().unwrap();
    let mut checks = Checks::default();
    for precision in ["f64", "f32"] {
        let priced = |backend: &str| {
            let out = dir.path().join(format!("{backend}-{precision}.csv"));
            let args = [
                "lookback",
                "--batch",
                book,
                "--precision",
                precision,
                "--backend",
                backend,
                "--output",
                out.to_str().unwrap(),
            ];
            run_json(&args).map(|_| priced_columns(&out))
        };
        let cpu = priced("cpu").expect("the CPU prices the book");
        match priced("cuda") {
            Ok(gpu) => compare(
                &mut checks,
                &format!("mixed book {precision}"),
                precision,
                &cpu,
                &gpu,
            ),
            Err(e) => checks.record(false, format!("mixed book {precision}: {e}")),
        }
    }
    checks.finish();
}

/// One option's JSON on `backend` in `precision`.
fn one(args: &[&str], backend: &str, precision: &str) -> Result<serde_json::Value, String> {
    run_json(&[args, &["--backend", backend, "--precision", precision]].concat())
}

#[test]
fn long_lattices_of_other_trees_and_seasoned_lookbacks_on_the_gpu_match_the_cpu() {
    if no_gpu("long_lattices_of_other_trees_and_seasoned_lookbacks_on_the_gpu_match_the_cpu") {
        return;
    }
    // Past the widest block of a book, so each runs in overlapping tiles; the seasoned put
    // between two states, 40 states from the spot.
    let seasoned_max = format!("{:?}", 50.0 * (40.37 * log_u(0.3, 0.5, 5000)).exp());
    let seasoned_min = format!("{:?}", 50.0 * (-40.37 * log_u(0.3, 0.5, 5000)).exp());
    let market = ["--maturity", "0.5", "--volatility", "0.3", "--rate", "0.06"];
    let lookback = |extreme: &str, call: bool| {
        let mut args = vec!["lookback", "--spot", "50", "--steps", "5000"];
        args.extend(market);
        args.extend(["--dividend-yield", "0.02"]);
        if call {
            args.extend(["--call", "--observed-min", extreme]);
        } else {
            args.extend(["--observed-max", extreme]);
        }
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let mut cases: Vec<(String, Vec<String>)> = vec![
        (
            "seasoned American put".into(),
            lookback(&seasoned_max, false),
        ),
        (
            "seasoned American call".into(),
            lookback(&seasoned_min, true),
        ),
    ];
    for tree in ["jarrow-rudd", "tian", "leisen-reimer"] {
        for style in ["american", "european"] {
            let mut args: Vec<String> = [
                "binomial",
                "--spot",
                "100",
                "--strike",
                "95",
                "--steps",
                "10001",
                "--tree",
                tree,
                "--dividend-yield",
                "0.02",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            args.extend(market.iter().map(|s| s.to_string()));
            // The American put (early exercise on a drifted tree) and the European call (the
            // fused steps).
            let payoff = if style == "european" {
                args.extend(["--european".into(), "--call".into()]);
                "call"
            } else {
                "put"
            };
            cases.push((format!("{tree} {style} {payoff}"), args));
        }
    }
    let mut checks = Checks::default();
    for (what, args) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for precision in ["f64", "f32"] {
            let cpu = one(&args, "cpu", precision).expect("the CPU prices it");
            let what = format!("{what} {precision}");
            match one(&args, "cuda", precision) {
                Ok(gpu) => {
                    for column in PRICED {
                        let (a, b) = (cpu[column].as_f64(), gpu[column].as_f64());
                        let limit = tolerance(precision, column);
                        let ok = match (a, b) {
                            (Some(a), Some(b)) => (a - b).abs() / a.abs().max(1.0) <= limit,
                            (None, None) => true,
                            _ => false,
                        };
                        checks.record(
                            ok,
                            format!("{what} {column}: CPU {a:?}, GPU {b:?} (limit {limit:.0e})"),
                        );
                    }
                }
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
        }
    }
    checks.finish();
}
