//! N-Queens on the GPU: thicket's kernels and the papers' (docs/reproduction.md) against OEIS,
//! and a killed GPU ledger resumed to the exact count.

use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use super::support::{
    devices, int, lacks_cudadevrt, no_gpu, run_json, thicket, thicket_bin, Checks, A000170, A002562,
};
use crate::common;

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
