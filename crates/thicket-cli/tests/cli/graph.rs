//! End-to-end tests of `thicket bfs`, `thicket sssp`, `thicket graph` and `thicket bench
//! bfs`: the JSON keys
//! scripts rely on, the outside references for rome99 (DIMACS ids), generated graphs in every
//! format giving the same answers, the output file, and bad input (one line, exit 2).

use std::path::PathBuf;

use crate::common::{json, stderr, stdout, thicket};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../thicket-graph/data")
        .join(name)
        .to_str()
        .expect("a UTF-8 path")
        .to_owned()
}

#[test]
fn bfs_and_sssp_json_match_the_rome99_references() {
    let rome = data("rome99.gr");
    for (command, strategy, sum, max) in [
        ("bfs", "serial", 92_781u64, 47u64),
        ("bfs", "multicore", 92_781, 47),
        ("sssp", "dijkstra", 116_006_476, 69_102),
        ("sssp", "delta-stepping", 116_006_476, 69_102),
    ] {
        let value = json(&thicket(&[
            command,
            &rome,
            "--source",
            "1",
            "--strategy",
            strategy,
            "--backend",
            "cpu",
            "--json",
            "--quiet",
            "--verify",
        ]));
        for key in [
            "vertices",
            "arcs",
            "reached",
            "max_distance",
            "sum_distances",
            "strategy",
            "backend",
            "seconds",
        ] {
            assert!(value.get(key).is_some(), "{command} {strategy}: no {key}");
        }
        assert_eq!(value["vertices"], 3353);
        assert_eq!(value["arcs"], 8870);
        assert_eq!(value["reached"], 3353);
        assert_eq!(value["sum_distances"], sum, "{command} {strategy}");
        assert_eq!(value["max_distance"], max, "{command} {strategy}");
        assert_eq!(value["strategy"], strategy);
        assert_eq!(value["verified"], true);
    }
}

#[test]
fn several_sources_are_each_reported() {
    let value = json(&thicket(&[
        "sssp",
        &data("rome99.gr"),
        "--source",
        "1676",
        "--source",
        "3353",
        "--backend",
        "cpu",
        "--json",
        "--quiet",
    ]));
    let searches = value["searches"].as_array().unwrap();
    assert_eq!(searches.len(), 2);
    assert_eq!(searches[0]["sum_distances"], 31_147_171);
    assert_eq!(searches[1]["sum_distances"], 33_624_198);
    let random = json(&thicket(&[
        "bfs",
        &data("rome99.gr"),
        "--sources",
        "4",
        "--backend",
        "cpu",
        "--json",
        "--quiet",
    ]));
    assert_eq!(random["searches"].as_array().unwrap().len(), 4);
}

