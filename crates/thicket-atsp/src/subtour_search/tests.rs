use super::*;
use crate::subtour_lagrangian::ascend;
use crate::test_support::{cheapest_completion, lcg_below};

/// The cheapest tour by enumeration.
fn brute_force(inst: &Instance) -> i64 {
    cheapest_completion(inst, 0, &(1..inst.n).collect::<Vec<_>>())
}

#[test]
fn the_search_finds_the_brute_force_optimum() {
    let pool = thicket_core::pool(2).unwrap();
    for seed in 0..40 {
        let n = 3 + seed as usize % 6;
        let mut x = seed;
        let top = if seed % 2 == 0 { 5 } else { 100 };
        let cost = (0..n * n).map(|_| lcg_below(&mut x, top) as i64).collect();
        let inst = Instance::new("st", n, cost).unwrap();
        let start: Vec<usize> = (0..n).collect();
        let start_cost = tour_cost(&inst, &start);
        let optimum = brute_force(&inst);
        // The plain assignment bound, and the one under subtour-cut multipliers.
        let lagrangian = ascend(&inst, start_cost, None, FORBIDDEN, None, None, None);
        for relaxed in [Relaxed::plain(&inst), lagrangian] {
            let start = (start_cost, start.clone());
            let found = pool.install(|| search(&inst, &relaxed, start, None, &Progress::hidden()));
            assert_eq!(found.cost, optimum, "seed {seed}");
            crate::verify(&inst, &found.tour, optimum).unwrap();
            assert!(found.proven_optimal && found.lower_bound == optimum);
        }
    }
}

#[test]
fn a_search_out_of_time_answers_with_a_valid_lower_bound() {
    let pool = thicket_core::pool(2).unwrap();
    let mut x = 7;
    let n = 9;
    let cost = (0..n * n).map(|_| lcg_below(&mut x, 100) as i64).collect();
    let inst = Instance::new("late", n, cost).unwrap();
    let start: Vec<usize> = (0..n).collect();
    let start_cost = tour_cost(&inst, &start);
    let past = Some(Instant::now());
    let found = pool.install(|| {
        search(
            &inst,
            &Relaxed::plain(&inst),
            (start_cost, start),
            past,
            &Progress::hidden(),
        )
    });
    assert!(!found.proven_optimal);
    assert!(found.lower_bound <= brute_force(&inst));
    assert_eq!(found.cost, start_cost);
}
