//! Every method's output passes the verifier, and the default finds the brute-force optimum
//! of tiny instances.

use std::time::Duration;

use thicket_core::{Backend, RunOptions};
use thicket_schedule::{
    assignment, schedule, Etc, Generator, Method, ScheduleOptions, ScheduleRun, SwarmParams,
};

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

/// Min-Min's makespan.
fn min_min(etc: &Etc) -> f64 {
    schedule(etc, &options(Method::MinMin))
        .unwrap()
        .output
        .makespan
}

/// The iterated local search from Min-Min, `epochs` epochs of `chains` chains, unlimited in
/// time.
fn ils(etc: &Etc, chains: usize, seed: u64, epochs: usize) -> ScheduleRun {
    let o = ScheduleOptions {
        epochs: Some(epochs),
        seed,
        threads: chains,
        time_limit: Duration::from_secs(3600),
        ..options(Method::Ils)
    };
    schedule(etc, &o).unwrap().output
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
        let min_min = min_min(&etc);
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
    let mut ils_missed = Vec::new();
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
            let run = ils(&etc, 2, seed + k as u64, 30);
            assert!(run.makespan >= optimum * (1.0 - 1e-12));
            // `ils` (from Min-Min) finds the optimum on all but u_c_hihi:9x3 seed 2, the trap
            // below: since the chains re-split two machines' tasks, that descent leads back
            // to the trapped schedule from every seed (docs/schedule.md, "Against the
            // published record").
            if (run.makespan - optimum).abs() > 1e-9 * optimum {
                ils_missed.push(format!("{spec} seed {seed}"));
            }
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
            let min_min = min_min(&etc);
            assert!(run.makespan >= optimum * (1.0 - 1e-12) && run.makespan <= min_min);
            if (run.makespan - optimum).abs() > 1e-9 * optimum {
                missed.push(format!("{spec} seed {seed}"));
            }
        }
    }
    assert!(missed.len() <= 1, "lp-ils missed the optimum on {missed:?}");
    assert!(
        ils_missed.len() <= 1,
        "ils missed the optimum on {ils_missed:?}"
    );
}

#[test]
fn the_default_repeats_with_its_seed_and_epochs() {
    let etc = "u_c_lohi:60x6"
        .parse::<Generator>()
        .unwrap()
        .generate(2)
        .unwrap();
    let (a, b) = (ils(&etc, 3, 5, 4), ils(&etc, 3, 5, 4));
    assert_eq!(
        (&a.assignment, a.makespan, a.epochs, a.kicks),
        (&b.assignment, b.makespan, b.epochs, b.kicks)
    );
}
