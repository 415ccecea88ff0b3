//! The LP relaxation of the makespan problem (R||Cmax): a certified lower bound and a start.
//!
//! The relaxation lets a task be split over machines: x_tm >= 0, sum_m x_tm = 1 for every
//! task, sum_t p_tm x_tm <= C for every machine, minimise C. Its optimum is a lower bound on
//! every schedule's makespan, and a vertex optimum splits at most M - 1 tasks (Lenstra,
//! Shmoys and Tardos 1990), so rounding those few gives a schedule close to the bound.
//!
//! Two parts:
//! - [`dual_bound`]: the LP's dual is max over machine weights y (y >= 0, sum y = 1) of
//!   f(y) = sum_t min_m p_tm y_m, and *every* y gives a bound: a schedule with loads L has
//!   makespan >= sum_m y_m L_m >= f(y). Exponentiated-gradient ascent on y (the subgradient
//!   is the load vector of every task on its cheapest weighted machine) gets close to the LP
//!   optimum in O(iterations x T x M) and needs no solver, so the bound is checkable by hand.
//! - [`relax`]: the primal LP, solved exactly by `microlp` (a pure-Rust simplex) over a
//!   column subset: per task the [`COLUMNS`] machines cheapest under the ascent's weights, less
//!   those far dearer than its cheapest (a column with a much larger weighted time is never used
//!   by an optimum near those weights). Its vertex's split tasks are rounded, largest first, each
//!   to the machine that finishes it first. Over all columns the simplex's optimum is also a bound;
//!   over a subset it is not, so the reported bound is always the dual one (and the full LP's
//!   where that was solved).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome, Variable};
use rayon::prelude::*;
use thicket_core::{Error, Result};

use crate::etc::Etc;

/// Machines per task in the restricted LP.
pub const COLUMNS: usize = 4;
/// Steps of [`dual_bound`]'s ascent, at most.
pub const ASCENT: usize = 3000;
/// Where the simplex runs, the ascent stops once this many steps in a row ...
const SETTLE_STEPS: usize = 256;
/// ... raised its bound by at most this fraction: on 18 generated matrices (nine classes at
/// 512 x 16 and 1,024 x 32) it stopped after 768-2,304 steps (two ran all 3,000), and on the
/// 13 published ones ended within 5e-6 of the 3,000 steps' bound, in 0.015-0.04 s instead of
/// 0.06 s at 1,024 x 32 (2 cores, 2026-12-06).
const SETTLED: f64 = 1e-6;
/// A task's columns in the restricted LP are its [`COLUMNS`] cheapest machines under the
/// ascent's weights, less those more than this fraction dearer than its cheapest (the LP
/// optimum puts a task only on machines of about the same weighted cost): on the same 18
/// matrices the same optimum as with every one of the four, its simplex 0.02-0.05 s faster
/// at 1,024 x 32.
const COLUMN_SLACK: f64 = 0.1;
/// Matrices with more times than this skip the simplex (its time grows faster than the
/// matrix: 0.02-0.1 s at 1,024 x 32, 10 s at 2,048 x 64 on this project's 2-core machine)
/// and start from a greedy fill guided by the dual weights.
pub const LP_TIMES: usize = 65_536;
/// The ascent's first step (see [`dual_bound`]).
const STEP: f64 = 0.1;
/// Relative margin taken off a floating-point LP optimum before it is used as a bound.
const MARGIN: f64 = 1e-9;

/// The relaxation's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Relaxation {
    /// A lower bound on every makespan: the best of the trivial bound, the dual ascent's,
    /// and the full LP's optimum (less a relative 1e-9) where every column was used.
    pub bound: f64,
    /// The dual ascent's bound alone.
    pub dual: f64,
    /// The LP optimum over the columns used (an upper bound on the LP where restricted; NaN
    /// where the simplex did not run).
    pub lp: f64,
    /// Whether every column was in the LP.
    pub full: bool,
    /// The rounded vertex: a machine per task.
    pub start: Vec<u32>,
    /// Tasks the vertex split over machines.
    pub split: usize,
    /// Whether the simplex ran (else the start is the greedy fill by the dual weights).
    pub solved: bool,
}

/// Tasks in one piece of [`dual_value`]'s sum: the pieces are summed in order, so the value
/// rounds the same on any number of threads.
const DUAL_PIECE: usize = 256;

/// From this many entries (tasks x machines) on, [`dual_value`]'s pieces are computed on the
/// caller's threads: the ascent took 0.45 s of a 1 s run at 2,048 x 64 on one thread while the others
/// waited (2 cores, 2026-12-06); below it a step is too short to share.
const DUAL_PARALLEL_FROM: usize = 1 << 16;

