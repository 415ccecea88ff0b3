//! BFS and shortest paths on the GPU against the outside references (rome99, GAPBS's tiny
//! graph) and the CPU's answer on generated graphs.

use std::path::Path;

use super::support::{int, no_gpu, repo, run_json, thicket, Checks};
use crate::common;

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

/// The first three fields (source, vertex, distance) of every row of an `--output` file: the
/// parents may differ between searches (a BFS tree is not unique); `--verify` checks them.
fn distances(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            line.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Many sources on one upload: every search's summary as the device reduces it (no answer
/// comes back) and every answer that `--output` brings back through the two slots and the
/// copy stream, against the CPU's serial BFS, on a symmetric and a directed graph.
#[test]
fn gpu_bfs_from_many_sources_matches_the_cpu_summary_by_summary() {
    if no_gpu("gpu_bfs_from_many_sources_matches_the_cpu_summary_by_summary") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let kron = dir.path().join("kron14.tgr").display().to_string();
    let made = thicket(&[
        "graph", "gen", "kron", "--scale", "14", "--seed", "5", "-o", &kron,
    ]);
    assert!(made.status.success(), "{}", common::stderr(&made));
    let rome = repo("crates/thicket-graph/data/rome99.gr");
    let keys = [
        "source",
        "reached",
        "sum_distances",
        "max_distance",
        "arcs_traversed",
    ];
    let rows = |v: &serde_json::Value| -> Vec<Vec<Option<u64>>> {
        v["searches"]
            .as_array()
            .map(|all| {
                all.iter()
                    .map(|s| keys.iter().map(|k| int(s, k)).collect())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut checks = Checks::default();
    for graph in [&kron, &rome] {
        let name = Path::new(graph).file_name().unwrap().to_string_lossy();
        let cpu_file = dir.path().join("cpu.tsv");
        let cpu_out = cpu_file.display().to_string();
        let base = ["bfs", graph.as_str(), "--sources", "9"];
        let cpu = run_json(
            &[
                &base[..],
                &["--strategy", "serial", "--backend", "cpu", "-o", &cpu_out],
            ]
            .concat(),
        )
        .expect("the CPU search finishes");
        let expected = rows(&cpu);
        assert_eq!(expected.len(), 9, "{cpu}");
        for strategy in ["gpu", "thesis", "thesis-active"] {
            let cuda = ["--strategy", strategy, "--backend", "cuda"];
            let what = format!("bfs {name} --sources 9 --strategy {strategy}");
            match run_json(&[&base[..], &cuda[..]].concat()) {
                Ok(v) => {
                    let got = rows(&v);
                    checks.record(got == expected, format!("{what}: summaries {got:?}"));
                }
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
            let gpu_file = dir.path().join(format!("gpu-{strategy}.tsv"));
            let gpu_out = gpu_file.display().to_string();
            let answers = [&base[..], &cuda[..], &["--verify", "-o", &gpu_out]].concat();
            match run_json(&answers) {
                Ok(v) => {
                    let same = distances(&gpu_file) == distances(&cpu_file);
                    checks.record(
                        same && rows(&v) == expected && v["verified"] == true,
                        format!(
                            "{what} --verify -o: distances equal {same}, verified {}",
                            v["verified"]
                        ),
                    );
                }
                Err(e) => checks.record(false, format!("{what} --verify -o: {e}")),
            }
        }
    }
    checks.finish();
}
