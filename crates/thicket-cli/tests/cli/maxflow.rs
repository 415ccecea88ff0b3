//! End-to-end tests of `thicket maxflow`: the JSON keys scripts rely on, the outside
//! reference values, generated networks (written and read back), the solution file, and bad
//! input (one line, exit 2).

use std::path::PathBuf;

use crate::common::{json, stderr, thicket, thicket_with_stdin};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../thicket-flow/data")
        .join(name)
        .to_str()
        .expect("a UTF-8 path")
        .to_owned()
}

#[test]
fn json_has_the_fixed_keys_and_the_reference_values() {
    for (file, flow) in [("waissi-example.max", 6u64), ("m30.max", 28_258_807)] {
        for strategy in ["mpm-serial", "push-relabel"] {
            let value = json(&thicket(&[
                "maxflow",
                &data(file),
                "--strategy",
                strategy,
                "--backend",
                "cpu",
                "--json",
                "--quiet",
            ]));
            for key in [
                "flow", "vertices", "arcs", "cut_arcs", "strategy", "backend", "seconds",
                "verified",
            ] {
                assert!(value.get(key).is_some(), "{file} {strategy}: no {key}");
            }
            assert_eq!(value["flow"], flow, "{file} {strategy}");
            assert_eq!(value["strategy"], strategy);
            assert_eq!(value["backend"], "cpu");
            assert_eq!(value["verified"], true);
        }
    }
}

#[test]
fn generated_networks_are_written_read_back_and_solved_alike() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.max");
    let flow_file = dir.path().join("g.flow");
    let generated = json(&thicket(&[
        "maxflow",
        "--generate",
        "genrmf:4:3:10:20:5",
        "--write",
        file.to_str().unwrap(),
        "--output",
        flow_file.to_str().unwrap(),
        "--backend",
        "cpu",
        "--json",
        "--quiet",
    ]));
    assert_eq!(generated["vertices"], 48);
    assert_eq!(generated["arcs"], 176);
    let read = json(&thicket(&[
        "maxflow",
        file.to_str().unwrap(),
        "--strategy",
        "mpm-serial",
        "--json",
        "--quiet",
    ]));
    assert_eq!(read["flow"], generated["flow"]);
    let solution = std::fs::read_to_string(&flow_file).unwrap();
    assert!(solution.contains(&format!("\ns {}\n", generated["flow"])));
    assert_eq!(
        solution.lines().filter(|l| l.starts_with("f ")).count(),
        176
    );
    assert_eq!(
        solution.lines().filter(|l| l.starts_with("c cut ")).count() as u64,
        generated["cut_arcs"].as_u64().unwrap()
    );
    let rlg = json(&thicket(&[
        "maxflow",
        "--generate",
        "rlg:10:10:100:1",
        "--backend",
        "cpu",
        "--json",
        "--quiet",
    ]));
    assert_eq!(rlg["vertices"], 102);
    assert_eq!(rlg["verified"], true);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "p max 3 1\nn 1 s\na 1 3 4\n",
            ":3: the file ends without a sink",
        ),
        (
            "p max 3 1\nn 1 s\nn 1 t\na 1 3 4\n",
            ":3: the source and the sink are the same",
        ),
        (
            "p max 3 1\nn 1 s\nn 3 t\na 1 3 -4\n",
            ":4: negative capacity -4",
        ),
        (
            "p max 3 1\nn 1 s\nn 3 t\na 1 9 4\n",
            ":4: vertex 9 is outside 1..=3",
        ),
        (
            "p max 3 2\nn 1 s\nn 3 t\na 1 3 4\n",
            ":4: the file ends early",
        ),
        (
            "p max 3 2\nn 1 s\nn 3 t\na 1 2 9223372036854775807\na 2 3 9\n",
            ":5: capacity 9 takes the sum of the capacities past 2^63 - 1",
        ),
    ];
    for (i, (text, message)) in cases.into_iter().enumerate() {
        let file = dir.path().join(format!("bad{i}.max"));
        std::fs::write(&file, text).unwrap();
        let out = thicket(&["maxflow", file.to_str().unwrap(), "--backend", "cpu"]);
        assert_eq!(out.status.code(), Some(2), "{message}");
        let err = stderr(&out);
        assert!(err.contains(message), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    for args in [
        vec!["maxflow", "--generate", "genrmf:4:3"],
        vec!["maxflow", "--generate", "rlg:2:3:4:5"],
        vec![
            "maxflow",
            &data("m10.max"),
            "--strategy",
            "mpm",
            "--backend",
            "cpu",
        ],
    ] {
        let out = thicket(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn the_bench_runs_the_cpu_strategies_on_the_same_graphs() {
    let value = json(&thicket(&[
        "bench",
        "maxflow",
        "--vertices",
        "200,400",
        "--graphs",
        "2",
        "--strategies",
        "mpm-serial,push-relabel",
        "--json",
    ]));
    let rows = value["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[1]["strategy"], "push-relabel");
    assert!(rows.iter().all(|r| r["seconds"].is_number()), "{value}");
}

/// The memory this machine has for new allocations (`MemAvailable`), if it says.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Issue 44: a network too large to solve here is named by its file (`<stdin>` for `-`) or
/// its --generate spec, as every reader's error is (exit 1, one line).
#[test]
fn a_network_too_large_for_this_machine_names_its_file() {
    // 4,294,967,290 vertices on one line: the solve's arrays need 384 GiB.
    if available_memory().is_none_or(|bytes| bytes > 300 << 30) {
        println!("NOTE: this machine may hold 384 GiB, so the too-large refusal was NOT tested");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("huge.max");
    let text = "p max 4294967290 1\nn 1 s\nn 2 t\na 1 2 5\n";
    std::fs::write(&file, text).unwrap();
    let file = file.to_str().unwrap();
    let cases = [
        (
            thicket(&["maxflow", file, "--backend", "cpu"]),
            format!("{file}: a maximum flow"),
        ),
        (
            thicket_with_stdin(&["maxflow", "-", "--backend", "cpu"], text.as_bytes()),
            "<stdin>: a maximum flow".into(),
        ),
        // A spec too large to generate is named by the generator's own check.
        (
            thicket(&[
                "maxflow",
                "--generate",
                "random:4000000000:8:5:1",
                "--backend",
                "cpu",
            ]),
            "random:4000000000:8:5".into(),
        ),
    ];
    for (output, wanted) in cases {
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{message}");
        assert_eq!(message.trim().lines().count(), 1, "{message}");
        assert!(
            message.starts_with("thicket: too large: ") && message.contains(&wanted),
            "{message:?} should name {wanted:?}"
        );
    }
}
