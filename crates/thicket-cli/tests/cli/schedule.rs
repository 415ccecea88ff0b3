//! End-to-end tests of `thicket schedule`: the JSON keys scripts rely on, Min-Min on a Braun
//! instance, the assignment file, generated matrices, and bad input (one line naming the file
//! and line, exit 2).

use std::path::PathBuf;

use crate::common::{json, stderr, stdout, thicket, thicket_with_stdin};

fn braun(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../thicket-schedule/data/braun")
        .join(name)
        .to_str()
        .expect("a UTF-8 path")
        .to_owned()
}

#[test]
fn json_has_the_interface_keys_and_min_min_its_published_value() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.txt");
    let value = json(&thicket(&[
        "schedule",
        &braun("u_c_lolo.0"),
        "--method",
        "min-min",
        "--assignment",
        out.to_str().unwrap(),
        "--json",
        "--verify",
    ]));
    for key in [
        "makespan", "tasks", "machines", "method", "backend", "seconds", "loads",
    ] {
        assert!(value.get(key).is_some(), "no {key}");
    }
    assert!((value["makespan"].as_f64().unwrap() - 5_441.428197).abs() < 1e-6);
    assert_eq!(value["tasks"], 512);
    assert_eq!(value["machines"], 16);
    assert_eq!(value["method"], "min-min");
    assert_eq!(value["backend"], "cpu");
    assert_eq!(value["verified"], true);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 512);
    assert!(text.lines().all(|l| l.parse::<u32>().is_ok_and(|m| m < 16)));
}

