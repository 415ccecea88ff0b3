//! The command line's conventions (docs/cli.md): `--version`, completions and the manual
//! page, the environment in `--help`, one vocabulary with the old spellings still accepted,
//! `-` for stdin and stdout, and clean CSV on stdout.

use std::path::PathBuf;

use crate::common::{assert_usage_error, json, stderr, stdout, thicket, thicket_with_stdin};

fn data(crate_dir: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(crate_dir)
        .join("data")
        .join(name)
}

#[test]
fn version_names_the_commit_the_features_and_the_cuda_expected() {
    let long = thicket(&["--version"]);
    assert!(long.status.success(), "{}", stderr(&long));
    let text = stdout(&long);
    assert!(text.starts_with("thicket 0."), "{text}");
    for line in [
        "\ncommit    ",
        "\nfeatures  ",
        "libnvrtc.so.13",
        "CUDA 13.0",
    ] {
        assert!(text.contains(line), "{text} lacks {line}");
    }
    let commit = text
        .lines()
        .find_map(|l| l.strip_prefix("commit    "))
        .unwrap();
    assert!(
        commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{commit}"
    );
    let short = stdout(&thicket(&["-V"]));
    assert_eq!(short.lines().count(), 1, "{short}");
    assert!(short.contains(commit), "{short}");
}

#[test]
fn completions_and_the_manual_cover_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = thicket(&["completions", shell]);
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        let script = stdout(&output);
        for command in ["queens", "lookback", "maxflow", "schedule", "completions"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    assert_usage_error(&thicket(&["completions", "tcsh"]), &["tcsh"], "tcsh");
    let man = thicket(&["man"]);
    assert!(man.status.success(), "{}", stderr(&man));
    let page = stdout(&man);
    assert!(page.contains(".TH thicket 1"), "{page}");
    for word in ["lookback", "THICKET_CACHE_DIR"] {
        assert!(page.contains(word), "the manual lacks {word}");
    }
}

#[test]
fn help_lists_the_environment_and_every_problem() {
    let help = stdout(&thicket(&["--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for variable in [
        "THICKET_CACHE_DIR",
        "THICKET_CPU_PATH",
        "THICKET_CUDADEVRT",
        "THICKET_FLOW_ROUND_CYCLES",
        "CUDA_DEVICE_MAX_CONNECTIONS",
        "THICKET_REQUIRE_NVRTC",
    ] {
        assert!(help.contains(variable), "--help lacks {variable}");
    }
    for problem in [
        "N-Queens",
        "asymmetric TSP",
        "options",
        "shortest paths",
        "maximum flow",
    ] {
        assert!(help.contains(problem), "the about lacks {problem}");
    }
}

#[test]
fn strategy_lists_in_help_come_from_the_enums() {
    for (command, names) in [
        (
            "bfs",
            "[possible values: serial, multicore, thesis, thesis-active, gpu",
        ),
        ("maxflow", "[possible values: mpm-serial, push-relabel, mpm"),
        (
            "lookback",
            "[possible values: serial, multicore, thesis, hybrid, tiles]",
        ),
        ("schedule", "[possible values: fcfs, olb, met, mct"),
    ] {
        let help = stdout(&thicket(&[command, "--help"]));
        // The help is wrapped to the terminal's width: compare words, not lines.
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains(names), "{command} --help: {help}");
    }
}

/// `--output` everywhere, and the spellings before it still accepted (hidden).
#[test]
fn result_files_are_output_and_the_old_spellings_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let new = thicket(&[
        "bench",
        "queens",
        "--n",
        "5",
        "--threads",
        "1",
        "--trials",
        "1",
        "--output",
        &file("new.md"),
        "--output-csv",
        &file("new.csv"),
        "--output-json",
        &file("new.json"),
    ]);
    assert!(new.status.success(), "{}", stderr(&new));
    let old = thicket(&[
        "bench",
        "queens",
        "--n",
        "5",
        "--threads",
        "1",
        "--repeat",
        "1",
        "--out",
        &file("old.md"),
        "--csv",
        &file("old.csv"),
        "--json-out",
        &file("old.json"),
    ]);
    assert!(old.status.success(), "{}", stderr(&old));
    for name in [
        "new.md", "new.csv", "new.json", "old.md", "old.csv", "old.json",
    ] {
        assert!(dir.path().join(name).is_file(), "{name} was not written");
    }
    let etc = data("thicket-schedule", "braun/u_c_hihi.0");
    for flag in ["--output", "--assignment"] {
        let out = file(&format!("{flag}.txt"));
        let args = [
            etc.to_str().unwrap(),
            "--method",
            "min-min",
            flag,
            &out,
            "--quiet",
        ];
        let output = thicket(&[&["schedule"][..], &args].concat());
        assert!(output.status.success(), "{flag}: {}", stderr(&output));
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 512);
    }
    for flag in ["--write-network", "--write"] {
        let out = file(&format!("{flag}.max"));
        let args = [
            "maxflow",
            "--generate",
            "genrmf:2:2:1:9:1",
            flag,
            &out,
            "--quiet",
        ];
        assert!(thicket(&args).status.success(), "{flag}");
        assert!(std::fs::read_to_string(&out).unwrap().contains("p max"));
    }
    let help = stdout(&thicket(&["bench", "queens", "--help"]));
    assert!(
        !help.contains("--repeat") && !help.contains("--json-out"),
        "{help}"
    );
}

