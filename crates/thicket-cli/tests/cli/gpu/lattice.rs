//! The lookback lattice on the GPU: every strategy in f64 and f32 against the reference
//! prices, and books priced on the GPU against the CPU's.

use std::path::Path;

use super::support::{no_gpu, run_json, Checks};

/// The reference prices of the lookback put (see `thicket-lattice/data/README.md`).
const LOOKBACK_REFERENCE: &str =
    include_str!("../../../../thicket-lattice/data/lookback-reference.csv");

/// One reference row of the lookback put: the contract's flags and its American and
/// European prices.
struct LookbackRow {
    id: String,
    flags: Vec<String>,
    steps: u64,
    american: f64,
    european: f64,
}

/// The rows of `lookback-reference.csv`.
fn lookback_rows() -> Vec<LookbackRow> {
    let mut lines = LOOKBACK_REFERENCE.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (s, t, sigma, r, n) = (
        column("S"),
        column("T"),
        column("sigma"),
        column("r"),
        column("N"),
    );
    let (american, european) = (column("american_f64"), column("european_f64"));
    lines
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let flags = [
                ("--spot", s),
                ("--maturity", t),
                ("--volatility", sigma),
                ("--rate", r),
                ("--steps", n),
            ]
            .iter()
            .flat_map(|(flag, i)| [flag.to_string(), f[*i].to_owned()])
            .collect();
            LookbackRow {
                id: f[0].to_owned(),
                flags,
                steps: f[n].parse().unwrap(),
                american: f[american].parse().unwrap(),
                european: f[european].parse().unwrap(),
            }
        })
        .collect()
}

/// Every GPU lattice strategy in f64 and f32, American and European, on the reference rows
/// whose step count `steps` accepts. The references have ten or more decimals: within 1e-9
/// relative (and 1e-10 of rounding) in f64, 1e-3 in f32. The thesis's kernel (and the hybrid
/// built on it) loses accuracy or overflows in f32 at large N, the thesis's own result
/// (Table 3.1): reported, not a failure.
fn lattice_against_references(steps: impl Fn(u64) -> bool) {
    let mut checks = Checks::default();
    for row in lookback_rows().into_iter().filter(|row| steps(row.steps)) {
        for (style, reference) in [("american", row.american), ("european", row.european)] {
            for strategy in ["tiles", "thesis", "hybrid"] {
                for precision in ["f64", "f32"] {
                    let mut args: Vec<&str> = vec!["lookback"];
                    args.extend(row.flags.iter().map(String::as_str));
                    if style == "european" {
                        args.push("--european");
                    }
                    args.extend([
                        "--strategy",
                        strategy,
                        "--precision",
                        precision,
                        "--backend",
                        "cuda",
                    ]);
                    let what = format!("{} {style} {strategy} {precision}", row.id);
                    let thesis_f32 = precision == "f32" && strategy != "tiles";
                    let tolerance = if precision == "f64" {
                        1e-9 * reference.abs().max(1.0) + 1e-10
                    } else {
                        1e-3
                    };
                    match run_json(&args) {
                        Ok(v) => {
                            let price = v["price"].as_f64().unwrap_or(f64::NAN);
                            let error = (price - reference).abs();
                            let row = format!(
                                "{what}: {price} (reference {reference}, error {error:.2e})"
                            );
                            if error <= tolerance {
                                checks.record(true, row);
                            } else if thesis_f32 {
                                checks.note(format!("{row}: the thesis's f32 error"));
                            } else {
                                checks.record(false, row);
                            }
                        }
                        Err(e) if precision == "f32" && e.contains("overflow") => {
                            checks.note(format!("{what}: {e} (f32 overflow, reported)"))
                        }
                        Err(e) => checks.record(false, format!("{what}: {e}")),
                    }
                }
            }
        }
    }
    checks.finish();
}

#[test]
fn lattice_gpu_strategies_match_reference_prices() {
    if no_gpu("lattice_gpu_strategies_match_reference_prices") {
        return;
    }
    lattice_against_references(|steps| steps <= 10_000);
}

#[test]
#[ignore = "N above 10,000: the thesis's per-layer kernel takes seconds"]
fn lattice_gpu_strategies_match_reference_prices_past_10_000_steps() {
    if no_gpu("lattice_gpu_strategies_match_reference_prices_past_10_000_steps") {
        return;
    }
    lattice_against_references(|steps| steps > 10_000);
}

/// The prices column of a book's result CSV.
fn book_prices(path: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let price = header
        .iter()
        .position(|h| *h == "price")
        .expect("a price column");
    lines
        .map(|line| line.split(',').nth(price).unwrap().parse().unwrap())
        .collect()
}

