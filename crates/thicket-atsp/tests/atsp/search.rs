//! The exact search against enumeration of all (n-1)! tours on small random instances, with
//! every bound and one or two threads; the heuristic's tours; the generated classes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thicket_atsp::{
    branch_and_bound, generate, heuristic_tour, parse_generator_spec, tour_cost, AtspOptions,
    Bound, GeneratorClass, Instance,
};
use thicket_core::Progress;

/// The cheapest tour cost by trying every order of cities 1..n after city 0.
fn brute_force(inst: &Instance) -> i64 {
    fn go(inst: &Instance, tour: &mut Vec<usize>, rest: &mut Vec<usize>) -> i64 {
        if rest.is_empty() {
            return tour_cost(inst, tour);
        }
        (0..rest.len())
            .map(|k| {
                let c = rest.remove(k);
                tour.push(c);
                let best = go(inst, tour, rest);
                tour.pop();
                rest.insert(k, c);
                best
            })
            .min()
            .expect("rest is not empty")
    }
    go(inst, &mut vec![0], &mut (1..inst.n).collect())
}

/// A random matrix with small costs (many ties), sometimes with interchangeable cities.
fn random_instance(rng: &mut ChaCha8Rng) -> Instance {
    let n = rng.random_range(2..=8);
    let top = if rng.random_bool(0.5) { 5 } else { 100 };
    let mut cost: Vec<i64> = (0..n * n).map(|_| rng.random_range(0..top)).collect();
    if n >= 4 && rng.random_bool(0.4) {
        // Make city n-1 a copy of city n-2 (a twin), with a symmetric cost between them.
        let (a, b) = (n - 2, n - 1);
        for k in 0..n {
            cost[b * n + k] = cost[a * n + k];
            cost[k * n + b] = cost[k * n + a];
        }
        cost[a * n + b] = cost[b * n + a];
    }
    Instance::new("random", n, cost).unwrap()
}

fn check_tour(inst: &Instance, tour: &[usize], cost: i64) {
    let mut sorted = tour.to_vec();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        (0..inst.n).collect::<Vec<_>>(),
        "{tour:?} is not a tour"
    );
    assert_eq!(tour[0], 0);
    assert_eq!(tour_cost(inst, tour), cost);
}

#[test]
fn solve_matches_enumeration_with_every_bound_and_thread_count() {
    let mut rng = ChaCha8Rng::seed_from_u64(2017);
    for case in 0..150 {
        let inst = random_instance(&mut rng);
        let optimum = brute_force(&inst);
        for bound in [Bound::Partial, Bound::Assignment, Bound::HeldKarp] {
            for threads in [1, 2] {
                for upper_bound in [None, Some(optimum), Some(optimum + 3), Some(optimum - 1)] {
                    let opts = AtspOptions {
                        bound,
                        upper_bound,
                        threads,
                        node_limit: None,
                        deadline: None,
                    };
                    let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
                    let what = format!("case {case} {bound:?} x{threads} ub {upper_bound:?}");
                    assert_eq!(sol.cost, optimum, "{what}");
                    assert!(sol.proven_optimal, "{what}");
                    check_tour(&inst, &sol.tour, optimum);
                }
            }
        }
    }
}

#[test]
fn generated_instances_are_solved_exactly() {
    for class in [
        GeneratorClass::Coin,
        GeneratorClass::Crane,
        GeneratorClass::Tsmat,
    ] {
        for seed in 0..3 {
            let inst = generate(class, 8, seed).unwrap();
            let optimum = brute_force(&inst);
            for bound in [Bound::Partial, Bound::Assignment, Bound::HeldKarp] {
                let opts = AtspOptions {
                    bound,
                    threads: 2,
                    ..AtspOptions::default()
                };
                let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
                assert_eq!(sol.cost, optimum, "{} {bound:?}", inst.name);
            }
        }
    }
}

#[test]
fn partial_bound_node_counts_follow_the_thesis_definition() {
    // With every arc costing 1 and the optimum (n) as the upper bound, no path of n-1 arcs
    // costs less than n, so every path is generated: sum over depths 2..=n of (n-1)!/(n-d)!.
    let n = 6;
    let cost = vec![1; n * n];
    let inst = Instance::new("ones", n, cost).unwrap();
    for threads in [1, 2] {
        let opts = AtspOptions {
            bound: Bound::Partial,
            upper_bound: Some(6),
            threads,
            node_limit: None,
            deadline: None,
        };
        let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
        assert_eq!(sol.nodes, 5 + 20 + 60 + 120 + 120, "threads {threads}");
        assert_eq!(sol.cost, 6);
    }
}