#[test]
fn the_default_beats_min_min_and_generated_matrices_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let etc = dir.path().join("g.etc");
    let etc = etc.to_str().unwrap();
    let made = thicket(&[
        "schedule",
        "--generate",
        "u_s_hilo:64x8",
        "--seed",
        "3",
        "--write-etc",
        etc,
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let min_min = json(&thicket(&[
        "schedule", etc, "--method", "min-min", "--json",
    ]));
    let default = json(&thicket(&[
        "schedule",
        etc,
        "--epochs",
        "5",
        "--threads",
        "2",
        "--json",
        "--quiet",
        "--verify",
    ]));
    assert_eq!(default["method"], "lp-ils");
    assert_eq!(default["verified"], true);
    assert!(default["makespan"].as_f64().unwrap() <= min_min["makespan"].as_f64().unwrap());
    let generated = json(&thicket(&[
        "schedule",
        "--generate",
        "u_s_hilo:64x8",
        "--seed",
        "3",
        "--method",
        "min-min",
        "--json",
    ]));
    // The file keeps six decimals.
    let (a, b) = (
        generated["makespan"].as_f64().unwrap(),
        min_min["makespan"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 1e-6 * b, "{a} vs {b}");
}

#[test]
fn bad_input_is_one_line_naming_the_file_and_line_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.etc");
    for (text, wanted) in [
        ("2 2 0\n1\n2\n3\n", "bad.etc:4: 3 times"),
        ("1 2 0\n1\n-2\n", "bad.etc:3: time -2"),
        ("1 2 0\n1\nabc\n", "bad.etc:3: \"abc\" is not a number"),
        ("0 2 0\n", "bad.etc:1: tasks"),
        ("2 0\n", "bad.etc:1: machines"),
    ] {
        std::fs::write(&file, text).unwrap();
        let output = thicket(&["schedule", file.to_str().unwrap(), "--method", "mct"]);
        assert_eq!(output.status.code(), Some(2), "{text:?}");
        let message = stderr(&output);
        assert_eq!(message.trim().lines().count(), 1, "{message}");
        assert!(
            message.contains("bad.etc") && message.contains(wanted),
            "{message}"
        );
    }
    let output = thicket(&["schedule", &braun("u_c_lolo.0"), "--method", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let output = thicket(&["schedule", "--generate", "u_q_hihi:5x5", "--method", "mct"]);
    assert_eq!(output.status.code(), Some(2));
}

/// Issue 32: a plain CSV matrix (tasks as lines, machines as columns, no header) reads as the
/// same matrix as its Braun file, refusals name file:line:column, and `--assignment -` puts
/// the assignment on stdout with the summary on stderr.
#[test]
fn a_csv_matrix_reads_like_braun_and_the_assignment_goes_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let (etc, csv) = (dir.path().join("g.etc"), dir.path().join("g.csv"));
    for out in [&etc, &csv] {
        let made = thicket(&[
            "schedule",
            "--generate",
            "u_i_lohi:40x6",
            "--seed",
            "4",
            "--write-etc",
            out.to_str().unwrap(),
        ]);
        assert!(made.status.success(), "{}", stderr(&made));
    }
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 40);
    assert!(csv_text.lines().all(|l| l.split(',').count() == 6));
    let run = |file: &std::path::Path| {
        let output = thicket(&[
            "schedule",
            file.to_str().unwrap(),
            "--method",
            "min-min",
            "--assignment",
            "-",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let assignment = String::from_utf8(output.stdout.clone()).unwrap();
        assert_eq!(assignment.lines().count(), 40);
        assert!(assignment
            .lines()
            .all(|l| l.parse::<u32>().is_ok_and(|m| m < 6)));
        assert!(stderr(&output).contains("makespan"));
        assignment
    };
    assert_eq!(run(&etc), run(&csv));
    let bad = dir.path().join("bad.csv");
    for (text, wanted) in [
        ("1,2\n3,x\n", "bad.csv:2:2: \"x\" is not a number"),
        ("1,2\n3\n", "bad.csv:2: 1 values where line 1 has 2"),
        ("1,-4\n", "bad.csv:1:2: time -4"),
    ] {
        std::fs::write(&bad, text).unwrap();
        let output = thicket(&["schedule", bad.to_str().unwrap(), "--method", "mct"]);
        assert_eq!(output.status.code(), Some(2), "{text:?}");
        let message = stderr(&output);
        assert_eq!(message.trim().lines().count(), 1, "{message}");
        assert!(message.contains(wanted), "{message}");
    }
}

/// Issue 44: `-` reads a CSV matrix from stdin (told by its commas, or by --format), and
/// --format names the format of any file and of what --write-etc writes.
#[test]
fn a_csv_matrix_reads_from_stdin_and_format_names_any_file() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("g.csv");
    let made = thicket(&[
        "schedule",
        "--generate",
        "u_i_lohi:20x4",
        "--write-etc",
        csv.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let text = std::fs::read(&csv).unwrap();
    let min_min = ["--method", "min-min", "--json", "--quiet"];
    let from_file = json(&thicket(
        &[&["schedule", csv.to_str().unwrap()], &min_min[..]].concat(),
    ));
    for format in [&[][..], &["--format", "csv"]] {
        let args = [&["schedule", "-"], format, &min_min[..]].concat();
        let piped = json(&thicket_with_stdin(&args, &text));
        assert_eq!(piped["makespan"], from_file["makespan"], "{args:?}");
    }
    // A CSV file under another name reads with --format csv.
    let plain = dir.path().join("g.data");
    std::fs::copy(&csv, &plain).unwrap();
    let named = json(&thicket(
        &[
            &["schedule", plain.to_str().unwrap(), "--format", "csv"],
            &min_min[..],
        ]
        .concat(),
    ));
    assert_eq!(named["makespan"], from_file["makespan"]);
    // Errors on stdin name it <stdin>, with line and column.
    let bad = thicket_with_stdin(&["schedule", "-", "--method", "mct"], b"1,2\n3,x\n");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("<stdin>:2:2: \"x\" is not a number"),
        "{}",
        stderr(&bad)
    );
    // --write-etc - --format csv writes CSV on stdout, the same matrix.
    let written = thicket(&[
        "schedule",
        "--generate",
        "u_i_lohi:20x4",
        "--write-etc",
        "-",
        "--format",
        "csv",
    ]);
    assert!(written.status.success(), "{}", stderr(&written));
    assert_eq!(stdout(&written).as_bytes(), &text[..]);
}

/// Issue 44: a time limit is echoed as written in short form (`1e308`), not in 309 digits,
/// by `schedule` and by `atsp` (the two commands with `--time-limit`).
#[test]
fn a_time_limit_is_echoed_in_short_form() {
    let cases = [
        (
            vec!["schedule", "--generate", "thesis:8x2"],
            "1e308",
            "time limit 1e308 is not",
        ),
        (
            vec!["schedule", "--generate", "thesis:8x2"],
            "-1e-300",
            "time limit -1e-300 is not",
        ),
        (
            vec!["schedule", "--generate", "thesis:8x2"],
            "0",
            "time limit 0 is not",
        ),
        (
            vec!["atsp", "--generate", "tsmat:8:1"],
            "1e308",
            "time limit 1e308 is not",
        ),
        // Positive, but no time at all once read: the limit passed while reading.
        (
            vec!["atsp", "--generate", "tsmat:8:1"],
            "1e-300",
            "time limit 1e-300 s passed",
        ),
    ];
    for (mut args, limit, wanted) in cases {
        let flag = format!("--time-limit={limit}");
        args.push(&flag);
        let output = thicket(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert_eq!(message.trim().lines().count(), 1, "{message}");
        assert!(message.contains(wanted), "{args:?}: {message}");
        assert!(message.len() < 120, "{message}");
    }
}

/// Issue 49: a 4 x 2 matrix under the default 10 s limit is answered at once, proven optimal
/// (its LP bound, 6.23, is below the optimum 7; the exhaustive search proves 7): no epoch of
/// the search runs, and the text says so too.
#[test]
fn a_tiny_matrix_stops_proven_optimal_long_before_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.csv");
    std::fs::write(&path, "3,5\n4,2\n6,7\n1,1\n").unwrap();
    let path = path.to_str().unwrap();
    let value = json(&thicket(&["schedule", path, "--backend", "cpu", "--json"]));
    assert_eq!(value["makespan"], 7.0);
    assert_eq!(value["lower_bound"], 7.0);
    assert_eq!(value["optimal"], true);
    assert_eq!(value["epochs"], 0);
    assert!(value["seconds"].as_f64().unwrap() < 5.0, "{value}");
    let output = thicket(&["schedule", path, "--backend", "cpu"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("lower bound  7.000000 (makespan proven optimal)"),
        "{}",
        stdout(&output)
    );
}
