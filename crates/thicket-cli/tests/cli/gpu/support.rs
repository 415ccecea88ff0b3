//! What every section of the GPU checks shares: the OEIS sequences and Carneiro's strategies
//! (the N-Queens and permutation sections both check against them), how the `thicket` binary
//! and the repository's data are found, the run and GPU probes, and the [`Checks`] rows.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common;

/// OEIS A000170: the number of N-Queens solutions, N = 0..21.
pub(crate) const A000170: [u64; 22] = [
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
pub(crate) const A002562: [u64; 22] = [
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

/// Carneiro's GPU strategies, shared by `perm-queens` and `atsp`.
pub(crate) const PERM_STRATEGIES: [&str; 5] =
    ["bp-dfs", "bp-dfs-pool", "rec-cdp", "rec-dp3", "cdp-bp"];

/// The `thicket` binary: `THICKET_BIN` where set (a GPU machine without cargo), else the one
/// cargo built for these tests.
pub(crate) fn thicket_bin() -> PathBuf {
    std::env::var_os("THICKET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_thicket")))
}

/// `path` inside the repository: under `THICKET_REPO` where set, else this checkout.
pub(crate) fn repo(path: &str) -> String {
    let root = std::env::var_os("THICKET_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    root.join(path).display().to_string()
}

/// Runs `thicket args…` and waits for it.
pub(crate) fn thicket(args: &[&str]) -> Output {
    Command::new(thicket_bin())
        .args(args)
        .output()
        .expect("the thicket binary runs")
}

/// The JSON object of `thicket args… --json --quiet`, or the first line of its error.
pub(crate) fn run_json(args: &[&str]) -> Result<Value, String> {
    let output = thicket(&[args, &["--json", "--quiet"]].concat());
    if !output.status.success() {
        let stderr = common::stderr(&output);
        return Err(stderr.lines().next().unwrap_or("failed").to_owned());
    }
    serde_json::from_str(common::stdout(&output).trim()).map_err(|e| format!("not JSON: {e}"))
}

/// True when this machine has no usable GPU, after printing a NOTE that `test` was skipped.
pub(crate) fn no_gpu(test: &str) -> bool {
    let value = common::json(&thicket(&["devices", "--json"]));
    let absent = value["gpu_available"] != true;
    if absent {
        println!("NOTE {test}: no usable GPU here, so the GPU paths were NOT tested");
    }
    absent
}

/// `--devices LIST` from `THICKET_GPU_DEVICES`, for the N-Queens runs.
pub(crate) fn devices() -> Vec<String> {
    match std::env::var("THICKET_GPU_DEVICES") {
        Ok(list) if !list.is_empty() => vec!["--devices".to_owned(), list],
        _ => Vec::new(),
    }
}

/// Whether a failed run is a dynamic-parallelism strategy on a machine without CUDA's
/// `libcudadevrt.a`: not a wrong answer, a missing toolkit file (the run says so).
pub(crate) fn lacks_cudadevrt(error: &str) -> bool {
    error.contains("libcudadevrt")
}

/// The checks of one test: prints a row per check and fails at the end with every wrong row,
/// so one run reports all of them, as the script's tables did.
#[derive(Default)]
pub(crate) struct Checks {
    wrong: Vec<String>,
    passed: usize,
}

impl Checks {
    /// Records `row` as passed when `ok`, as wrong otherwise.
    pub(crate) fn record(&mut self, ok: bool, row: String) {
        println!("{} {row}", if ok { "ok   " } else { "WRONG" });
        if ok {
            self.passed += 1;
        } else {
            self.wrong.push(row);
        }
    }

    /// A check that could not be made here, and why (not a failure).
    pub(crate) fn note(&self, row: String) {
        println!("NOTE  {row}");
    }

    /// Fails with every wrong row.
    pub(crate) fn finish(self) {
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
pub(crate) fn int(value: &Value, key: &str) -> Option<u64> {
    value[key].as_u64()
}
