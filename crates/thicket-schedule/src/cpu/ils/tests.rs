//! Tests of the iterated local search: the swap scan, epochs with slack, and moves.

use super::*;
use crate::cpu::heuristics::min_min;

#[test]
fn the_swap_scan_is_the_plain_minimum_on_both_paths() {
    let mut rng = SplitMix::new(3);
    for len in [0usize, 1, 7, 8, 9, 33] {
        let on_a: Vec<f64> = (0..len).map(|_| rng.unit() * 10.0).collect();
        let on_b: Vec<f64> = (0..len).map(|_| rng.unit() * 10.0).collect();
        let plain = on_a
            .iter()
            .zip(&on_b)
            .map(|(x, y)| (4.0 + x).max(6.0 - y))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(best_swap(false, &on_a, &on_b, 4.0, 6.0), plain);
        let fast = thicket_core::cpu_path() == thicket_core::CpuPath::Fast;
        assert_eq!(best_swap(fast, &on_a, &on_b, 4.0, 6.0), plain);
    }
}

/// With slack a chain may walk to worse schedules inside an epoch, but it ends each epoch
/// at its record: the search's answer is never worse than its descended start, and it is
/// a complete schedule with the makespan it reports.
#[test]
fn a_chain_with_slack_ends_every_epoch_at_its_record() {
    let etc: crate::generate::Generator = "u_c_hihi:64x8".parse().unwrap();
    let etc = etc.generate(4).unwrap();
    let start = min_min(&etc, None);
    let mut descended = State::new(&etc, start.clone());
    descended.descend(&etc, None);
    for slack in [0.0, 0.0005, 0.05] {
        let limits = Limits {
            time: Duration::from_secs(3600),
            epochs: Some(3),
            bound: 0.0,
            slack,
            stop: None,
        };
        let run = search(&etc, start.clone(), 2, 9, limits, |_| {});
        assert_eq!(run.assignment.len(), etc.tasks());
        let (_, makespan) = crate::io::assignment::loads(&etc, &run.assignment);
        assert!(
            (makespan - run.makespan).abs() <= 1e-9 * makespan,
            "{slack}"
        );
        assert!(
            run.makespan <= descended.makespan() * (1.0 + 1e-12),
            "{slack}"
        );
    }
}

/// Without an epoch limit the chains meet as they come: on a pool with a thread for every
/// chain, a time-limited search reports its start, then at least once an epoch, never a
/// worse best; it returns a complete schedule with the makespan it reports, no worse than
/// its last report, after more than one epoch; and one whose bound its start's descent
/// reaches makes no epoch.
#[test]
fn chains_that_meet_as_they_come_keep_the_best_and_stop_at_the_bound() {
    let etc: crate::generate::Generator = "u_i_lohi:96x8".parse().unwrap();
    let etc = etc.generate(5).unwrap();
    let start = min_min(&etc, None);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let limits = |time: f64, bound: f64| Limits {
        time: Duration::from_secs_f64(time),
        epochs: None,
        bound,
        slack: 0.0,
        stop: None,
    };
    let mut reports = Vec::new();
    let run = pool.install(|| {
        search(&etc, start.clone(), 3, 2, limits(0.2, 0.0), |best| {
            reports.push(best)
        })
    });
    assert!(run.epochs > 1 && run.kicks > 0, "{run:?}");
    assert!(reports.len() > 1);
    assert!(reports.windows(2).all(|w| w[1] <= w[0]), "{reports:?}");
    assert!(run.makespan <= *reports.last().unwrap());
    let (_, makespan) = crate::io::assignment::loads(&etc, &run.assignment);
    assert!((makespan - run.makespan).abs() <= 1e-9 * makespan);
    let descended = search(&etc, start.clone(), 1, 2, limits(0.0, 0.0), |_| {});
    let bound = descended.makespan;
    let at_bound = pool.install(|| search(&etc, start, 3, 2, limits(60.0, bound), |_| {}));
    assert_eq!((at_bound.epochs, at_bound.kicks), (0, 0));
    assert!(at_bound.makespan <= bound);
}

/// The smallest larger load of the pair over every move of a task off `a` and every swap
/// of one of a's tasks with another machine's, where that is below a's load, and whether
/// it is a swap (`None` where none is below): what [`State::improve`] takes, scanned
/// plainly.
fn best_pair_by_brute_force(state: &State, etc: &Etc, a: usize) -> Option<(f64, bool)> {
    let la = state.loads[a];
    let mut best = la * (1.0 - EPS);
    let mut found = None;
    for b in (0..state.loads.len()).filter(|&b| b != a) {
        let lb = state.loads[b];
        for &t in &state.members[a] {
            let t = t as usize;
            let (after_a, b_with_t) = (la - etc.time(t, a), lb + etc.time(t, b));
            let swaps = state.members[b].iter().map(|&u| {
                let u = u as usize;
                (
                    (after_a + etc.time(u, a)).max(b_with_t - etc.time(u, b)),
                    true,
                )
            });
            for (pair, swap) in swaps.chain([(after_a.max(b_with_t), false)]) {
                if pair < best {
                    (best, found) = (pair, Some((pair, swap)));
                }
            }
        }
    }
    found
}

