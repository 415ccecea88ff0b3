//! The time limit and the caller's stop: the default ends at once on a matrix it proves
//! optimal and within its limit otherwise; a run its caller stops (issue 49) returns the best
//! schedule so far with its bound, marked stopped, on every method on the CPU.

use std::time::{Duration, Instant};

use thicket_core::{stoppable, Measured, RunOptions};

use super::*;
use crate::generate::Generator;
use crate::verify::{F32_TOLERANCE, F64_TOLERANCE};

/// Issue 49: a 4 x 2 matrix whose LP bound (6.23) is below its optimum (7, by hand: task
/// 2 takes 6 or 7; alone on machine 0 it leaves 5 + 2 + 1 = 8 to machine 1, so one more
/// task joins it, and every way of that is at least 7, as 6 + 1 beside 5 + 2 is) is
/// proven optimal by the exhaustive search and answered at once, not after the 10 s
/// default limit: no epoch of the search runs.
#[test]
fn a_tiny_matrix_is_proven_optimal_at_once() {
    let etc = Etc::from_rows(&[[3.0, 5.0], [4.0, 2.0], [6.0, 7.0], [1.0, 1.0]]).unwrap();
    let options = ScheduleOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            verify: true,
            ..RunOptions::default()
        },
        threads: 2,
        ..ScheduleOptions::default()
    };
    assert_eq!(options.time_limit, Duration::from_secs(10));
    let measured = schedule(&etc, &options).unwrap();
    let run = &measured.output;
    assert_eq!(measured.verified, Some(true));
    assert_eq!(run.makespan, 7.0);
    assert_eq!(run.lower_bound, 7.0);
    assert!(run.proven_optimal());
    assert_eq!(run.epochs, Some(0));
    assert_eq!(run.stats(&etc)["optimal"], true);
    assert!(measured.info.seconds < 5.0, "{} s", measured.info.seconds);
}

/// The default's whole run (relaxation, search, what follows) ends within its limit, on
/// the CPU and with `--backend auto` (the GPU where there is one, else the CPU after the
/// failed attempt). The tolerance is a whole second (a loaded test machine): the check is
/// that the limit bounds the run (an unbounded one takes the 10 s default or more), not a
/// speed.
#[test]
fn the_default_run_ends_within_its_time_limit() {
    let etc: Generator = "u_c_hihi:128x8".parse().unwrap();
    let etc = etc.generate(5).unwrap();
    let limit = Duration::from_millis(600);
    for backend in [Backend::Cpu, Backend::Auto] {
        let options = ScheduleOptions {
            run: RunOptions {
                backend,
                quiet: true,
                verify: true,
                ..RunOptions::default()
            },
            time_limit: limit,
            threads: 2,
            ..ScheduleOptions::default()
        };
        let measured = schedule(&etc, &options).unwrap();
        assert_eq!(measured.verified, Some(true));
        assert!(
            measured.info.seconds <= limit.as_secs_f64() + 1.0,
            "{backend:?}: {} s at a limit of {} s",
            measured.info.seconds,
            limit.as_secs_f64()
        );
    }
}

fn stopped_options(method: Method) -> ScheduleOptions {
    ScheduleOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            trials: 3,
            verify: true,
            quiet: true,
        },
        method,
        time_limit: Duration::from_secs(10),
        threads: 2,
        ..ScheduleOptions::default()
    }
}

/// Checks a stopped run's answer: one trial, unverified, a complete schedule with the
/// makespan it reports, above its bound, `"stopped": true` in its JSON.
fn check_stopped(etc: &Etc, method: Method, measured: &Measured<ScheduleRun>) {
    let run = &measured.output;
    assert!(run.stopped, "{method:?}");
    assert_eq!(measured.trial_seconds.len(), 1, "{method:?}");
    assert_eq!(measured.verified, None, "{method:?}");
    let tolerance = match method {
        Method::Pso | Method::Mspso => F32_TOLERANCE,
        _ => F64_TOLERANCE,
    };
    let verdict = verify(etc, &run.assignment, run.reported, tolerance).unwrap();
    assert_eq!(verdict.makespan, run.makespan, "{method:?}");
    assert!(
        run.lower_bound <= run.makespan && run.lower_bound > 0.0,
        "{method:?}"
    );
    assert!((0.0..1.0).contains(&run.gap()), "{method:?}");
    let stats = serde_json::Value::Object(run.stats(etc));
    assert_eq!(stats["stopped"], true, "{method:?}");
}

/// Issue 49: stopped before it starts, every method answers at once with a complete
/// schedule and a bound, marked stopped, where an unstopped run has no `stopped` key.
#[test]
fn every_method_stopped_answers_its_best_schedule_so_far() {
    let etc = "u_c_hihi:512x16"
        .parse::<Generator>()
        .unwrap()
        .generate(1)
        .unwrap();
    let flag = StopFlag::new();
    flag.raise();
    for method in Method::ALL {
        let started = Instant::now();
        let measured = stoppable(&flag, || schedule(&etc, &stopped_options(method))).unwrap();
        check_stopped(&etc, method, &measured);
        assert!(started.elapsed() < Duration::from_secs(5), "{method:?}");
    }
    let unstopped = ScheduleOptions {
        time_limit: Duration::from_millis(50),
        ..stopped_options(Method::MinMin)
    };
    let measured = schedule(&etc, &unstopped).unwrap();
    assert!(!measured.output.stopped);
    assert_eq!(measured.verified, Some(true));
    assert!(!measured.output.stats(&etc).contains_key("stopped"));
}

/// Issue 49: the searches stopped by their caller mid-run (Python's Ctrl-C) answer within
/// half a second of the stop, long before their 10 s limit.
#[test]
fn a_search_stopped_mid_run_answers_within_half_a_second() {
    let etc = "u_c_hihi:512x16"
        .parse::<Generator>()
        .unwrap()
        .generate(1)
        .unwrap();
    for method in [Method::Ils, Method::LpIls, Method::Mspso] {
        let flag = StopFlag::new();
        let (measured, late) = std::thread::scope(|scope| {
            let raiser = scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(300));
                flag.raise();
                Instant::now()
            });
            let measured = stoppable(&flag, || schedule(&etc, &stopped_options(method)));
            let ended = Instant::now();
            let raised = raiser.join().unwrap();
            (measured.unwrap(), ended.saturating_duration_since(raised))
        });
        check_stopped(&etc, method, &measured);
        // Generous: a debug build on a loaded CI machine; the half second is measured in
        // release by the Python package's interrupt tests.
        assert!(
            late < Duration::from_secs(5),
            "{method:?}: {late:?} after the stop"
        );
    }
}
