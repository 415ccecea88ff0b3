//! Tests of the assignment solve: brute force, the sparse solve against the dense one, stops.

use super::*;
use crate::test_support::lcg_below;

/// The cheapest assignment by enumerating permutations.
fn brute_force(n: usize, cost: &[i64]) -> i64 {
    fn go(n: usize, cost: &[i64], row: usize, used: &mut Vec<bool>) -> i64 {
        if row == n {
            return 0;
        }
        let mut best = i64::MAX / 4;
        for c in 0..n {
            if !used[c] {
                used[c] = true;
                best = best.min(cost[row * n + c] + go(n, cost, row + 1, used));
                used[c] = false;
            }
        }
        best
    }
    go(n, cost, 0, &mut vec![false; n])
}

#[test]
fn solving_and_forbidding_match_brute_force() {
    let mut scratch = LapScratch::default();
    for seed in 0..40 {
        let n = 2 + seed as usize % 6;
        let mut x = seed;
        let mut cost: Vec<i64> = (0..n * n).map(|_| lcg_below(&mut x, 30) as i64).collect();
        let mut lap = Lap::solve_until(n, &cost, &mut scratch, None);
        assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
        // Forbid an assigned pair a few times over and re-solve incrementally.
        for step in 0..3 {
            let row = (seed as usize + step) % n;
            cost[row * n + lap.col_of(row)] = 1_000_000;
            lap.forbid_assigned(n, &cost, row, &mut scratch);
            assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
            for i in 0..n {
                for j in 0..n {
                    assert!(lap.reduced(n, &cost, i, j) >= 0);
                }
            }
        }
    }
}

#[test]
fn raising_any_costs_and_reassigning_matches_brute_force() {
    let mut scratch = LapScratch::default();
    for seed in 0..40 {
        let n = 2 + seed as usize % 6;
        let mut x = seed + 5;
        let mut cost: Vec<i64> = (0..n * n).map(|_| lcg_below(&mut x, 30) as i64).collect();
        let mut lap = Lap::solve_until(n, &cost, &mut scratch, None);
        // Raise a row and a column (as forcing an arc does) and some single entries.
        for step in 0..3 {
            let (row, col) = ((seed as usize + step) % n, (seed as usize * 7 + step) % n);
            for k in 0..n {
                if k != col {
                    cost[row * n + k] += 1000;
                }
                if k != row {
                    cost[k * n + col] += 1000;
                }
            }
            cost[lcg_below(&mut x, (n * n) as u64) as usize] += 50;
            lap.reassign_loose(n, &cost, &mut scratch);
            assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
            for i in 0..n {
                for j in 0..n {
                    assert!(lap.reduced(n, &cost, i, j) >= 0);
                }
            }
        }
    }
}

/// Every dual feasible on the whole matrix.
fn feasible(lap: &Lap, n: usize, cost: &[i64]) -> bool {
    (0..n).all(|i| (0..n).all(|j| lap.reduced(n, cost, i, j) >= 0))
}

/// Whether `lap` assigns every row to its own column.
fn is_permutation(lap: &Lap, n: usize) -> bool {
    let mut seen = vec![false; n];
    (0..n).all(|i| !std::mem::replace(&mut seen[lap.col_of(i)], true))
}

/// Matrices from the sparse solve's size up: uniform costs with many ties, geometric
/// ones whose optimal arcs lie deep in each row's order, and generated instances.
fn large_matrices() -> Vec<(String, usize, Vec<i64>)> {
    let mut matrices = Vec::new();
    for (seed, n) in [(1u64, SPARSE_FROM), (2, SPARSE_FROM + 77)] {
        let mut x = seed;
        let ties = (0..n * n).map(|_| lcg_below(&mut x, 20) as i64).collect();
        matrices.push((format!("ties {seed}"), n, ties));
        let points: Vec<(i64, i64)> = (0..n)
            .map(|_| {
                (
                    lcg_below(&mut x, 1000) as i64,
                    lcg_below(&mut x, 1000) as i64,
                )
            })
            .collect();
        let tilted = points
            .iter()
            .flat_map(|&(ax, ay)| {
                points
                    .iter()
                    .map(move |&(bx, by)| (bx - ax).abs().max(3 * (by - ay)))
            })
            .collect();
        matrices.push((format!("tilted {seed}"), n, tilted));
    }
    for spec in ["stilt:600:3", "shop:520:4", "amat:500:5"] {
        let inst = crate::parse_generator_spec(spec)
            .unwrap()
            .generate()
            .unwrap();
        matrices.push((spec.into(), inst.n, inst.cost.clone()));
    }
    matrices
}

#[test]
fn the_sparse_solve_is_the_dense_one() {
    for (name, n, cost) in large_matrices() {
        let mut scratch = LapScratch::default();
        let mut dense = Lap::row_reduced(n, &cost);
        dense.complete_dense(n, &cost, &mut scratch, None);
        let sparse = Lap::solve_until(n, &cost, &mut scratch, None);
        assert!(
            sparse.is_optimal(n, &cost) && dense.is_optimal(n, &cost),
            "{name}"
        );
        assert!(
            is_permutation(&sparse, n) && feasible(&sparse, n, &cost),
            "{name}"
        );
        assert_eq!(sparse.value(n, &cost), dense.value(n, &cost), "{name}");
        assert_eq!(sparse.dual_value(), sparse.value(n, &cost), "{name}");
    }
}

#[test]
fn a_stopped_solve_is_a_whole_assignment_with_a_lower_bound() {
    for (name, n, cost) in large_matrices() {
        let mut scratch = LapScratch::default();
        let optimum = Lap::solve_until(n, &cost, &mut scratch, None).value(n, &cost);
        let past = Some(Instant::now());
        let mut dense = Lap::row_reduced(n, &cost);
        dense.complete_dense(n, &cost, &mut scratch, past);
        for lap in [Lap::solve_until(n, &cost, &mut scratch, past), dense] {
            assert!(
                is_permutation(&lap, n) && feasible(&lap, n, &cost),
                "{name}"
            );
            assert!(lap.dual_value() <= optimum, "{name}");
            assert!(optimum <= lap.value(n, &cost), "{name}");
        }
    }
    // A small matrix stopped at once: the rows the reduction left free are completed.
    let cost = [9, 1, 5, 1, 9, 5, 1, 5, 9];
    let mut lap = Lap::row_reduced(3, &cost);
    lap.complete_dense(3, &cost, &mut LapScratch::default(), Some(Instant::now()));
    assert!(is_permutation(&lap, 3) && feasible(&lap, 3, &cost));
}

/// A re-solve after entries went up and down matches a solve from scratch and brute force.
#[test]
fn a_resolve_after_any_change_is_optimal() {
    let mut scratch = LapScratch::default();
    for seed in 0..40 {
        let n = 2 + seed as usize % 6;
        let mut x = seed + 100;
        let mut cost: Vec<i64> = (0..n * n).map(|_| lcg_below(&mut x, 40) as i64).collect();
        let mut lap = Lap::solve_until(n, &cost, &mut scratch, None);
        for step in 0..4 {
            for _ in 0..=step {
                let k = lcg_below(&mut x, (n * n) as u64) as usize;
                cost[k] += lcg_below(&mut x, 41) as i64 - 20;
            }
            assert!(lap.resolve(n, &cost, &mut scratch, None), "seed {seed}");
            assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
        }
    }
}