/// The scan skips the partners' swaps that cannot beat the best so far; it still takes
/// the move or swap a plain scan of every one finds, on kicked local optima of an
/// inconsistent matrix (where most scans are skipped) and of consistent and
/// semi-consistent ones, swaps among them.
#[test]
fn improve_takes_the_best_move_or_swap() {
    let mut rng = SplitMix::new(11);
    let mut swaps = 0;
    for spec in ["u_i_lohi:96x8", "u_c_hihi:96x8", "u_s_hilo:40x5"] {
        let generator: crate::generate::Generator = spec.parse().unwrap();
        let etc = generator.generate(5).unwrap();
        let mut state = State::new(&etc, min_min(&etc, None));
        for round in 0..40 {
            state.descend(&etc, None);
            state.kick(&etc, &mut rng, 3);
            let a = state.busiest();
            let expected = best_pair_by_brute_force(&state, &etc, a);
            let before = state.assignment.clone();
            let improved = state.improve(&etc, a, 0);
            assert_eq!(improved, expected.is_some(), "{spec} {round}");
            let Some((pair, swap)) = expected else {
                continue;
            };
            swaps += usize::from(swap);
            let b = (0..etc.tasks())
                .find(|&t| before[t] as usize == a && state.assignment[t] as usize != a)
                .map(|t| state.assignment[t] as usize)
                .expect("a task left a");
            let larger = state.loads[a].max(state.loads[b]);
            let at = format!("{spec} {round}: {larger} against {pair}");
            assert!((larger - pair).abs() <= 1e-9 * pair, "{at}");
        }
    }
    assert!(swaps >= 5, "{swaps}");
}

/// A machine that failed and has not changed since finds, scanning only the partners that
/// changed since, the move or swap a scan of every partner finds; a busiest machine likewise
/// its re-split. Checked after every kick of descended chains, on every machine.
#[test]
fn the_scans_of_changed_partners_find_what_full_scans_find() {
    let far = Instant::now() + Duration::from_secs(3600);
    let (mut restricted, mut resplit_restricted) = (0, 0);
    for spec in ["u_i_lohi:96x8", "u_c_hihi:96x8", "u_s_hilo:60x6"] {
        let generator: crate::generate::Generator = spec.parse().unwrap();
        let etc = generator.generate(9).unwrap();
        let mut state = State::new(&etc, min_min(&etc, None));
        let mut rng = SplitMix::new(2);
        let mut split = Split::default();
        for round in 0..60 {
            state.descend_deep(&etc, None, far, &mut split);
            state.kick(&etc, &mut rng, 2 + round % 3);
            for a in 0..etc.machines() {
                let since = state.partners_since(a);
                restricted += usize::from(since > 0);
                let (mut only, mut every) = (state.clone(), state.clone());
                assert_eq!(
                    only.improve(&etc, a, since),
                    every.improve(&etc, a, 0),
                    "{spec} {round} {a}"
                );
                assert_eq!(only.assignment, every.assignment, "{spec} {round} {a}");
            }
            let a = state.busiest();
            resplit_restricted +=
                usize::from(State::unchanged_since(state.changed_at[a], state.resplit_at[a]) > 0);
            let (mut only, mut every) = (state.clone(), state.clone());
            every.resplit_at.fill(0);
            assert_eq!(
                only.resplit(&etc, &mut split, far),
                every.resplit(&etc, &mut split, far),
                "{spec} {round}"
            );
            assert_eq!(only.assignment, every.assignment, "{spec} {round}");
        }
    }
    assert!(restricted >= 100, "{restricted}");
    assert!(resplit_restricted >= 30, "{resplit_restricted}");
}

#[test]
fn moves_keep_members_and_loads_consistent() {
    let etc = crate::generate::Generator::Thesis {
        tasks: 30,
        machines: 5,
    }
    .generate(1)
    .unwrap();
    let mut state = State::new(&etc, min_min(&etc, None));
    let mut rng = SplitMix::new(4);
    for _ in 0..20 {
        state.kick(&etc, &mut rng, 3);
        state.descend(&etc, None);
        state.exact(&etc);
        let fresh = State::new(&etc, state.assignment.clone());
        assert_eq!(fresh.loads, state.loads);
        for (m, tasks) in state.members.iter().enumerate() {
            for &t in tasks {
                assert_eq!(state.assignment[t as usize] as usize, m);
            }
        }
    }
}