#[test]
fn a_node_limit_stops_the_search_unproven() {
    let inst = generate(GeneratorClass::Tsmat, 12, 1).unwrap();
    let opts = AtspOptions {
        bound: Bound::Partial,
        node_limit: Some(10),
        deadline: None,
        ..AtspOptions::default()
    };
    let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
    assert!(!sol.proven_optimal);
    check_tour(&inst, &sol.tour, sol.cost);
    let zero = AtspOptions {
        threads: 0,
        ..AtspOptions::default()
    };
    assert!(branch_and_bound(&inst, &zero, &Progress::hidden()).is_err());
}

#[test]
fn a_node_limit_stops_the_held_karp_search_unproven() {
    // coin:30:1 takes about 120 nodes; the search checks the limit every 64.
    let inst = generate(GeneratorClass::Coin, 30, 1).unwrap();
    let opts = AtspOptions {
        bound: Bound::HeldKarp,
        node_limit: Some(1),
        deadline: None,
        ..AtspOptions::default()
    };
    let sol = branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap();
    assert!(!sol.proven_optimal);
    check_tour(&inst, &sol.tour, sol.cost);
}

#[test]
fn the_heuristic_returns_a_valid_tour() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..50 {
        let inst = random_instance(&mut rng);
        let (tour, cost) = heuristic_tour(&inst);
        check_tour(&inst, &tour, cost);
        assert!(cost >= brute_force(&inst));
    }
    for n in [2, 3, 30, 150] {
        let inst = generate(GeneratorClass::Crane, n, 9).unwrap();
        let (tour, cost) = heuristic_tour(&inst);
        check_tour(&inst, &tour, cost);
    }
}

#[test]
fn generators_are_deterministic_and_sized() {
    for class in [
        GeneratorClass::Coin,
        GeneratorClass::Crane,
        GeneratorClass::Tsmat,
    ] {
        for n in [2, 10, 20, 57] {
            let a = generate(class, n, 42).unwrap();
            assert_eq!(a, generate(class, n, 42).unwrap());
            assert_ne!(
                a.cost,
                generate(class, n, 43).unwrap().cost,
                "{class:?} {n}"
            );
            assert_eq!((a.n, a.cost.len()), (n, n * n));
            assert!((0..n).all(|i| a.cost(i, i) == 0));
        }
        assert!(generate(class, 1, 0).is_err());
        assert!(generate(class, 10_001, 0).is_err());
    }
    let spec = parse_generator_spec("tsmat:15:3").unwrap();
    assert_eq!(
        spec.generate().unwrap(),
        generate(GeneratorClass::Tsmat, 15, 3).unwrap()
    );
}

#[test]
fn tsmat_satisfies_the_triangle_inequality_and_is_symmetric() {
    let inst = generate(GeneratorClass::Tsmat, 20, 7).unwrap();
    let n = inst.n;
    for i in 0..n {
        for j in 0..n {
            assert_eq!(inst.cost(i, j), inst.cost(j, i));
            for k in 0..n {
                assert!(inst.cost(i, j) <= inst.cost(i, k) + inst.cost(k, j));
            }
        }
    }
}

#[test]
fn crane_and_coin_are_asymmetric() {
    for class in [GeneratorClass::Coin, GeneratorClass::Crane] {
        let inst = generate(class, 15, 1).unwrap();
        let n = inst.n;
        assert!(
            (0..n).any(|i| (0..n).any(|j| inst.cost(i, j) != inst.cost(j, i))),
            "{class:?}"
        );
    }
}

#[test]
fn held_karp_agrees_with_the_assignment_bound_on_larger_generated_instances() {
    for class in [
        GeneratorClass::Coin,
        GeneratorClass::Crane,
        GeneratorClass::Tsmat,
    ] {
        for seed in 0..4 {
            let inst = generate(class, 13, seed).unwrap();
            let solve_with = |bound| {
                let opts = AtspOptions {
                    bound,
                    threads: 2,
                    ..AtspOptions::default()
                };
                branch_and_bound(&inst, &opts, &Progress::hidden()).unwrap()
            };
            let (assignment, held_karp) =
                (solve_with(Bound::Assignment), solve_with(Bound::HeldKarp));
            assert!(assignment.proven_optimal && held_karp.proven_optimal);
            assert_eq!(held_karp.cost, assignment.cost, "{}", inst.name);
            check_tour(&inst, &held_karp.tour, held_karp.cost);
        }
    }
}