/// One piece of [`dual_value`]'s sum: its weighted least times' sum and its tasks' loads on
/// their machines, kept between the ascent's steps.
type Piece = (f64, Vec<f64>);

/// f(y) = sum_t min_m p_tm y_m over sum y (a bound for any y >= 0, not all zero), with the
/// loads of every task on its argmin machine (lowest index on ties); `pieces` is scratch.
fn dual_value(etc: &Etc, y: &[f64], loads: &mut [f64], pieces: &mut Vec<Piece>) -> f64 {
    let fill = |(index, (sum, piece_loads)): (usize, &mut Piece)| {
        piece_loads.iter_mut().for_each(|l| *l = 0.0);
        *sum = 0.0;
        let first = index * DUAL_PIECE;
        for t in first..(first + DUAL_PIECE).min(etc.tasks()) {
            let row = etc.row(t);
            let (mut best, mut at) = (f64::INFINITY, 0);
            for (m, (&p, &w)) in row.iter().zip(y).enumerate() {
                if p * w < best {
                    (best, at) = (p * w, m);
                }
            }
            *sum += best;
            piece_loads[at] += row[at];
        }
    };
    let count = etc.tasks().div_ceil(DUAL_PIECE);
    pieces.resize_with(count, || (0.0, vec![0.0; y.len()]));
    match etc.tasks() * etc.machines() >= DUAL_PARALLEL_FROM {
        true => pieces.par_iter_mut().enumerate().for_each(fill),
        false => pieces.iter_mut().enumerate().for_each(fill),
    }
    loads.iter_mut().for_each(|l| *l = 0.0);
    let mut sum = 0.0;
    for (piece_sum, piece_loads) in pieces.iter() {
        sum += piece_sum;
        for (l, p) in loads.iter_mut().zip(piece_loads) {
            *l += p;
        }
    }
    sum / y.iter().sum::<f64>()
}

/// Whether the caller asked the run to stop.
fn stopped(stop: Option<&AtomicBool>) -> bool {
    stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
}

/// The dual ascent: machine weights y and their bound f(y), the best of [`ASCENT`]
/// exponentiated-gradient steps from weights inverse to the machines' total times, fewer
/// where `stop` is raised (every y gives a bound, so the best so far is one) or, if
/// `settle`, once [`SETTLE_STEPS`] steps raise it by no more than [`SETTLED`].
pub fn dual_bound(etc: &Etc, settle: bool, stop: Option<&AtomicBool>) -> (f64, Vec<f64>) {
    let machines = etc.machines();
    let mut y: Vec<f64> = (0..machines)
        .map(|m| {
            // A machine with no work at all gets weight 1 (any positive weight is a bound).
            let total: f64 = (0..etc.tasks()).map(|t| etc.time(t, m)).sum();
            if total > 0.0 {
                1.0 / total
            } else {
                1.0
            }
        })
        .collect();
    let norm: f64 = y.iter().sum();
    y.iter_mut().for_each(|w| *w /= norm);
    let (mut loads, mut pieces) = (vec![0.0; machines], Vec::new());
    let (mut best, mut best_y) = (dual_value(etc, &y, &mut loads, &mut pieces), y.clone());
    let mut settling_from = best;
    for k in 0..ASCENT {
        let f = dual_value(etc, &y, &mut loads, &mut pieces);
        if f > best {
            (best, best_y) = (f, y.clone());
        }
        if k > 0 && k % SETTLE_STEPS == 0 {
            if settle && k >= 2 * SETTLE_STEPS && best <= settling_from * (1.0 + SETTLED) {
                break;
            }
            settling_from = best;
        }
        let most = loads.iter().copied().fold(0.0, f64::max);
        if f <= 0.0 || most <= 0.0 || stopped(stop) {
            break;
        }
        // Weights rise on machines the cheapest choices overload and fall on the others, in
        // the exponent of the load's excess over the mean weighted load (relative to the
        // largest load, so the step has no unit), shrinking as 1/sqrt(k).
        let eta = STEP / (1.0 + k as f64).sqrt();
        for (w, &l) in y.iter_mut().zip(&loads) {
            *w *= (eta * (l - f) / most).exp();
        }
        let norm: f64 = y.iter().sum();
        y.iter_mut().for_each(|w| *w = (*w / norm).max(1e-300));
    }
    (best, best_y)
}

