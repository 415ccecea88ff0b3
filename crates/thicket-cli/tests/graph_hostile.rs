//! The robustness issue's graph cases end to end: each refused in one line naming the file
//! and line, with the documented exit code, and no output file left by a refused run.

mod common;

use common::{stderr, thicket};

#[test]
fn hostile_graph_files_are_refused_in_one_line_with_their_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("distances.txt");
    std::fs::write(&out, "kept\n").unwrap();
    let cases = [
        (
            "a.gr",
            "p sp 3 9223372036854775807\na 1 2 3\n",
            2,
            "a.gr:1: the 'p' line declares",
        ),
        (
            "b.gr",
            "p sp 4294967294 1\na 1 2 3\n",
            1,
            "b.gr:1: a graph of 4294967294 vertices",
        ),
        (
            "c.el",
            "0 4294967293\n",
            1,
            "c.el:1: a graph of 4294967294 vertices",
        ),
        (
            "d.el",
            "0 4294967294\n",
            2,
            "d.el:1: vertex 4294967294 does not fit 32-bit ids",
        ),
        (
            "e.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e300\n",
            2,
            "e.mtx:3: weight 1e300 is past 4294967295",
        ),
    ];
    for (name, text, code, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let output = thicket(&[
            "sssp".as_ref(),
            path.as_os_str(),
            "--source".as_ref(),
            "1".as_ref(),
            "--backend".as_ref(),
            "cpu".as_ref(),
            "--output".as_ref(),
            out.as_os_str(),
        ]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{name}: {message}");
        assert_eq!(message.trim().lines().count(), 1, "{name}: {message}");
        assert!(message.contains(want), "{name}: {message}");
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

#[test]
fn generator_parameters_out_of_reach_are_refused_with_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.el");
    let out = out.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["vl", "--vertices", "100", "--degree", "100"],
            "has mean degree 2 to 99",
        ),
        (
            &["vl", "--vertices", "3", "--degree", "5"],
            "has mean degree only 2",
        ),
        (&["uniform", "--degree", "0"], "has no edges"),
    ];
    for (args, want) in cases {
        let mut all = vec!["graph", "gen"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", out]);
        let output = thicket(&all);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains(want), "{args:?}: {message}");
        assert!(!std::path::Path::new(out).exists(), "{args:?}");
    }
    let output = thicket(&[
        "graph",
        "gen",
        "vl",
        "--vertices",
        "100",
        "--degree",
        "99",
        "-o",
        out,
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let info = thicket(&["graph", "info", out, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(stats["mean_out_degree"], 99.0);
}
