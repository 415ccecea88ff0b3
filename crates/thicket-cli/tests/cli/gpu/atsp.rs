//! The ATSP on every GPU permutation strategy against the CPU's search.

use super::support::{lacks_cudadevrt, no_gpu, repo, run_json, Checks, PERM_STRATEGIES};

/// Every GPU permutation strategy on each ATSP instance against the CPU search (partial
/// bound, multicore). `cases` are the instance's arguments and whether the node count must
/// match too: from a bound at the optimum it is deterministic, from the heuristic tour it
/// depends on when tours are found.
fn atsp_against_the_cpu(cases: &[(Vec<String>, bool)]) {
    let mut checks = Checks::default();
    for (instance, same_nodes) in cases {
        let instance: Vec<&str> = instance.iter().map(String::as_str).collect();
        let reference = run_json(
            &[
                &["atsp"],
                &instance[..],
                &["--bound", "partial", "--strategy", "multicore"],
            ]
            .concat(),
        )
        .expect("the CPU search finishes");
        for strategy in PERM_STRATEGIES {
            let what = format!("atsp {} --strategy {strategy}", instance.join(" "));
            match run_json(&[&["atsp"], &instance[..], &["--strategy", strategy]].concat()) {
                Ok(v) => {
                    let ok = v["cost"] == reference["cost"]
                        && (!same_nodes || v["nodes"] == reference["nodes"]);
                    checks.record(
                        ok,
                        format!(
                            "{what}: cost {} nodes {} (CPU: cost {} nodes {})",
                            v["cost"], v["nodes"], reference["cost"], reference["nodes"]
                        ),
                    );
                }
                Err(e) if lacks_cudadevrt(&e) => checks.note(format!("{what}: {e}")),
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
        }
    }
    checks.finish();
}

/// An ATSP case: `--generate spec`, from the optimum found first by the CPU (deterministic
/// node counts) or from the heuristic tour.
fn generated(spec: &str, from_optimum: bool) -> (Vec<String>, bool) {
    let mut args = vec!["--generate".to_owned(), spec.to_owned()];
    if from_optimum {
        let best = run_json(&["atsp", "--generate", spec]).expect("the CPU search finishes");
        args.extend(["--upper-bound".to_owned(), best["cost"].to_string()]);
    }
    (args, from_optimum)
}

#[test]
fn atsp_gpu_strategies_match_the_cpu_search() {
    if no_gpu("atsp_gpu_strategies_match_the_cpu_search") {
        return;
    }
    atsp_against_the_cpu(&[generated("coin:12:1", true), generated("crane:12:1", false)]);
}

#[test]
#[ignore = "br17 and 14-city instances: a minute or two"]
fn atsp_gpu_strategies_match_the_cpu_search_on_br17_and_14_cities() {
    if no_gpu("atsp_gpu_strategies_match_the_cpu_search_on_br17_and_14_cities") {
        return;
    }
    let br17 = vec![
        repo("crates/thicket-atsp/data/br17.atsp"),
        "--optimal-ub".into(),
    ];
    atsp_against_the_cpu(&[
        (br17, true),
        generated("coin:14:1", true),
        generated("crane:14:1", false),
    ]);
}