/// Solves the relaxation over the [`COLUMNS`] cheapest machines per task under the dual
/// weights, within [`COLUMN_SLACK`] of the cheapest (every machine where there are no more
/// than [`COLUMNS`]), and rounds it; above [`LP_TIMES`] times, or where `stop` is raised
/// before the simplex, only the dual ascent, and a start filled greedily by the dual weights.
pub fn relax(etc: &Etc, stop: Option<&AtomicBool>) -> Result<Relaxation> {
    let (tasks, machines) = (etc.tasks(), etc.machines());
    // Where the simplex runs, the weights only choose its columns, and a settled ascent
    // chooses the same; the greedy fill without it follows the weights themselves (settled
    // early, its starts at 2,048 x 64 were as often dearer as cheaper).
    let solvable = tasks.saturating_mul(machines) <= LP_TIMES;
    let (dual, y) = dual_bound(etc, solvable, stop);
    let full = machines <= COLUMNS;
    let unsolved = || Relaxation {
        bound: etc.lower_bound().max(dual),
        dual,
        lp: f64::NAN,
        full: false,
        start: dual_greedy(etc, &y, dual),
        split: 0,
        solved: false,
    };
    if !solvable || stopped(stop) {
        return Ok(unsolved());
    }
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let c = problem.add_var(1.0, (0.0, f64::INFINITY));
    // Per task, its columns: (machine, variable).
    let mut columns = Vec::with_capacity(tasks);
    let mut on_machine = vec![Vec::new(); machines];
    for t in 0..tasks {
        let row = etc.row(t);
        let mut chosen: Vec<usize> = (0..machines).collect();
        if !full {
            chosen.sort_by(|&a, &b| (row[a] * y[a]).total_cmp(&(row[b] * y[b])));
            chosen.truncate(COLUMNS);
            let cheapest = row[chosen[0]] * y[chosen[0]];
            chosen.retain(|&m| row[m] * y[m] <= cheapest * (1.0 + COLUMN_SLACK));
        }
        let vars: Vec<_> = chosen
            .into_iter()
            .map(|m| {
                let v = problem.add_var(0.0, (0.0, 1.0));
                on_machine[m].push((v, row[m]));
                (m, v)
            })
            .collect();
        problem.add_constraint(
            vars.iter().map(|&(_, v)| (v, 1.0)).collect::<Vec<_>>(),
            ComparisonOp::Eq,
            1.0,
        );
        columns.push(vars);
    }
    for mut terms in on_machine {
        terms.push((c, -1.0));
        problem.add_constraint(terms, ComparisonOp::Le, 0.0);
    }
    let variables: Vec<Variable> = columns.iter().flatten().map(|&(_, v)| v).collect();
    let Some(solved) = solve(problem, variables, stop)? else {
        return Ok(unsolved());
    };
    let Some((lp, values)) = solved else {
        // The simplex's own words name its internals, not the input: say what to do instead.
        return Err(Error::InvalidInput(format!(
            "the LP relaxation of this {tasks} x {machines} matrix could not be solved \
             (its times are too far apart for the simplex); --method ils or min-min \
             needs no LP"
        )));
    };
    let mut values = values.into_iter();
    let mut start = vec![0u32; tasks];
    let mut loads = vec![0.0; machines];
    let mut split = Vec::new();
    for (t, vars) in columns.iter().enumerate() {
        let (m, x) = vars
            .iter()
            .map(|&(m, _)| (m, values.next().unwrap_or(0.0)))
            .fold((0, f64::NEG_INFINITY), |acc, cur| {
                if cur.1 > acc.1 {
                    cur
                } else {
                    acc
                }
            });
        if x >= 1.0 - 1e-7 {
            start[t] = m as u32;
            loads[m] += etc.time(t, m);
        } else {
            split.push(t);
        }
    }
    let fractional = split.len();
    round(etc, &mut start, &mut loads, split);
    let mut bound = etc.lower_bound().max(dual);
    if full {
        bound = bound.max(lp * (1.0 - MARGIN));
    }
    Ok(Relaxation {
        bound,
        dual,
        lp,
        full,
        start,
        split: fractional,
        solved: true,
    })
}