#[test]
fn a_dash_reads_stdin() {
    let network = std::fs::read(data("thicket-flow", "waissi-example.max")).unwrap();
    let flow = json(&thicket_with_stdin(
        &["maxflow", "-", "--backend", "cpu", "--json", "--quiet"],
        &network,
    ));
    assert_eq!(flow["flow"], 6);
    let atsp = std::fs::read(data("thicket-atsp", "br17.atsp")).unwrap();
    let tour = json(&thicket_with_stdin(
        &["atsp", "-", "--json", "--quiet"],
        &atsp,
    ));
    assert_eq!(tour["cost"], 39);
    let etc = std::fs::read(data("thicket-schedule", "braun/u_c_hihi.0")).unwrap();
    let args = ["schedule", "-", "--method", "min-min", "--json", "--quiet"];
    assert_eq!(json(&thicket_with_stdin(&args, &etc))["tasks"], 512);
    let graph = b"p sp 3 2\na 1 2 5\na 2 3 7\n";
    let args = [
        "sssp", "-", "--format", "gr", "--source", "1", "--json", "--quiet",
    ];
    let paths = json(&thicket_with_stdin(&args, graph));
    assert_eq!(paths["sum_distances"], 17);
    // Without --format the format of stdin is unknown: one line, exit 2.
    let output = thicket_with_stdin(&["bfs", "-", "--source", "1"], graph);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--format"), "{}", stderr(&output));
    // A malformed book on stdin is named <stdin>, not by a temporary file.
    let book = b"payoff,style,spot,strike,maturity,volatility,rate,steps\nput,american,50,50,x,0.4,0.1,10\n";
    let output = thicket_with_stdin(&["lookback", "--batch", "-", "--backend", "cpu"], book);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("<stdin>:2:"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_dash_writes_stdout_and_the_summary_moves_to_stderr() {
    let flow = thicket(&[
        "maxflow",
        "--generate",
        "genrmf:2:2:1:9:1",
        "--backend",
        "cpu",
        "--output",
        "-",
    ]);
    assert!(flow.status.success(), "{}", stderr(&flow));
    assert!(stdout(&flow)
        .lines()
        .all(|l| ["s ", "f ", "c "].iter().any(|p| l.starts_with(p))));
    assert!(
        stderr(&flow).contains("maximum flow of"),
        "{}",
        stderr(&flow)
    );
    let etc = thicket(&["schedule", "--generate", "thesis:20x4", "--write-etc", "-"]);
    assert!(etc.status.success(), "{}", stderr(&etc));
    assert!(stdout(&etc).starts_with("20 4"), "{}", stdout(&etc));
    let graph = thicket(&[
        "graph", "gen", "grid", "--rows", "2", "--cols", "2", "--output", "-", "--format", "el",
    ]);
    assert!(graph.status.success(), "{}", stderr(&graph));
    assert_eq!(stdout(&graph).lines().count(), 8, "{}", stdout(&graph));
    // --json and a result on stdout would mix: refused before anything runs.
    let both = thicket(&[
        "maxflow",
        "--generate",
        "genrmf:2:2:1:9:1",
        "--json",
        "-o",
        "-",
    ]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
    assert_eq!(stderr(&both).trim().lines().count(), 1, "{}", stderr(&both));
}

#[test]
fn a_book_without_output_prints_clean_csv() {
    let header = "payoff,style,spot,strike,maturity,volatility,rate,steps";
    let book = format!(
        "{header}\nput,american,50,50,0.25,0.4,0.1,10\ncall,european,42,40,0.5,0.2,0.1,20\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.csv");
    std::fs::write(&path, &book).unwrap();
    let output = thicket(&[
        "lookback",
        "--batch",
        path.to_str().unwrap(),
        "--backend",
        "cpu",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = stdout(&output);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert_eq!(
        lines[0],
        format!("{header},price,delta,gamma,theta,vega,rho")
    );
    assert!(
        lines[1..].iter().all(|l| l.split(',').count() == 14),
        "{csv}"
    );
    assert!(stderr(&output).contains("options/s"), "{}", stderr(&output));
    let quiet = thicket(&[
        "lookback",
        "--batch",
        path.to_str().unwrap(),
        "--backend",
        "cpu",
        "-q",
    ]);
    assert_eq!(stdout(&quiet), csv);
    assert!(stderr(&quiet).is_empty(), "{}", stderr(&quiet));
    // The same from stdin, and with --output - (stdout named explicitly).
    let piped = thicket_with_stdin(
        &[
            "lookback",
            "--batch",
            "-",
            "--backend",
            "cpu",
            "-q",
            "-o",
            "-",
        ],
        book.as_bytes(),
    );
    assert_eq!(stdout(&piped), csv);
}
