//! The GPU checks: every GPU path of the `thicket` binary against an outside reference (OEIS,
//! Carneiro's Table 1, the lattice's reference prices, the max-flow and shortest-path
//! references) or against the CPU's answer. They were `scripts/gpu-check.sh`'s checks; the
//! script now runs them.
//!
//! Without a usable GPU each test prints a NOTE and passes, so `cargo test` stays green on
//! machines without one (CI). On a GPU machine, from the repository root:
//!
//! ```text
//! cargo test --release -p thicket --test gpu -- --include-ignored --nocapture --test-threads 1
//! ```
//!
//! `#[ignore]` holds the larger sizes (minutes in all); `--nocapture` shows each check's table.
//! On a GPU machine without cargo, build the test binary elsewhere (`cargo test --release -p
//! thicket --test gpu --no-run` prints its path), copy it and `target/release/thicket` there and
//! run the test binary with `THICKET_BIN` naming the `thicket` binary and `THICKET_REPO` the
//! repository checkout (for the data files); `scripts/gpu-check.sh --test-binary FILE` does so.
//! `THICKET_GPU_DEVICES=0,1` passes `--devices 0,1` to the N-Queens runs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::sleep;
use std::time::Duration;

use serde_json::Value;

/// OEIS A000170: the number of N-Queens solutions, N = 0..21.
const A000170: [u64; 22] = [
    1,
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
    314666222712,
];

/// OEIS A002562: the fundamental (distinct under symmetry) N-Queens solutions, N = 0..21.
const A002562: [u64; 22] = [
    1,
    1,
    0,
    0,
    1,
    2,
    1,
    6,
    12,
    46,
    92,
    341,
    1787,
    9233,
    45752,
    285053,
    1846955,
    11977939,
    83263591,
    621012754,
    4878666808,
    39333324973,
];

/// Carneiro 2017, Table 1: every feasible node of the permutation search for N-Queens
/// (solutions included), N = 0..15.
const TABLE_1_NODES: [u64; 16] = [
    0, 1, 2, 5, 16, 53, 152, 551, 2056, 8393, 35538, 166925, 856188, 4674889, 27358552, 171129071,
];

/// The papers' N-Queens kernels (docs/reproduction.md) and thicket's own.
const QUEENS_STRATEGIES: [&str; 13] = [
    "constellation",
    "naive",
    "l1",
    "shared",
    "shared-nbc",
    "irrc",
    "pool-block",
    "pool-global",
    "feinbube",
    "dp1",
    "dp2",
    "dp3",
    "dp-swap",
];

/// Carneiro's GPU strategies, shared by `perm-queens` and `atsp`.
const PERM_STRATEGIES: [&str; 5] = ["bp-dfs", "bp-dfs-pool", "rec-cdp", "rec-dp3", "cdp-bp"];

/// The reference prices of the lookback put (see `thicket-lattice/data/README.md`).
const LOOKBACK_REFERENCE: &str = include_str!("../../thicket-lattice/data/lookback-reference.csv");

/// The `thicket` binary: `THICKET_BIN` where set (a GPU machine without cargo), else the one
/// cargo built for these tests.
fn thicket_bin() -> PathBuf {
    std::env::var_os("THICKET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_thicket")))
}

