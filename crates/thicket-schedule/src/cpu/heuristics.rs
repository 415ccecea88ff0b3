//! The classic list heuristics (Braun et al. 2001), each a machine index per task:
//!
//! - OLB: tasks in order, each to the machine that is free first (lowest load), whatever the
//!   task's time there;
//! - MET: each task to its fastest machine, whatever the load;
//! - MCT: tasks in order, each to the machine that finishes it first (load + time); this is
//!   the thesis's "FCFS" ("the machine with the lowest MAT including that task");
//! - Min-Min / Max-Min: of the unassigned tasks' earliest completion times, the smallest
//!   (largest) first;
//! - Sufferage: the task that would lose most (second-earliest minus earliest completion)
//!   if denied its best machine first.
//!
//! Ties go to the lowest task index, then the lowest machine index (the rule under which
//! the Braun files give their published makespans, `tests/schedule/braun.rs`). Min-Min, Max-Min and Sufferage keep each task's best (and second-best) machine and
//! rescan only the tasks whose best machines just got busier, O(T·M) per step at worst.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::etc::Etc;

/// The machine with the smallest `key(m)`, the lowest index on ties.
fn argmin(machines: usize, key: impl Fn(usize) -> f64) -> usize {
    let mut best = 0;
    for m in 1..machines {
        if key(m) < key(best) {
            best = m;
        }
    }
    best
}

/// OLB: each task in order to the least loaded machine.
pub fn olb(etc: &Etc) -> Vec<u32> {
    let mut loads = vec![0.0; etc.machines()];
    (0..etc.tasks())
        .map(|t| {
            let m = argmin(etc.machines(), |m| loads[m]);
            loads[m] += etc.time(t, m);
            m as u32
        })
        .collect()
}

/// MET: each task to its fastest machine.
pub fn met(etc: &Etc) -> Vec<u32> {
    (0..etc.tasks())
        .map(|t| argmin(etc.machines(), |m| etc.time(t, m)) as u32)
        .collect()
}

/// MCT (the thesis's FCFS): each task in order to the machine that completes it first.
pub fn mct(etc: &Etc) -> Vec<u32> {
    let mut loads = vec![0.0; etc.machines()];
    (0..etc.tasks())
        .map(|t| {
            let m = argmin(etc.machines(), |m| loads[m] + etc.time(t, m));
            loads[m] += etc.time(t, m);
            m as u32
        })
        .collect()
}

/// Which batch heuristic picks the next task.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    MinMin,
    MaxMin,
    Sufferage,
}

/// A task's earliest and second-earliest completion, with the machines.
#[derive(Clone, Copy)]
struct Best {
    first: (f64, usize),
    second: (f64, usize),
}

fn best_of(etc: &Etc, loads: &[f64], t: usize) -> Best {
    let mut first = (f64::INFINITY, 0);
    let mut second = (f64::INFINITY, usize::MAX);
    for (m, (&load, &time)) in loads.iter().zip(etc.row(t)).enumerate() {
        let done = load + time;
        if done < first.0 {
            second = first;
            first = (done, m);
        } else if done < second.0 {
            second = (done, m);
        }
    }
    Best { first, second }
}

/// The batch heuristic `pick`, one task per step (O(T) per step, so O(T²) in all). Where
/// `stop` is raised (checked every step) the tasks left go, in order, to the machine that
/// finishes each first (MCT), so that a stopped run still has a complete schedule; the
/// public heuristics below take it alike.
fn batch(etc: &Etc, pick: Pick, stop: Option<&AtomicBool>) -> Vec<u32> {
    let (tasks, machines) = (etc.tasks(), etc.machines());
    let mut loads = vec![0.0; machines];
    let mut assignment = vec![u32::MAX; tasks];
    let mut open: Vec<usize> = (0..tasks).collect();
    let mut best: Vec<Best> = (0..tasks).map(|t| best_of(etc, &loads, t)).collect();
    while !open.is_empty() {
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            for &t in &open {
                let m = argmin(machines, |m| loads[m] + etc.time(t, m));
                assignment[t] = m as u32;
                loads[m] += etc.time(t, m);
            }
            break;
        }
        // `open` stays in task order, so strict comparisons keep the lowest task on ties.
        let mut chosen = 0;
        for i in 1..open.len() {
            let (a, b) = (&best[open[i]], &best[open[chosen]]);
            let better = match pick {
                Pick::MinMin => a.first.0 < b.first.0,
                Pick::MaxMin => a.first.0 > b.first.0,
                Pick::Sufferage => a.second.0 - a.first.0 > b.second.0 - b.first.0,
            };
            if better {
                chosen = i;
            }
        }
        let t = open.remove(chosen);
        let m = best[t].first.1;
        assignment[t] = m as u32;
        loads[m] += etc.time(t, m);
        // Only machine m got busier: tasks that counted on it rescan.
        for &u in &open {
            if best[u].first.1 == m || (pick == Pick::Sufferage && best[u].second.1 == m) {
                best[u] = best_of(etc, &loads, u);
            }
        }
    }
    assignment
}

