//! End-to-end checks of the `thicket` binary: output, exit codes, and the GPU fallback.
//!
//! The GPU tests expect a machine without a usable GPU (CI, developer laptops) and say so
//! instead of testing anything where one is found.

use crate::common::{assert_usage_error, gpu_present, json, stderr, stdout, thicket};

#[test]
fn queens_8_json_has_every_key() {
    let output = thicket(&["queens", "8", "--backend", "cpu", "--json", "--quiet"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["n"], 8);
    assert_eq!(value["total"], 92);
    assert_eq!(value["unique"], 12);
    assert_eq!(value["backend"], "cpu");
    assert!(value["seconds"].as_f64().is_some_and(|s| s >= 0.0));
    assert!(value["threads"].as_u64().is_some_and(|t| t >= 1));
    assert!(value["devices"].as_array().is_some_and(|d| d.is_empty()));
}

#[test]
fn trials_and_verification_are_reported() {
    let value = json(&thicket(&[
        "queens",
        "9",
        "--backend",
        "cpu",
        "--trials",
        "3",
        "--verify",
        "--json",
        "--quiet",
    ]));
    assert_eq!(
        (value["total"].as_u64(), value["verified"].as_bool()),
        (Some(352), Some(true))
    );
    assert_eq!(value["trial_seconds"].as_array().map(Vec::len), Some(3));
    let text = stdout(&thicket(&["queens", "9", "--backend", "cpu", "--verify"]));
    assert!(text.contains("verified   against OEIS"), "{text}");
}

/// A reader that has closed the pipe ends thicket without a panic message.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // The read end is closed before thicket starts, so its first write meets a closed pipe.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(["queens", "--help"])
        .stdout(writer)
        .output()
        .unwrap();
    assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
}

/// A command line clap cannot parse is rendered as clap renders it (the error, the usage line
/// and, for a misspelt flag, its "did you mean" tip), with exit code 2. (Until the CLI's
/// conventions were settled these were cut to one line.)
#[test]
fn a_bad_command_line_exits_with_two_and_clap_s_usage() {
    for (args, word) in [
        (&["queens", "0"][..], "'0'"),
        (&["queens", "33"], "'33'"),
        (&["queens", "abc"], "'abc'"),
        (&["queens", "8", "--no-such-flag"], "--no-such-flag"),
        (&["queens", "8", "--backend", "tpu"], "tpu"),
    ] {
        assert_usage_error(&thicket(args), &[word], &args.join(" "));
    }
    let misspelt = thicket(&["queens", "8", "--trails", "2"]);
    assert_usage_error(&misspelt, &["tip:", "'--trials'"], "--trails");
    let output = thicket(&["queens", "8", "--backend", "tpu"]);
    assert!(stderr(&output).contains("[possible values: auto, cpu, cuda]"));
}

#[test]
fn a_missing_argument_is_named_with_the_usage() {
    for (args, missing) in [
        (&["queens"][..], "<N>"),
        (&["merge"], "<LEDGERS>"),
        (&["queens", "8", "--shard", "1/2"], "--ledger"),
    ] {
        let output = thicket(args);
        assert_usage_error(&output, &[missing, "Usage: thicket"], &args.join(" "));
    }
}

