//! `perm-queens` on every GPU permutation strategy (Carneiro 2017): nodes against Table 1,
//! solutions against OEIS.

use super::support::{int, lacks_cudadevrt, no_gpu, run_json, Checks, A000170, PERM_STRATEGIES};

/// Carneiro 2017, Table 1: every feasible node of the permutation search for N-Queens
/// (solutions included), N = 0..15.
const TABLE_1_NODES: [u64; 16] = [
    0, 1, 2, 5, 16, 53, 152, 551, 2056, 8393, 35538, 166925, 856188, 4674889, 27358552, 171129071,
];

/// Every permutation strategy on perm-queens N in `ns`: nodes against Table 1, solutions
/// against OEIS.
fn perm_queens_against_table_1(ns: std::ops::RangeInclusive<usize>) {
    let mut checks = Checks::default();
    for strategy in PERM_STRATEGIES {
        for n in ns.clone() {
            let size = n.to_string();
            let what = format!("perm-queens {n} --strategy {strategy}");
            match run_json(&["perm-queens", &size, "--strategy", strategy]) {
                Ok(v) => {
                    let ok = int(&v, "nodes") == Some(TABLE_1_NODES[n])
                        && int(&v, "solutions") == Some(A000170[n]);
                    checks.record(ok, format!("{what}: {v}"));
                }
                Err(e) if lacks_cudadevrt(&e) => checks.note(format!("{what}: {e}")),
                Err(e) => checks.record(false, format!("{what}: {e}")),
            }
        }
    }
    checks.finish();
}

#[test]
fn perm_queens_gpu_strategies_match_table_1() {
    if no_gpu("perm_queens_gpu_strategies_match_table_1") {
        return;
    }
    perm_queens_against_table_1(8..=12);
}

#[test]
#[ignore = "N = 13..15 for five strategies"]
fn perm_queens_gpu_strategies_match_table_1_up_to_15() {
    if no_gpu("perm_queens_gpu_strategies_match_table_1_up_to_15") {
        return;
    }
    perm_queens_against_table_1(13..=15);
}