/// Books of `options` options of `steps` steps (lookback puts and calls with strikes,
/// American and European), priced by the GPU's tiles and the CPU's multicore lattice.
fn books_against_the_cpu(options: usize, steps: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut checks = Checks::default();
    for payoff in ["lookback-put", "call"] {
        for style in ["american", "european"] {
            let book = dir.path().join(format!("{payoff}-{style}.csv"));
            let mut text =
                String::from("payoff,style,spot,strike,maturity,volatility,rate,steps\n");
            for k in 0..options {
                let strike = if payoff == "call" {
                    (80 + k % 40).to_string()
                } else {
                    String::new()
                };
                let maturity = 0.25 + (k % 8) as f64 * 0.25;
                let volatility = 0.2 + (k % 3) as f64 * 0.1;
                text += &format!(
                    "{payoff},{style},100,{strike},{maturity},{volatility},0.05,{steps}\n"
                );
            }
            std::fs::write(&book, text).unwrap();
            let book = book.to_str().unwrap();
            for precision in ["f64", "f32"] {
                let priced = |strategy: &str, backend: &str| {
                    let out = dir.path().join(format!("{strategy}-{precision}.csv"));
                    let args = [
                        "lookback",
                        "--batch",
                        book,
                        "--strategy",
                        strategy,
                        "--precision",
                        precision,
                        "--backend",
                        backend,
                        "--output",
                        out.to_str().unwrap(),
                    ];
                    run_json(&args).map(|_| book_prices(&out))
                };
                let what = format!("book of {options} x {steps}: {payoff} {style} {precision}");
                let cpu = priced("multicore", "cpu").expect("the CPU prices the book");
                match priced("tiles", "cuda") {
                    Ok(gpu) => {
                        let worst = cpu
                            .iter()
                            .zip(&gpu)
                            .map(|(a, b)| (a - b).abs() / a.abs().max(1.0))
                            .fold(0.0, f64::max);
                        let tolerance = if precision == "f64" { 1e-9 } else { 1e-3 };
                        checks.record(
                            worst <= tolerance && cpu.len() == gpu.len(),
                            format!("{what}: worst relative difference {worst:.2e}"),
                        );
                    }
                    Err(e) => checks.record(false, format!("{what}: {e}")),
                }
            }
        }
    }
    checks.finish();
}

#[test]
fn lattice_books_on_the_gpu_match_the_cpu() {
    if no_gpu("lattice_books_on_the_gpu_match_the_cpu") {
        return;
    }
    books_against_the_cpu(64, 256);
}

#[test]
#[ignore = "books of 1,024 options x 2,048 steps: the CPU side takes a while"]
fn lattice_books_of_1024_options_on_the_gpu_match_the_cpu() {
    if no_gpu("lattice_books_of_1024_options_on_the_gpu_match_the_cpu") {
        return;
    }
    books_against_the_cpu(1024, 2048);
}

/// Issue 34: a book through the ledger on every GPU of the machine writes the bytes it writes
/// on one GPU (the same batches, priced by the same kernel), and its prices are the CPU's.
#[test]
fn a_ledgered_book_on_every_gpu_matches_one_gpu_and_the_cpu() {
    if no_gpu("a_ledgered_book_on_every_gpu_matches_one_gpu_and_the_cpu") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.csv");
    let mut text =
        String::from("id,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps\n");
    let payoffs = ["call", "put", "lookback-put", "lookback-call"];
    for k in 0..200 {
        let payoff = payoffs[k % 4];
        let strike = if k % 4 < 2 {
            (80 + k % 40).to_string()
        } else {
            String::new()
        };
        let style = if k % 3 == 0 { "european" } else { "american" };
        text += &format!(
            "n{k},{payoff},{style},100,{strike},{},{},0.05,0.01,{}\n",
            0.25 + (k % 8) as f64 * 0.25,
            0.2 + (k % 3) as f64 * 0.1,
            100 + k % 300
        );
    }
    std::fs::write(&book, text).unwrap();
    let book = book.to_str().unwrap();
    let priced = |name: &str, extra: &[&str]| {
        let out = dir.path().join(format!("{name}.csv"));
        let mut args = vec![
            "lookback",
            "--batch",
            book,
            "--output",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        run_json(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
        out
    };
    let cpu = priced("cpu", &["--backend", "cpu"]);
    let one_db = dir.path().join("one.db");
    let every_db = dir.path().join("every.db");
    let one = priced(
        "one",
        &[
            "--backend",
            "cuda",
            "--ledger",
            one_db.to_str().unwrap(),
            "--batch-size",
            "32",
            "--devices",
            "0",
        ],
    );
    let every = priced(
        "every",
        &[
            "--backend",
            "cuda",
            "--ledger",
            every_db.to_str().unwrap(),
            "--batch-size",
            "32",
        ],
    );
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&every).unwrap());
    let (cpu, gpu) = (book_prices(&cpu), book_prices(&every));
    assert_eq!(cpu.len(), gpu.len());
    for (a, b) in cpu.iter().zip(&gpu) {
        assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{a} against {b}");
    }
}