#[test]
fn cuda_backend_without_gpu_fails_with_one_line() {
    if gpu_present("cuda_backend_without_gpu_fails_with_one_line") {
        return;
    }
    let output = thicket(&["queens", "8", "--backend", "cuda"]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(message.contains("unavailable"), "{message}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn auto_backend_falls_back_to_the_cpu_and_says_so() {
    if gpu_present("auto_backend_falls_back_to_the_cpu_and_says_so") {
        return;
    }
    let output = thicket(&["queens", "10", "--json", "--quiet"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(
        (value["total"].clone(), value["unique"].clone()),
        (724.into(), 92.into())
    );
    assert_eq!(value["backend"], "cpu");
    assert!(
        value["notes"][0].as_str().unwrap().contains("CPU"),
        "{value}"
    );
    // `--quiet` silences all but errors; without it the note is one line on stderr.
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    let output = thicket(&["queens", "10", "--json"]);
    let note = stderr(&output);
    assert_eq!(note.trim().lines().count(), 1, "{note}");
    assert!(note.contains("CPU"), "{note}");
}

#[test]
fn devices_says_plainly_when_there_is_no_gpu() {
    let output = thicket(&["devices"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("CPU:"), "{text}");
    if gpu_present("devices_says_plainly_when_there_is_no_gpu") {
        assert!(text.contains("GPU 0:"), "{text}");
        return;
    }
    assert!(text.starts_with("no GPU"), "{text}");
    let value = json(&thicket(&["devices", "--json"]));
    assert_eq!(value["gpus"].as_array().map(Vec::len), Some(0));
    assert!(value["reason"].as_str().is_some_and(|r| !r.is_empty()));
    assert!(value["cpu_cores"].as_u64().is_some_and(|c| c >= 1));
}

#[test]
fn perm_queens_reports_the_thesis_node_count() {
    for strategy in ["serial", "multicore"] {
        let output = thicket(&[
            "perm-queens",
            "10",
            "--strategy",
            strategy,
            "--json",
            "--quiet",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let value = json(&output);
        assert_eq!(value["nodes"], 35_538);
        assert_eq!(value["solutions"], 724);
        assert_eq!(value["strategy"], strategy);
    }
    assert_usage_error(
        &thicket(&["perm-queens", "40"]),
        &["'40'"],
        "perm-queens 40",
    );
}

#[test]
fn atsp_solves_br17_and_reports_bad_files_by_line() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../thicket-atsp/data/br17.atsp"
    );
    let value = json(&thicket(&["atsp", file, "--json", "--quiet"]));
    assert_eq!(value["cost"], 39);
    assert_eq!(value["proven_optimal"], true);
    assert_eq!(value["tour"].as_array().unwrap().len(), 17);
    assert_eq!(value["tour"][0], 0);

    let dir = std::env::temp_dir().join(format!("thicket-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.atsp");
    std::fs::write(
        &bad,
        "NAME: bad\nTYPE: ATSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\n\
         EDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 1 2\n3 x 5\n6 7 0\nEOF\n",
    )
    .unwrap();
    let output = thicket(&["atsp", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("bad.atsp:8:"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();

    let generated = json(&thicket(&[
        "atsp",
        "--generate",
        "crane:10:7",
        "--json",
        "--quiet",
    ]));
    assert_eq!(generated["proven_optimal"], true);
}

#[test]
fn a_missing_file_is_named() {
    // Issue 29: a missing input file is bad input.
    let output = thicket(&["atsp", "no-such-instance.atsp"]);
    // A missing input is bad input, as in every command.
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(message.contains("no-such-instance.atsp"), "{message}");
}

#[test]
fn perm_queens_and_atsp_take_the_backend_flags() {
    let cpu = json(&thicket(&[
        "perm-queens",
        "9",
        "--backend",
        "cpu",
        "--threads",
        "2",
        "--verify",
        "--json",
        "--quiet",
    ]));
    assert_eq!(
        (cpu["strategy"].as_str(), cpu["verified"].as_bool()),
        (Some("multicore"), Some(true))
    );
    assert_eq!(cpu["threads"], 2);
    let contradiction = thicket(&[
        "perm-queens",
        "9",
        "--backend",
        "cpu",
        "--strategy",
        "bp-dfs",
    ]);
    assert_eq!(
        contradiction.status.code(),
        Some(2),
        "{}",
        stderr(&contradiction)
    );
    let two_gpus = thicket(&[
        "atsp",
        "--generate",
        "coin:6:1",
        "--strategy",
        "bp-dfs",
        "--devices",
        "0,1",
    ]);
    assert_eq!(two_gpus.status.code(), Some(2), "{}", stderr(&two_gpus));
}

#[test]
fn gpu_permutation_strategies_fail_with_one_line_without_a_gpu() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../thicket-atsp/data/br17.atsp"
    );
    let assignment = thicket(&[
        "atsp",
        file,
        "--strategy",
        "rec-cdp",
        "--bound",
        "assignment",
    ]);
    assert_eq!(assignment.status.code(), Some(2));
    assert!(stderr(&assignment).contains("--bound partial"));
    assert_eq!(stderr(&assignment).lines().count(), 1);
    if gpu_present("gpu_permutation_strategies_fail_with_one_line_without_a_gpu") {
        return;
    }
    for strategy in ["bp-dfs", "bp-dfs-pool", "rec-cdp", "rec-dp3", "cdp-bp"] {
        for args in [
            vec!["perm-queens", "10", "--strategy", strategy],
            vec!["atsp", file, "--strategy", strategy],
        ] {
            let output = thicket(&args);
            assert_eq!(output.status.code(), Some(1), "{args:?}");
            let message = stderr(&output);
            assert_eq!(message.lines().count(), 1, "{message}");
            assert!(message.contains("unavailable"), "{message}");
        }
    }
}

#[test]
fn paper_strategies_refuse_the_cpu_and_bad_parameters() {
    let cpu = thicket(&["queens", "12", "--strategy", "naive", "--backend", "cpu"]);
    assert_eq!(cpu.status.code(), Some(2), "{}", stderr(&cpu));
    assert!(stderr(&cpu).contains("--backend cuda"), "{}", stderr(&cpu));
    let unknown = thicket(&["queens", "12", "--strategy", "warp-drive"]);
    assert_eq!(unknown.status.code(), Some(2));
    let list = thicket(&["bench", "queens", "--strategies", "naive,nope"]);
    assert_eq!(list.status.code(), Some(2));
    assert!(
        stderr(&list).contains("unknown strategy"),
        "{}",
        stderr(&list)
    );
}

#[test]
fn paper_strategies_without_gpu_fail_with_one_line() {
    if gpu_present("paper_strategies_without_gpu_fail_with_one_line") {
        return;
    }
    for args in [
        &["queens", "10", "--strategy", "dp3", "--backend", "cuda"][..],
        &["bench", "queens", "--strategies", "all", "--n", "8"],
    ] {
        let output = thicket(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let message = stderr(&output);
        assert_eq!(message.trim().lines().count(), 1, "{message}");
        assert!(message.contains("unavailable"), "{message}");
    }
}