/// The simplex's optimum and the values of `variables`, `None` where it found none; without
/// a `stop`, solved here. With one, solved on a thread of its own while this one watches
/// `stop` every [`STOP_POLL`], so that a stop is answered at once: `Ok(None)` then, and the
/// simplex (at most [`LP_TIMES`] times, about a second) finishes unwatched, its answer
/// dropped.
#[allow(clippy::type_complexity)]
fn solve(
    problem: Problem,
    variables: Vec<Variable>,
    stop: Option<&AtomicBool>,
) -> Result<Option<Option<(f64, Vec<f64>)>>> {
    let run = move || match problem.solve() {
        Ok(SolveOutcome::Solution(s)) => Some((
            s.objective(),
            variables.iter().map(|&v| s.var_value(v)).collect(),
        )),
        _ => None,
    };
    let Some(stop) = stop else {
        return Ok(Some(run()));
    };
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .name("thicket-schedule-lp".into())
        .spawn(move || {
            // The receiver is gone where the run was stopped: nothing waits for the answer.
            let _ = send.send(run());
        })
        .map_err(|e| Error::Unavailable(format!("no thread for the LP relaxation: {e}")))?;
    loop {
        match receive.recv_timeout(STOP_POLL) {
            Ok(solved) => return Ok(Some(solved)),
            Err(RecvTimeoutError::Timeout) if stop.load(Ordering::Relaxed) => return Ok(None),
            Err(RecvTimeoutError::Timeout) => {}
            // The simplex panicked: no solution.
            Err(RecvTimeoutError::Disconnected) => return Ok(Some(None)),
        }
    }
}

/// How often a relaxation watches for its caller's stop while the simplex runs.
const STOP_POLL: Duration = Duration::from_millis(10);

/// The default's start: [`relax`]'s, or Min-Min's where that is no worse (so that the
/// default, which never returns worse than its start, is never worse than Min-Min); where
/// the matrix is small enough for [`crate::cpu::exact::optimum`] to finish, the optimal schedule,
/// its makespan the bound.
pub fn start(etc: &Etc, stop: Option<&AtomicBool>) -> Result<Relaxation> {
    let mut relaxation = relax(etc, stop)?;
    let min_min = crate::cpu::heuristics::min_min(etc, stop);
    let (_, rounded) = crate::io::assignment::loads(etc, &relaxation.start);
    if crate::io::assignment::loads(etc, &min_min).1 <= rounded {
        relaxation.start = min_min;
    }
    // A matrix small enough to search exhaustively has its optimum as the bound, so that the
    // search, starting at it, stops at once with the schedule proven optimal.
    if stopped(stop) {
        return Ok(relaxation);
    }
    if let Some((optimal, makespan)) = crate::cpu::exact::optimum(etc, &relaxation.start) {
        relaxation.start = optimal;
        relaxation.bound = relaxation.bound.max(makespan);
    }
    Ok(relaxation)
}

/// The bound reported beside a method that computes none (outside its time): the dual
/// ascent's, at least [`Etc::lower_bound`]; cut short where `stop` is raised.
pub(crate) fn reported_bound(etc: &Etc, stop: Option<&AtomicBool>) -> f64 {
    etc.lower_bound().max(dual_bound(etc, false, stop).0)
}

/// A start from the dual weights alone: tasks in order of regret (how much more their
/// second-cheapest weighted machine costs than their cheapest), each to the cheapest of its
/// [`COLUMNS`] cheapest weighted machines that stays within `target` (the bound), else to
/// the machine that finishes it first.
fn dual_greedy(etc: &Etc, y: &[f64], target: f64) -> Vec<u32> {
    let (tasks, machines) = (etc.tasks(), etc.machines());
    let mut choices: Vec<Vec<usize>> = Vec::with_capacity(tasks);
    let mut regret = Vec::with_capacity(tasks);
    for t in 0..tasks {
        let row = etc.row(t);
        let mut by_cost: Vec<usize> = (0..machines).collect();
        by_cost.sort_by(|&a, &b| (row[a] * y[a]).total_cmp(&(row[b] * y[b])).then(a.cmp(&b)));
        by_cost.truncate(COLUMNS.max(2));
        let first = row[by_cost[0]] * y[by_cost[0]];
        let second = by_cost.get(1).map_or(first, |&m| row[m] * y[m]);
        regret.push((second - first) / first.max(f64::MIN_POSITIVE));
        choices.push(by_cost);
    }
    let mut order: Vec<usize> = (0..tasks).collect();
    order.sort_by(|&a, &b| regret[b].total_cmp(&regret[a]).then(a.cmp(&b)));
    let mut loads = vec![0.0; machines];
    let mut start = vec![0u32; tasks];
    for t in order {
        let row = etc.row(t);
        let at = choices[t]
            .iter()
            .copied()
            .find(|&m| loads[m] + row[m] <= target)
            .unwrap_or_else(|| {
                (0..machines).fold(0, |at, m| {
                    if loads[m] + row[m] < loads[at] + row[at] {
                        m
                    } else {
                        at
                    }
                })
            });
        start[t] = at as u32;
        loads[at] += row[at];
    }
    start
}