/// `path` inside the repository: under `THICKET_REPO` where set, else this checkout.
fn repo(path: &str) -> String {
    let root = std::env::var_os("THICKET_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    root.join(path).display().to_string()
}

/// Runs `thicket args…` and waits for it.
fn thicket(args: &[&str]) -> Output {
    Command::new(thicket_bin())
        .args(args)
        .output()
        .expect("the thicket binary runs")
}

/// The JSON object of `thicket args… --json --quiet`, or the first line of its error.
fn run_json(args: &[&str]) -> Result<Value, String> {
    let output = thicket(&[args, &["--json", "--quiet"]].concat());
    if !output.status.success() {
        let stderr = common::stderr(&output);
        return Err(stderr.lines().next().unwrap_or("failed").to_owned());
    }
    serde_json::from_str(common::stdout(&output).trim()).map_err(|e| format!("not JSON: {e}"))
}

/// True when this machine has no usable GPU, after printing a NOTE that `test` was skipped.
fn no_gpu(test: &str) -> bool {
    let value = common::json(&thicket(&["devices", "--json"]));
    let absent = value["gpu_available"] != true;
    if absent {
        println!("NOTE {test}: no usable GPU here, so the GPU paths were NOT tested");
    }
    absent
}

/// `--devices LIST` from `THICKET_GPU_DEVICES`, for the N-Queens runs.
fn devices() -> Vec<String> {
    match std::env::var("THICKET_GPU_DEVICES") {
        Ok(list) if !list.is_empty() => vec!["--devices".to_owned(), list],
        _ => Vec::new(),
    }
}

/// Whether a failed run is a dynamic-parallelism strategy on a machine without CUDA's
/// `libcudadevrt.a`: not a wrong answer, a missing toolkit file (the run says so).
fn lacks_cudadevrt(error: &str) -> bool {
    error.contains("libcudadevrt")
}

/// The checks of one test: prints a row per check and fails at the end with every wrong row,
/// so one run reports all of them, as the script's tables did.
#[derive(Default)]
struct Checks {
    wrong: Vec<String>,
    passed: usize,
}

impl Checks {
    /// Records `row` as passed when `ok`, as wrong otherwise.
    fn record(&mut self, ok: bool, row: String) {
        println!("{} {row}", if ok { "ok   " } else { "WRONG" });
        if ok {
            self.passed += 1;
        } else {
            self.wrong.push(row);
        }
    }

    /// A check that could not be made here, and why (not a failure).
    fn note(&self, row: String) {
        println!("NOTE  {row}");
    }

    /// Fails with every wrong row.
    fn finish(self) {
        assert!(
            self.wrong.is_empty(),
            "{} wrong of {}:\n{}",
            self.wrong.len(),
            self.wrong.len() + self.passed,
            self.wrong.join("\n")
        );
    }
}

/// A JSON field as an integer (`None` where missing).
fn int(value: &Value, key: &str) -> Option<u64> {
    value[key].as_u64()
}

/// `thicket queens N --backend cuda` for every N in `ns` (with `extra` flags), against OEIS.
fn queens_against_oeis(checks: &mut Checks, ns: std::ops::RangeInclusive<usize>, extra: &[&str]) {
    let devices = devices();
    for n in ns {
        let size = n.to_string();
        let mut args = vec!["queens", size.as_str(), "--backend", "cuda"];
        args.extend(devices.iter().map(String::as_str));
        args.extend_from_slice(extra);
        let what = format!("queens {n} {}", extra.join(" "));
        match run_json(&args) {
            Ok(v) => {
                let ok = int(&v, "total") == Some(A000170[n])
                    && int(&v, "unique").is_none_or(|u| u == A002562[n])
                    && v["backend"] == "cuda";
                checks.record(ok, format!("{what}: {v}"));
            }
            Err(e) if lacks_cudadevrt(&e) => checks.note(format!("{what}: {e}")),
            Err(e) => checks.record(false, format!("{what}: {e}")),
        }
    }
}

#[test]
fn queens_on_the_gpu_match_oeis() {
    if no_gpu("queens_on_the_gpu_match_oeis") {
        return;
    }
    let mut checks = Checks::default();
    queens_against_oeis(&mut checks, 4..=18, &[]);
    checks.finish();
}

#[test]
#[ignore = "N = 19..21: about 15 s on one H100"]
fn queens_on_the_gpu_match_oeis_up_to_21() {
    if no_gpu("queens_on_the_gpu_match_oeis_up_to_21") {
        return;
    }
    let mut checks = Checks::default();
    queens_against_oeis(&mut checks, 19..=21, &[]);
    checks.finish();
}

#[test]
fn a_killed_gpu_ledger_resumes_to_the_oeis_count_and_verifies() {
    if no_gpu("a_killed_gpu_ledger_resumes_to_the_oeis_count_and_verifies") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("q18.db");
    let ledger = ledger.to_str().unwrap();
    let devices = devices();
    let mut args = vec!["queens", "18", "--backend", "cuda", "--ledger", ledger];
    args.extend(devices.iter().map(String::as_str));
    // Killed after a moment (or finished by then: either way the resumed run must be exact).
    let mut first = Command::new(thicket_bin())
        .args(&args)
        .arg("--quiet")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the thicket binary starts");
    sleep(Duration::from_millis(1500));
    let _ = first.kill();
    let _ = first.wait();
    let resumed = run_json(&args).expect("the resumed run finishes");
    assert_eq!(int(&resumed, "total"), Some(A000170[18]), "{resumed}");
    assert_eq!(int(&resumed, "unique"), Some(A002562[18]), "{resumed}");
    let verify = thicket(&["verify", ledger, "--sample", "4"]);
    assert!(verify.status.success(), "{}", common::stderr(&verify));
}

/// Every paper's strategy for every N in `ns`, against OEIS.
fn strategies_against_oeis(ns: std::ops::RangeInclusive<usize>) {
    let mut checks = Checks::default();
    for strategy in QUEENS_STRATEGIES {
        queens_against_oeis(&mut checks, ns.clone(), &["--strategy", strategy]);
    }
    checks.finish();
}

#[test]
fn papers_strategies_match_oeis() {
    if no_gpu("papers_strategies_match_oeis") {
        return;
    }
    strategies_against_oeis(8..=12);
}

#[test]
#[ignore = "N = 13..18 for 13 strategies: minutes (the slow papers' kernels)"]
fn papers_strategies_match_oeis_up_to_18() {
    if no_gpu("papers_strategies_match_oeis_up_to_18") {
        return;
    }
    strategies_against_oeis(13..=18);
}

/// Every permutation strategy on perm-queens N in `ns`: nodes against Table 1, solutions
/// against OEIS.
fn perm_queens_against_table_1(ns: std::ops::RangeInclusive<usize>) {
    let mut checks = Checks::default();
    for strategy in PERM_STRATEGIES {
        for n in ns.clone() {
            let size = n.to_string();
            let what = format!("perm-queens {n} --strategy {strategy}");
            match run_json(&["perm-queens", &size, "--strategy", strategy]) {
                Ok(v) => {
                    let ok = int(&v, "nodes") == Some(TABLE_1_NODES[n])
                        && int(&v, "solutions") == Some(A000170[n]);
                    checks.record(ok, format!("{what}: {v}"));
                }
                Err(e) if lacks_cudadevrt(&e) => checks.note(format!("{what}: {e}")),
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
        }
    }
    checks.finish();
}

#[test]
fn perm_queens_gpu_strategies_match_table_1() {
    if no_gpu("perm_queens_gpu_strategies_match_table_1") {
        return;
    }
    perm_queens_against_table_1(8..=12);
}

#[test]
#[ignore = "N = 13..15 for five strategies"]
fn perm_queens_gpu_strategies_match_table_1_up_to_15() {
    if no_gpu("perm_queens_gpu_strategies_match_table_1_up_to_15") {
        return;
    }
    perm_queens_against_table_1(13..=15);
}

/// Every GPU permutation strategy on each ATSP instance against the CPU search (partial
/// bound, multicore). `cases` are the instance's arguments and whether the node count must
/// match too: from a bound at the optimum it is deterministic, from the heuristic tour it
/// depends on when tours are found.
fn atsp_against_the_cpu(cases: &[(Vec<String>, bool)]) {
    let mut checks = Checks::default();
    for (instance, same_nodes) in cases {
        let instance: Vec<&str> = instance.iter().map(String::as_str).collect();
        let reference = run_json(
            &[
                &["atsp"],
                &instance[..],
                &["--bound", "partial", "--strategy", "multicore"],
            ]
            .concat(),
        )
        .expect("the CPU search finishes");
        for strategy in PERM_STRATEGIES {
            let what = format!("atsp {} --strategy {strategy}", instance.join(" "));
            match run_json(&[&["atsp"], &instance[..], &["--strategy", strategy]].concat()) {
                Ok(v) => {
                    let ok = v["cost"] == reference["cost"]
                        && (!same_nodes || v["nodes"] == reference["nodes"]);
                    checks.record(
                        ok,
                        format!(
                            "{what}: cost {} nodes {} (CPU: cost {} nodes {})",
                            v["cost"], v["nodes"], reference["cost"], reference["nodes"]
                        ),
                    );
                }
                Err(e) if lacks_cudadevrt(&e) => checks.note(format!("{what}: {e}")),
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
        }
    }
    checks.finish();
}

/// An ATSP case: `--generate spec`, from the optimum found first by the CPU (deterministic
/// node counts) or from the heuristic tour.
fn generated(spec: &str, from_optimum: bool) -> (Vec<String>, bool) {
    let mut args = vec!["--generate".to_owned(), spec.to_owned()];
    if from_optimum {
        let best = run_json(&["atsp", "--generate", spec]).expect("the CPU search finishes");
        args.extend(["--upper-bound".to_owned(), best["cost"].to_string()]);
    }
    (args, from_optimum)
}

#[test]
fn atsp_gpu_strategies_match_the_cpu_search() {
    if no_gpu("atsp_gpu_strategies_match_the_cpu_search") {
        return;
    }
    atsp_against_the_cpu(&[generated("coin:12:1", true), generated("crane:12:1", false)]);
}

#[test]
#[ignore = "br17 and 14-city instances: a minute or two"]
fn atsp_gpu_strategies_match_the_cpu_search_on_br17_and_14_cities() {
    if no_gpu("atsp_gpu_strategies_match_the_cpu_search_on_br17_and_14_cities") {
        return;
    }
    let br17 = vec![
        repo("crates/thicket-atsp/data/br17.atsp"),
        "--optimal-ub".into(),
    ];
    atsp_against_the_cpu(&[
        (br17, true),
        generated("coin:14:1", true),
        generated("crane:14:1", false),
    ]);
}

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

/// The GPU max-flow strategies.
const FLOW_STRATEGIES: [&str; 4] = ["push-relabel-gpu", "mpm", "mpm-active", "mpm-scan"];

/// Every strategy of `strategies` on `input` (a file or `--generate=SPEC`): the flow equals
/// `reference` (the outside value, or the CPU's push-relabel where `None`) and its min-cut
/// certificate holds.
fn flows_against(checks: &mut Checks, input: &str, reference: Option<u64>, strategies: &[&str]) {
    let reference = reference.unwrap_or_else(|| {
        let cpu = run_json(&["maxflow", input, "--backend", "cpu"]).expect("the CPU solves it");
        int(&cpu, "flow").expect("a flow")
    });
    for strategy in strategies {
        let what = format!("maxflow {input} --strategy {strategy}");
        match run_json(&[
            "maxflow",
            input,
            "--strategy",
            strategy,
            "--backend",
            "cuda",
        ]) {
            Ok(v) => {
                let ok = int(&v, "flow") == Some(reference) && v["verified"] == true;
                checks.record(
                    ok,
                    format!(
                        "{what}: flow {} (reference {reference}), verified {}, {} s",
                        v["flow"], v["verified"], v["seconds"]
                    ),
                );
            }
            Err(e) => checks.record(false, format!("{what}: {e}")),
        }
    }
}

#[test]
fn maxflow_gpu_strategies_match_the_references() {
    if no_gpu("maxflow_gpu_strategies_match_the_references") {
        return;
    }
    let mut checks = Checks::default();
    // The values of crates/thicket-flow/data/SOURCE.md, computed outside thicket.
    for (file, flow) in [
        ("waissi-example.max", 6),
        ("genrmf-a4b3.max", 228),
        ("m10.max", 9_860_177),
        ("m30.max", 28_258_807),
        ("m50.max", 42_791_871),
    ] {
        let path = repo(&format!("crates/thicket-flow/data/{file}"));
        flows_against(&mut checks, &path, Some(flow), &FLOW_STRATEGIES);
    }
    for spec in ["genrmf:8:8:1:100:3", "rlg:40:40:1000:3"] {
        let input = format!("--generate={spec}");
        flows_against(&mut checks, &input, None, &FLOW_STRATEGIES);
    }
    checks.finish();
}

#[test]
#[ignore = "the larger generated networks: minutes for the MPMs"]
fn maxflow_gpu_strategies_match_the_references_on_larger_networks() {
    if no_gpu("maxflow_gpu_strategies_match_the_references_on_larger_networks") {
        return;
    }
    let mut checks = Checks::default();
    // The outside reference values of the generated networks (docs/maxflow.md).
    flows_against(
        &mut checks,
        "--generate=genrmf:16:64:1:10000:1",
        Some(1_197_616),
        &FLOW_STRATEGIES,
    );
    flows_against(
        &mut checks,
        "--generate=random:20000:12:1000:1",
        None,
        &FLOW_STRATEGIES,
    );
    // The MPMs need many phases on these long, thin networks (minutes, docs/maxflow.md):
    // push-relabel alone here.
    flows_against(
        &mut checks,
        "--generate=genrmf:64:8:1:10000:1",
        Some(20_209_215),
        &["push-relabel-gpu"],
    );
    flows_against(
        &mut checks,
        "--generate=rlg:256:256:10000:1",
        Some(1_933_769),
        &["push-relabel-gpu"],
    );
    checks.finish();
}

#[test]
fn bfs_and_sssp_on_the_gpu_match_the_references() {
    if no_gpu("bfs_and_sssp_on_the_gpu_match_the_references") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rome = repo("crates/thicket-graph/data/rome99.gr");
    let gapbs = repo("crates/thicket-graph/data/gapbs-4.gr");
    // search, graph, source, and the reached, summed and largest distances: the references
    // computed outside thicket (crates/thicket-graph/data/SOURCE.md).
    let mut cases: Vec<(&str, String, u64, [u64; 3])> = vec![
        ("bfs", rome.clone(), 1, [3353, 92781, 47]),
        ("bfs", rome.clone(), 1676, [3353, 86615, 46]),
        ("bfs", rome.clone(), 3353, [3353, 88088, 46]),
        ("bfs", gapbs.clone(), 1, [13, 12, 1]),
        ("bfs", gapbs.clone(), 2, [1, 0, 0]),
        ("bfs", gapbs.clone(), 9, [12, 13, 2]),
        ("bfs", gapbs.clone(), 14, [8, 9, 2]),
        ("sssp", rome.clone(), 1, [3353, 116_006_476, 69102]),
        ("sssp", rome.clone(), 1676, [3353, 31_147_171, 39885]),
        ("sssp", rome.clone(), 3353, [3353, 33_624_198, 42730]),
        ("sssp", gapbs.clone(), 1, [13, 214, 56]),
        ("sssp", gapbs.clone(), 2, [1, 0, 0]),
        ("sssp", gapbs.clone(), 9, [12, 551, 104]),
        ("sssp", gapbs.clone(), 14, [8, 1015, 243]),
    ];
    // Generated graphs against the CPU's serial BFS and Dijkstra.
    for (name, gen) in [
        ("kron16", ["kron", "--scale", "16", "--edge-factor", "16"]),
        ("grid300", ["grid", "--rows", "300", "--cols", "300"]),
    ] {
        let path = dir.path().join(format!("{name}.tgr"));
        let path = path.to_str().unwrap().to_owned();
        let made = thicket(&[&["graph", "gen"], &gen[..], &["--seed", "3", "-o", &path]].concat());
        assert!(made.status.success(), "{}", common::stderr(&made));
        for source in [0, 777, 4242] {
            for (search, strategy) in [("bfs", "serial"), ("sssp", "dijkstra")] {
                let s = source.to_string();
                let cpu = run_json(&[
                    search,
                    &path,
                    "--source",
                    &s,
                    "--strategy",
                    strategy,
                    "--backend",
                    "cpu",
                ])
                .expect("the CPU search finishes");
                let answer = ["reached", "sum_distances", "max_distance"]
                    .map(|key| int(&cpu, key).expect("a count"));
                cases.push((search, path.clone(), source, answer));
            }
        }
    }
    let mut checks = Checks::default();
    for (search, graph, source, [reached, sum, max]) in cases {
        let strategies: &[&str] = if search == "bfs" {
            &["thesis", "thesis-active", "gpu"]
        } else {
            &["gpu"]
        };
        let s = source.to_string();
        let name = Path::new(&graph).file_name().unwrap().to_string_lossy();
        for strategy in strategies {
            let what = format!("{search} {name} --source {source} --strategy {strategy}");
            let args = [
                search,
                &graph,
                "--source",
                &s,
                "--strategy",
                strategy,
                "--backend",
                "cuda",
                "--verify",
            ];
            match run_json(&args) {
                Ok(v) => {
                    let got = [
                        int(&v, "reached"),
                        int(&v, "sum_distances"),
                        int(&v, "max_distance"),
                    ];
                    let ok = got == [Some(reached), Some(sum), Some(max)] && v["verified"] == true;
                    checks.record(
                        ok,
                        format!(
                            "{what}: {got:?} (reference {reached} {sum} {max}), verified {}",
                            v["verified"]
                        ),
                    );
                }
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
        }
    }
    checks.finish();
}

/// The thesis's GPU swarms against the serial CPU swarms on each case (a generated matrix or
/// a Braun file; method, swarms, iterations, scratch): the same random numbers and arithmetic,
/// so the same assignment and makespan, both verified.
fn swarms_against_the_cpu(cases: &[(&str, &str, u32, u32, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let mut checks = Checks::default();
    for &(matrix, method, swarms, iterations, scratch) in cases {
        let file = if let Some((spec, seed)) = matrix.split_once('@') {
            let file = dir.path().join(format!("{}.etc", spec.replace(':', "-")));
            let file = file.to_str().unwrap().to_owned();
            let made = thicket(&[
                "schedule",
                "--generate",
                spec,
                "--seed",
                seed,
                "--write-etc",
                &file,
            ]);
            assert!(made.status.success(), "{}", common::stderr(&made));
            file
        } else {
            repo(&format!("crates/thicket-schedule/data/braun/{matrix}"))
        };
        let (swarms, iterations) = (swarms.to_string(), iterations.to_string());
        let run = |backend: &str| {
            let assignment = dir.path().join(format!("{backend}.txt"));
            let mut args = vec![
                "schedule",
                &file,
                "--method",
                method,
                "--swarms",
                &swarms,
                "--iterations",
                &iterations,
                "--backend",
                backend,
                "--verify",
                "--assignment",
                assignment.to_str().unwrap(),
            ];
            if backend == "cuda" && scratch != "auto" {
                args.extend(["--scratch", scratch]);
            }
            run_json(&args).map(|v| (v, std::fs::read(&assignment).unwrap_or_default()))
        };
        let what = format!("schedule {matrix} {method} {swarms} swarms x {iterations} ({scratch})");
        let (cpu, cpu_assignment) = run("cpu").expect("the CPU swarms finish");
        match run("cuda") {
            Ok((gpu, gpu_assignment)) => {
                let ok = cpu["verified"] == true
                    && gpu["verified"] == true
                    && cpu["makespan"] == gpu["makespan"]
                    && cpu_assignment == gpu_assignment;
                checks.record(
                    ok,
                    format!(
                        "{what}: makespan {} (CPU {}), same assignment {}, {} s (CPU {} s)",
                        gpu["makespan"],
                        cpu["makespan"],
                        cpu_assignment == gpu_assignment,
                        gpu["seconds"],
                        cpu["seconds"]
                    ),
                );
            }
            Err(e) => checks.record(false, format!("{what}: {e}")),
        }
    }
    checks.finish();
}

#[test]
fn schedule_gpu_swarms_match_the_serial_swarms() {
    if no_gpu("schedule_gpu_swarms_match_the_serial_swarms") {
        return;
    }
    swarms_against_the_cpu(&[
        ("thesis:80x8@1", "mspso", 10, 200, "auto"),
        ("thesis:80x8@1", "mspso", 10, 200, "global"),
        ("thesis:80x8@1", "pso", 1, 200, "auto"),
        ("u_i_hilo:200x40@2", "mspso", 10, 100, "auto"),
        ("thesis:100x100@3", "mspso", 4, 100, "auto"),
    ]);
}

#[test]
#[ignore = "Braun's 512 x 16 and 60 swarms: the serial CPU side takes a while"]
fn schedule_gpu_swarms_match_the_serial_swarms_on_larger_runs() {
    if no_gpu("schedule_gpu_swarms_match_the_serial_swarms_on_larger_runs") {
        return;
    }
    swarms_against_the_cpu(&[
        ("u_c_hihi.0", "mspso", 10, 1000, "auto"),
        ("thesis:80x8@1", "mspso", 60, 1000, "auto"),
    ]);
}

/// thicket's default (lp-ils) on the GPU for `seconds` on each Braun file: verified, run on
/// the GPU, and its LP lower bound at or below the makespan.
fn default_schedule_on_the_gpu(files: &[&str], seconds: &str) {
    let mut checks = Checks::default();
    for file in files {
        let path = repo(&format!("crates/thicket-schedule/data/braun/{file}"));
        let what = format!("schedule {file} (lp-ils, {seconds} s)");
        let args = [
            "schedule",
            &path,
            "--backend",
            "cuda",
            "--time-limit",
            seconds,
            "--verify",
        ];
        match run_json(&args) {
            Ok(v) => {
                let (makespan, bound) = (
                    v["makespan"].as_f64().unwrap_or(f64::NAN),
                    v["lower_bound"].as_f64().unwrap_or(f64::NAN),
                );
                let ok = v["verified"] == true
                    && v["backend"] == "cuda"
                    && bound <= makespan * (1.0 + 1e-12);
                checks.record(
                    ok,
                    format!(
                        "{what}: makespan {makespan}, bound {bound}, gap {}%",
                        v["gap"]
                    ),
                );
            }
            Err(e) => checks.record(false, format!("{what}: {e}")),
        }
    }
    checks.finish();
}

/// Braun et al.'s 512 x 16 instances in crates/thicket-schedule/data/braun (`u_*.0`).
fn braun_files() -> Vec<String> {
    let dir = repo("crates/thicket-schedule/data/braun");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("the Braun data")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("u_") && name.ends_with(".0"))
        .collect();
    files.sort();
    files
}

#[test]
fn schedule_default_on_the_gpu_is_verified_and_above_its_bound() {
    if no_gpu("schedule_default_on_the_gpu_is_verified_and_above_its_bound") {
        return;
    }
    default_schedule_on_the_gpu(&["u_c_hihi.0"], "0.2");
}

#[test]
#[ignore = "every Braun file for 1 s"]
fn schedule_default_on_the_gpu_is_verified_and_above_its_bound_on_every_braun_file() {
    if no_gpu("schedule_default_on_the_gpu_is_verified_and_above_its_bound_on_every_braun_file") {
        return;
    }
    let files = braun_files();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    default_schedule_on_the_gpu(&files, "1");
}
