//! BFS and shortest paths on the GPU against the outside references (rome99, GAPBS's tiny
//! graph) and the CPU's answer on generated graphs.

use std::path::Path;

use crate::common;
use crate::support::{int, no_gpu, repo, run_json, thicket, Checks};

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
