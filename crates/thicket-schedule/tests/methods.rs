//! Every method's output passes the verifier, and the default finds the brute-force optimum
//! of tiny instances.

use std::time::Duration;

use thicket_core::{Backend, RunOptions};
use thicket_schedule::etc::Etc;
use thicket_schedule::generate::Generator;
use thicket_schedule::pso::SwarmParams;
use thicket_schedule::search::{search, Limits};
use thicket_schedule::{assignment, heuristics, schedule, Method, ScheduleOptions};

fn options(method: Method) -> ScheduleOptions {
    ScheduleOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            verify: true,
            quiet: true,
            ..RunOptions::default()
        },
        method,
        epochs: Some(3),
        swarm: Some(SwarmParams {
            iterations: 40,
            particles: 16,
            swarms: if method == Method::Pso { 1 } else { 4 },
            ..SwarmParams::THESIS
        }),
        threads: 2,
        ..ScheduleOptions::default()
    }
}

#[test]
fn every_method_passes_the_verifier() {
    for spec in [
        "u_c_hihi:40x5",
        "u_s_lolo:33x4",
        "u_i_lohi:17x6",
        "thesis:25x3",
    ] {
        let etc = spec.parse::<Generator>().unwrap().generate(7).unwrap();
        let min_min = assignment::loads(&etc, &heuristics::min_min(&etc)).1;
        for method in Method::ALL {
            let measured = schedule(&etc, &options(method)).unwrap();
            assert_eq!(measured.verified, Some(true), "{spec} {method}");
            let run = &measured.output;
            assert!(run.makespan >= run.lower_bound * (1.0 - 1e-12));
            if matches!(method, Method::Ils | Method::LpIls) {
                assert!(
                    run.makespan <= min_min,
                    "{spec}: the default is no worse than Min-Min"
                );
            }
        }
    }
}

#[test]
fn gpu_only_requests_for_cpu_methods_are_refused() {
    let etc = Etc::new(2, 2, vec![1.0; 4]).unwrap();
    let mut o = options(Method::MinMin);
    o.run.backend = Backend::Cuda;
    assert_eq!(schedule(&etc, &o).unwrap_err().exit_code(), 2);
}

/// The optimum by trying every assignment.
fn brute_force(etc: &Etc) -> f64 {
    let (t_n, m_n) = (etc.tasks(), etc.machines());
    let mut best = f64::INFINITY;
    let mut a = vec![0u32; t_n];
    loop {
        best = best.min(assignment::loads(etc, &a).1);
        let mut i = 0;
        while i < t_n {
            a[i] += 1;
            if (a[i] as usize) < m_n {
                break;
            }
            a[i] = 0;
            i += 1;
        }
        if i == t_n {
            return best;
        }
    }
}

#[test]
fn the_default_finds_the_optimum_of_tiny_instances() {
    let mut missed = Vec::new();
    for (k, spec) in [
        "u_c_hihi:9x3",
        "u_i_hilo:8x4",
        "u_s_lohi:10x3",
        "thesis:9x3",
    ]
    .iter()
    .enumerate()
    {
        for seed in 1..4 {
            let etc = spec.parse::<Generator>().unwrap().generate(seed).unwrap();
            let optimum = brute_force(&etc);
            let limits = Limits {
                time: Duration::from_secs(3600),
                epochs: Some(30),
                bound: 0.0,
                slack: 0.0,
            };
            let run = search(
                &etc,
                heuristics::min_min(&etc),
                2,
                seed + k as u64,
                limits,
                |_| {},
            );
            assert!(
                (run.makespan - optimum).abs() <= 1e-9 * optimum,
                "{spec} seed {seed}: {} vs optimum {optimum}",
                run.makespan
            );
            // The default from the LP: a bound at most the optimum, a schedule no worse than
            // Min-Min's, and the optimum itself on all but one of these (u_c_hihi:9x3 seed 2
            // keeps an ILS trap 0.23% above it: kicks of two to four of nine tasks, put back
            // greedily and kept only if no worse, lead back to the same schedule).
            let mut o = options(Method::LpIls);
            o.epochs = Some(30);
            o.seed = seed + k as u64;
            let measured = schedule(&etc, &o).unwrap();
            assert_eq!(measured.verified, Some(true));
            let run = &measured.output;
            assert!(
                run.lower_bound <= optimum * (1.0 + 1e-12),
                "{spec} seed {seed}"
            );
            let min_min = assignment::loads(&etc, &heuristics::min_min(&etc)).1;
            assert!(run.makespan >= optimum * (1.0 - 1e-12) && run.makespan <= min_min);
            if (run.makespan - optimum).abs() > 1e-9 * optimum {
                missed.push(format!("{spec} seed {seed}"));
            }
        }
    }
    assert!(missed.len() <= 1, "lp-ils missed the optimum on {missed:?}");
}

#[test]
fn the_default_repeats_with_its_seed_and_epochs() {
    let etc = "u_c_lohi:60x6"
        .parse::<Generator>()
        .unwrap()
        .generate(2)
        .unwrap();
    let limits = Limits {
        time: Duration::from_secs(3600),
        epochs: Some(4),
        bound: 0.0,
        slack: 0.0,
    };
    let a = search(&etc, heuristics::min_min(&etc), 3, 5, limits, |_| {});
    let b = search(&etc, heuristics::min_min(&etc), 3, 5, limits, |_| {});
    assert_eq!(a, b);
}
