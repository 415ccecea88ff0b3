//! Max flow on every GPU strategy against the outside references or the CPU, each flow
//! certified by its min cut.

use super::support::{int, no_gpu, repo, run_json, Checks};

/// The GPU max-flow strategies.
const FLOW_STRATEGIES: [&str; 4] = ["push-relabel-gpu", "mpm", "mpm-active", "mpm-scan"];

/// Every strategy of `strategies` on `input` (a file or `--generate=SPEC`): the flow equals
/// `reference` (the outside value, or the CPU's push-relabel where `None`) and its min-cut
/// certificate holds.
fn flows_against(checks: &mut Checks, input: &str, reference: Option<u64>, strategies: &[&str]) {
    let reference = reference.unwrap_or_else(|| {
        let cpu = run_json(&["maxflow", input, "--backend", "cpu"]).expect("the CPU solves it");
        int(&cpu, "flow").expect("a flow")
    });
    for strategy in strategies {
        let what = format!("maxflow {input} --strategy {strategy}");
        match run_json(&[
            "maxflow",
            input,
            "--strategy",
            strategy,
            "--backend",
            "cuda",
        ]) {
            Ok(v) => {
                let ok = int(&v, "flow") == Some(reference) && v["verified"] == true;
                checks.record(
                    ok,
                    format!(
                        "{what}: flow {} (reference {reference}), verified {}, {} s",
                        v["flow"], v["verified"], v["seconds"]
                    ),
                );
            }
            Err(e) => checks.record(false, format!("{what}: {e}")),
        }
    }
}

#[test]
fn maxflow_gpu_strategies_match_the_references() {
    if no_gpu("maxflow_gpu_strategies_match_the_references") {
        return;
    }
    let mut checks = Checks::default();
    // The values of crates/thicket-flow/data/SOURCE.md, computed outside thicket.
    for (file, flow) in [
        ("waissi-example.max", 6),
        ("genrmf-a4b3.max", 228),
        ("m10.max", 9_860_177),
        ("m30.max", 28_258_807),
        ("m50.max", 42_791_871),
    ] {
        let path = repo(&format!("crates/thicket-flow/data/{file}"));
        flows_against(&mut checks, &path, Some(flow), &FLOW_STRATEGIES);
    }
    for spec in ["genrmf:8:8:1:100:3", "rlg:40:40:1000:3"] {
        let input = format!("--generate={spec}");
        flows_against(&mut checks, &input, None, &FLOW_STRATEGIES);
    }
    checks.finish();
}

#[test]
#[ignore = "the larger generated networks: minutes for the MPMs"]
fn maxflow_gpu_strategies_match_the_references_on_larger_networks() {
    if no_gpu("maxflow_gpu_strategies_match_the_references_on_larger_networks") {
        return;
    }
    let mut checks = Checks::default();
    // The outside reference values of the generated networks (docs/maxflow.md).
    flows_against(
        &mut checks,
        "--generate=genrmf:16:64:1:10000:1",
        Some(1_197_616),
        &FLOW_STRATEGIES,
    );
    flows_against(
        &mut checks,
        "--generate=random:20000:12:1000:1",
        None,
        &FLOW_STRATEGIES,
    );
    // The MPMs need many phases on these long, thin networks (minutes, docs/maxflow.md):
    // push-relabel alone here.
    flows_against(
        &mut checks,
        "--generate=genrmf:64:8:1:10000:1",
        Some(20_209_215),
        &["push-relabel-gpu"],
    );
    flows_against(
        &mut checks,
        "--generate=rlg:256:256:10000:1",
        Some(1_933_769),
        &["push-relabel-gpu"],
    );
    // Issue 33's network (2.1 M vertices): the value of thicket's CPU push-relabel, certified
    // by its min cut (no outside solver finished it; docs/maxflow.md).
    flows_against(
        &mut checks,
        "--generate=genrmf:128:128:1:10000:1",
        Some(80_901_996),
        &["push-relabel-gpu"],
    );
    checks.finish();
}
