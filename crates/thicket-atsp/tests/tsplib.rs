//! Exact ATSP on the TSPLIB instances in `data/`: br17 quickly in every build, the others as
//! ignored tests meant for release builds (`cargo test --release -- --ignored`).

use std::path::PathBuf;
use std::time::Instant;

use thicket_atsp::{branch_and_bound, read_tsplib, tour_cost, AtspOptions, Bound};
use thicket_core::Progress;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(format!("{name}.atsp"))
}

/// Solves `name` with the default (Held–Karp) bound on two threads and checks the optimum.
fn prove(name: &str, optimum: i64) {
    let inst = read_tsplib(data(name)).unwrap();
    let opts = AtspOptions {
        bound: Bound::HeldKarp,
        threads: 2,
        ..AtspOptions::default()
    };
    let started = Instant::now();
    let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
    eprintln!(
        "{name}: cost {} nodes {} in {:.2} s",
        sol.cost,
        sol.nodes,
        started.elapsed().as_secs_f64()
    );
    assert!(sol.proven_optimal);
    assert_eq!(sol.cost, optimum);
    assert_eq!(tour_cost(&inst, &sol.tour), optimum);
    let mut sorted = sol.tour.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..inst.n).collect::<Vec<_>>());
    assert_eq!(sol.tour[0], 0);
}

#[test]
fn br17_is_proven_optimal() {
    prove("br17", 39);
}

/// Solves br17 with the optimum given as the upper bound, as the thesis's experiments do.
fn prove_given_optimum(bound: Bound) {
    let inst = read_tsplib(data("br17")).unwrap();
    let opts = AtspOptions {
        bound,
        upper_bound: Some(39),
        threads: 2,
        node_limit: None,
        deadline: None,
    };
    let started = Instant::now();
    let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
    eprintln!(
        "br17 {bound:?} from the optimum: nodes {} in {:.2} s",
        sol.nodes,
        started.elapsed().as_secs_f64()
    );
    assert_eq!((sol.cost, sol.proven_optimal), (39, true));
    assert_eq!(tour_cost(&inst, &sol.tour), 39);
}

#[test]
fn br17_from_the_optimum_is_proven_with_the_assignment_bound() {
    prove_given_optimum(Bound::Assignment);
}

#[test]
fn br17_from_the_optimum_is_proven_with_the_held_karp_bound() {
    prove_given_optimum(Bound::HeldKarp);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn br17_from_the_optimum_is_proven_with_the_partial_bound() {
    prove_given_optimum(Bound::Partial);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ftv33_is_proven_optimal() {
    prove("ftv33", 1286);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ftv35_is_proven_optimal() {
    prove("ftv35", 1473);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ftv38_is_proven_optimal() {
    prove("ftv38", 1530);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn p43_is_proven_optimal() {
    prove("p43", 5620);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ftv44_is_proven_optimal() {
    prove("ftv44", 1613);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ftv64_is_proven_optimal() {
    prove("ftv64", 1839);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ft70_is_proven_optimal() {
    prove("ft70", 38673);
}