#[test]
fn a_generated_graph_gives_the_same_answer_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let mut answers = Vec::new();
    for name in [
        "g.el", "g.wel", "g.gr", "g.mtx", "g.tgr", "g.wsg", "g.txt", "g.wel.gz",
    ] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        let made = thicket(&[
            "graph",
            "gen",
            "kron",
            "--scale",
            "10",
            "--edge-factor",
            "8",
            "--seed",
            "5",
            "-o",
            path,
        ]);
        assert!(made.status.success(), "{}", stderr(&made));
        // Vertex 10 as the file numbers it: 0-based edge lists, 1-based .gr and .mtx.
        let source = if name.ends_with(".gr") || name.ends_with(".mtx") {
            "11"
        } else {
            "10"
        };
        let command = if name == "g.el" || name == "g.txt" {
            "bfs"
        } else {
            "sssp"
        };
        let value = json(&thicket(&[
            command,
            path,
            "--source",
            source,
            "--backend",
            "cpu",
            "--json",
            "--quiet",
            "--verify",
        ]));
        answers.push((
            command,
            value["reached"].clone(),
            value["sum_distances"].clone(),
        ));
    }
    let weighted: Vec<_> = answers.iter().filter(|a| a.0 == "sssp").collect();
    assert!(
        weighted
            .windows(2)
            .all(|w| w[0].1 == w[1].1 && w[0].2 == w[1].2),
        "{answers:?}"
    );
    let info = json(&thicket(&[
        "graph",
        "info",
        dir.path().join("g.gr").to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(info["vertices"], 1024);
    assert_eq!(info["symmetric"], true);
}

#[test]
fn the_output_file_lists_every_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.txt");
    let ran = thicket(&[
        "sssp",
        &data("gapbs-4.gr"),
        "--source",
        "2",
        "--backend",
        "cpu",
        "--quiet",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 14);
    assert_eq!(lines[1], "2 2 0 -");
    assert_eq!(lines[0], "2 1 unreachable");
    // Every source's rows, in one file or one file per source.
    let each = dir.path().join("d-{source}.txt");
    for out in [&out, &each] {
        let ran = thicket(&[
            "bfs",
            &data("gapbs-4.gr"),
            "--source",
            "2",
            "--source",
            "9",
            "--backend",
            "cpu",
            "--quiet",
            "--output",
            out.to_str().unwrap(),
        ]);
        assert!(ran.status.success(), "{}", stderr(&ran));
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 28);
    assert!(text.contains("9 9 0 -\n"), "{text}");
    let nine = std::fs::read_to_string(dir.path().join("d-9.txt")).unwrap();
    assert_eq!(
        nine,
        text.lines()
            .skip(14)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
    assert!(dir.path().join("d-2.txt").exists());
}

#[test]
fn snap_files_with_named_ids_answer_in_their_names_and_convert_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("people.txt");
    std::fs::write(
        &snap,
        "# who follows whom\nann\tbob\nbob\tcid\ncid\tann\nbob\tdan\n",
    )
    .unwrap();
    let out = dir.path().join("d.txt");
    let ran = thicket(&[
        "bfs",
        snap.to_str().unwrap(),
        "--source",
        "bob",
        "--backend",
        "cpu",
        "--quiet",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let rows = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        rows,
        "bob ann 2 cid\nbob bob 0 -\nbob cid 1 bob\nbob dan 1 bob\n"
    );
    let missing = thicket(&["bfs", snap.to_str().unwrap(), "--source", "eve", "--quiet"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("source \"eve\" is not in the graph"),
        "{}",
        stderr(&missing)
    );
    // .txt -> .tgr.gz -> .txt: the structure survives, the names only in a .txt.
    let packed = dir.path().join("p.tgr.gz");
    let back = dir.path().join("back.txt");
    for (from, to) in [(&snap, &packed), (&packed, &back)] {
        let ran = thicket(&[
            "graph",
            "convert",
            from.to_str().unwrap(),
            to.to_str().unwrap(),
        ]);
        assert!(ran.status.success(), "{}", stderr(&ran));
    }
    let again = std::fs::read_to_string(&back).unwrap();
    assert!(again.ends_with("0\t1\n1\t2\n1\t3\n2\t0\n"), "{again}");
    // --format names the format of any file; a gzip stream on stdin reads too.
    let plain = dir.path().join("edges.data");
    std::fs::copy(&snap, &plain).unwrap();
    let info = json(&thicket(&[
        "graph",
        "info",
        plain.to_str().unwrap(),
        "--format",
        "txt",
        "--json",
    ]));
    assert_eq!(info["vertices"], 4);
    let gz = std::fs::read(&packed).unwrap();
    let value = json(&crate::common::thicket_with_stdin(
        &[
            "bfs", "-", "--format", "tgr", "--source", "1", "--json", "--quiet",
        ],
        &gz,
    ));
    assert_eq!(value["reached"], 4);
}

#[test]
fn bad_input_is_one_line_and_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let cases = [
        (write("a.gr", "p sp 3 2\na 1 2 5\na 1 x 5\n"), "1", "a.gr:3"),
        (write("b.gr", "p sp 3 2\na 1 2 5\n"), "1", "ends early"),
        (
            write("c.gr", "p sp 3 1\na 1 9 5\n"),
            "1",
            "vertex 9 is outside 1..=3",
        ),
        (write("d.gr", "c nothing\n"), "1", "empty graph"),
        (write("e.el", "0 1\n1 2 3\n"), "0", "e.el:2"),
        (
            data("rome99.gr"),
            "0",
            "source 0 is not a vertex (1..=3353)",
        ),
        (data("rome99.gr"), "3354", "source 3354 is not a vertex"),
        (write("f.xyz", "0 1\n"), "0", "unknown graph format"),
    ];
    for (path, source, want) in &cases {
        let output = thicket(&[
            "bfs",
            path,
            "--source",
            source,
            "--backend",
            "cpu",
            "--quiet",
        ]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{path}: {message}");
        assert_eq!(message.trim().lines().count(), 1, "{path}: {message}");
        assert!(message.contains(want), "{path}: {message}");
    }
    let negative = write("n.gr", "p sp 2 1\na 1 2 -4\n");
    let output = thicket(&[
        "sssp",
        &negative,
        "--source",
        "1",
        "--backend",
        "cpu",
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("negative weight"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bench_bfs_writes_its_tables_and_checks_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = thicket(&[
        "bench",
        "bfs",
        "--scales",
        "8..9",
        "--edge-factor",
        "8",
        "--grid",
        "10x12",
        "--sources",
        "4",
        "--strategies",
        "serial,multicore,dijkstra,delta-stepping",
        "--threads",
        "2",
        "--json",
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    let value = json(&output);
    assert_eq!(value["experiment"], "modern");
    let rows = value["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    assert!(rows.iter().all(|r| r["verified"] == true), "{value}");
    for ext in ["md", "csv", "json", "svg"] {
        assert!(out.join(format!("bfs-bench.{ext}")).exists(), "{ext}");
    }
    let thesis = thicket(&[
        "bench",
        "bfs",
        "--thesis",
        "--vertices",
        "500",
        "--graphs",
        "2",
        "--strategies",
        "serial,multicore",
    ]);
    assert!(thesis.status.success(), "{}", stderr(&thesis));
    assert!(stdout(&thesis).contains("Table 4.1's split"));
    for (args, want) in [
        (&["--max-seconds", "0"][..], "time cap"),
        (&["--grid", "0x5"][..], "grid side"),
        (&["--scales", "40"][..], "Kronecker scale"),
        // A name outside the enum is clap's error, listing the enum's names.
        (
            &["--strategies", "bogus"][..],
            "[possible values: serial, multicore",
        ),
    ] {
        let output = thicket(&[&["bench", "bfs"][..], args].concat());
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains(want), "{args:?}: {message}");
    }
}

/// FNV-1a of a file's bytes: enough to tell one output from another.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `graph gen` writes, on any number of threads, the bytes it wrote before its generation,
/// build and `.tgr` write ran on every core (lengths and hashes of the serial build's files,
/// thicket at e33f2b4).
#[test]
fn generated_files_are_the_serial_builds_bytes_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    for (args, name, len, hash) in [
        (
            "kron --scale 10 --edge-factor 8 --seed 5",
            "k.tgr",
            105_138,
            0x277c_2981_f607_bd5c_u64,
        ),
        (
            "kron --scale 10 --edge-factor 8 --seed 5",
            "k.wsg",
            105_129,
            0x894b_61a4_6303_dcec,
        ),
        (
            "grid --rows 30 --cols 41 --seed 2",
            "g.tgr",
            48_098,
            0xc245_5e2b_4a52_c567,
        ),
        (
            "uniform --vertices 2000 --degree 7 --seed 3",
            "u.wel",
            173_974,
            0xedee_3d28_d7b6_5b59,
        ),
        (
            "vl --vertices 500 --degree 6 --seed 4",
            "v.gr",
            39_455,
            0x77ff_21db_7810_8a41,
        ),
    ] {
        for threads in ["1", "3"] {
            let path = dir.path().join(name);
            let mut command = vec!["graph", "gen"];
            command.extend(args.split(' '));
            command.extend(["--threads", threads, "-o", path.to_str().unwrap()]);
            let made = thicket(&command);
            assert!(made.status.success(), "{}", stderr(&made));
            assert!(stderr(&made).contains("built"), "{}", stderr(&made));
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(
                (bytes.len(), fnv1a(&bytes)),
                (len, hash),
                "{args} -o {name} on {threads} threads"
            );
        }
    }
}

/// Issue 44: converting a weighted graph to a format without weights (.sg, .el) says, in a
/// note on stderr as for dropped SNAP ids, that the weights are dropped; a format that keeps
/// them says nothing.
#[test]
fn convert_notes_the_weights_a_format_drops() {
    let dir = tempfile::tempdir().unwrap();
    let weighted = data("gapbs-4.wsg");
    for (name, dropped) in [
        ("w.sg", true),
        ("w.el", true),
        ("w.wel", false),
        ("w.gr", false),
    ] {
        let out = dir.path().join(name);
        let ran = thicket(&["graph", "convert", &weighted, out.to_str().unwrap()]);
        assert!(ran.status.success(), "{}", stderr(&ran));
        let note = stderr(&ran)
            .lines()
            .any(|l| l.starts_with("note: ") && l.contains("has arc weights") && l.contains(name));
        assert_eq!(note, dropped, "{name}: {}", stderr(&ran));
    }
    // An unweighted graph has none to drop.
    let plain = dir.path().join("p.el");
    let ran = thicket(&[
        "graph",
        "convert",
        &data("gapbs-4.sg"),
        plain.to_str().unwrap(),
    ]);
    assert!(
        ran.status.success() && !stderr(&ran).contains("note:"),
        "{}",
        stderr(&ran)
    );
}