/// Places the split tasks, the longest (by best time) first, each on the machine that
/// finishes it first given the loads so far.
fn round(etc: &Etc, start: &mut [u32], loads: &mut [f64], mut split: Vec<usize>) {
    let best = |t: usize| etc.row(t).iter().copied().fold(f64::INFINITY, f64::min);
    split.sort_by(|&a, &b| best(b).total_cmp(&best(a)).then(a.cmp(&b)));
    for t in split {
        let row = etc.row(t);
        let (mut done, mut at) = (f64::INFINITY, 0);
        for (m, (&load, &p)) in loads.iter().zip(row).enumerate() {
            if load + p < done {
                (done, at) = (load + p, m);
            }
        }
        start[t] = at as u32;
        loads[at] += row[at];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    /// The optimum by enumerating every assignment.
    fn brute_force(etc: &Etc) -> f64 {
        let (tasks, machines) = (etc.tasks(), etc.machines());
        let total = machines.pow(tasks as u32);
        let mut best = f64::INFINITY;
        for code in 0..total {
            let mut loads = vec![0.0; machines];
            let mut c = code;
            for t in 0..tasks {
                loads[c % machines] += etc.time(t, c % machines);
                c /= machines;
            }
            best = best.min(loads.iter().copied().fold(0.0, f64::max));
        }
        best
    }

    #[test]
    fn bounds_never_pass_the_brute_force_optimum() {
        let kinds = ["u_c_hihi", "u_i_lolo", "u_s_lohi", "thesis"];
        for (i, kind) in kinds.iter().enumerate() {
            for (tasks, machines) in [(6, 2), (7, 3), (5, 4)] {
                let spec = format!("{kind}:{tasks}x{machines}");
                let etc = spec
                    .parse::<Generator>()
                    .unwrap()
                    .generate(i as u64)
                    .unwrap();
                let optimum = brute_force(&etc);
                let relaxation = relax(&etc, None).unwrap();
                assert!(relaxation.full);
                assert!(relaxation.bound <= optimum * (1.0 + 1e-12), "{spec}");
                assert!(relaxation.dual <= relaxation.lp * (1.0 + 1e-9), "{spec}");
                assert!(relaxation.split < machines, "{spec}");
                let (_, rounded) = crate::io::assignment::loads(&etc, &relaxation.start);
                assert!(rounded >= optimum * (1.0 - 1e-12), "{spec}");
            }
        }
    }

    #[test]
    fn a_settled_ascent_stops_early_close_to_the_whole_ascent() {
        for (seed, kind) in ["u_c_hihi", "u_i_lohi", "u_s_hilo"].iter().enumerate() {
            let spec = format!("{kind}:256x8");
            let etc = spec
                .parse::<Generator>()
                .unwrap()
                .generate(seed as u64)
                .unwrap();
            let (whole, _) = dual_bound(&etc, false, None);
            let (settled, _) = dual_bound(&etc, true, None);
            // Both are the best of the same steps' bounds, the settled one of a prefix.
            assert!(settled <= whole, "{spec}");
            assert!(
                settled >= whole * (1.0 - 1e-4),
                "{spec}: {settled} against {whole}"
            );
        }
    }

    #[test]
    fn zero_times_and_one_machine_give_finite_bounds() {
        for etc in [
            Etc::new(3, 2, vec![0.0; 6]).unwrap(),
            Etc::new(4, 1, vec![1.0, 2.0, 3.0, 4.0]).unwrap(),
            Etc::new(2, 3, vec![0.0, 5.0, 5.0, 1.0, 0.0, 2.0]).unwrap(),
        ] {
            let relaxation = start(&etc, None).unwrap();
            let (_, makespan) = crate::io::assignment::loads(&etc, &relaxation.start);
            assert!(relaxation.bound.is_finite() && relaxation.bound <= makespan + 1e-12);
        }
    }

    #[test]
    fn a_split_task_is_rounded_and_the_bound_is_the_lp() {
        // Two equal machines, three unit tasks: the LP splits one task, C = 1.5.
        let etc = Etc::new(3, 2, vec![1.0; 6]).unwrap();
        let relaxation = relax(&etc, None).unwrap();
        assert!((relaxation.lp - 1.5).abs() < 1e-9);
        assert!((relaxation.bound - 1.5).abs() < 1e-6);
        let (_, makespan) = crate::io::assignment::loads(&etc, &relaxation.start);
        assert_eq!(makespan, 2.0);
    }
}