/// Min-Min.
pub fn min_min(etc: &Etc, stop: Option<&AtomicBool>) -> Vec<u32> {
    batch(etc, Pick::MinMin, stop)
}

/// Max-Min.
pub fn max_min(etc: &Etc, stop: Option<&AtomicBool>) -> Vec<u32> {
    batch(etc, Pick::MaxMin, stop)
}

/// Sufferage (one task per step; one machine gives a sufferage of infinity to every task).
pub fn sufferage(etc: &Etc, stop: Option<&AtomicBool>) -> Vec<u32> {
    batch(etc, Pick::Sufferage, stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three tasks, two machines, worked by hand:
    ///
    /// ```text
    ///        m0  m1
    /// t0      4   6
    /// t1      3   1
    /// t2      2   5
    /// ```
    fn hand() -> Etc {
        Etc::new(3, 2, vec![4.0, 6.0, 3.0, 1.0, 2.0, 5.0]).unwrap()
    }

    #[test]
    fn list_heuristics_match_hand_computed_answers() {
        let etc = hand();
        // OLB: t0 -> m0 (both free, lowest index), t1 -> m1 (0 < 4), t2 -> m1 (1 < 4).
        assert_eq!(olb(&etc), vec![0, 1, 1]);
        // MET: fastest machines 0, 1, 0.
        assert_eq!(met(&etc), vec![0, 1, 0]);
        // MCT: t0 -> m0 (4 < 6); t1 -> m1 (1 < 7); t2: m0 6, m1 6 -> m0 on the tie.
        assert_eq!(mct(&etc), vec![0, 1, 0]);
    }

    #[test]
    fn batch_heuristics_match_hand_computed_answers() {
        let etc = hand();
        // Min-Min: minima t0 4 (m0), t1 1 (m1), t2 2 (m0) -> t1 to m1; then t0 4, t2 2 ->
        // t2 to m0; then t0: m0 6, m1 7 -> m0. Makespan 6.
        assert_eq!(min_min(&etc, None), vec![0, 1, 0]);
        // Max-Min: t0 (4) first to m0; then t1: m0 7, m1 1 -> 1; t2: m0 6, m1 5 -> 5;
        // largest is t2 (5) to m1; then t1: m0 7, m1 6 -> m1.
        assert_eq!(max_min(&etc, None), vec![0, 1, 1]);
        // Sufferage: t0 2, t1 2, t2 3 -> t2 to m0 (load 2); then t0: m0 6, m1 6 -> 0,
        // t1: m0 5, m1 1 -> 4 -> t1 to m1; then t0: m0 6, m1 7 -> m0.
        assert_eq!(sufferage(&etc, None), vec![0, 1, 0]);
    }

    #[test]
    fn a_stopped_batch_heuristic_finishes_by_mct() {
        let etc = hand();
        let stop = AtomicBool::new(true);
        for f in [min_min, max_min, sufferage] {
            assert_eq!(f(&etc, Some(&stop)), mct(&etc));
        }
    }

    #[test]
    fn one_machine_takes_everything() {
        let etc = Etc::new(3, 1, vec![1.0, 2.0, 3.0]).unwrap();
        for f in [olb, met, mct] {
            assert_eq!(f(&etc), vec![0, 0, 0]);
        }
        for f in [min_min, max_min, sufferage] {
            assert_eq!(f(&etc, None), vec![0, 0, 0]);
        }
    }
}
