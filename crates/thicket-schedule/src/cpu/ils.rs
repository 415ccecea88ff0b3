//! thicket's default: an iterated local search from Min-Min, one chain per thread, the chains
//! meeting at the best schedule between epochs.
//!
//! The local search descends on the sorted load vector, not on the makespan alone: a move
//! (a task to another machine) or a swap (two tasks on two machines) is taken when it lowers
//! the larger of the two machines' loads. That lowers the makespan whenever the busiest
//! machine is involved, and otherwise makes room below it, so a schedule whose makespan no
//! single move improves still has somewhere to go. Moves are evaluated from the loads alone
//! (O(1) each); the busiest machine is tried first, best improvement per machine. Every
//! [`RESPLIT_EVERY`]th descent (and the first) goes further: where no move or swap is left,
//! the busiest machine's tasks and one partner's are split anew between the two
//! ([`pair`]: two for one, three for two, ...), and the descent resumes.
//!
//! Between descents a kick takes two to four random tasks off their machines (half of them
//! from a machine at the makespan) and puts each back where it would finish first (the
//! iterated greedy of Fanjul-Peyro and Ruiz 2010, whose local search also accepts a move
//! when it lowers the larger load of the two machines), in half the kicks on a machine
//! other than its own; the chain keeps the result if its makespan is no worse, else returns
//! to where it was. After every epoch (a fixed number of kicks) a chain meets the best
//! schedule, and restarts from it where it is more than [`RESTART_GAP`] behind
//! ([`meetings`]: all chains at once where an epoch limit is given, so that runs with the
//! same seed and epochs are the same; each as it comes otherwise, so that none waits for
//! the slowest); the time limit is checked before every kick, and the search ends early at
//! the lower bound.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use thicket_core::SplitMix;

use crate::etc::Etc;
use meetings::Chain;
use pair::Split;

mod meetings;
mod pair;

/// Kicks per chain per epoch.
pub const EPOCH_KICKS: usize = 64;
/// Every this many kicks of a chain (the first of each epoch included), the kick's descent
/// goes on with [`State::resplit`]: a re-split of two machines costs some ten ordinary
/// descents, and most kicks end where a re-split finds nothing.
const RESPLIT_EVERY: u64 = 8;
/// A chain this far behind the best (relative) restarts from the best after an epoch.
pub const RESTART_GAP: f64 = 0.002;
/// Relative distance from the lower bound within which a makespan counts as reaching it (the
/// rounding of sums in different orders): the search stops there, and the run reports the
/// schedule proven optimal.
pub const BOUND_TOLERANCE: f64 = 1e-9;
/// A move must lower the pair's larger load by this much (relative) to count.
const EPS: f64 = 1e-12;

/// When the search stops.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'a> {
    /// Wall time.
    pub time: Duration,
    /// Epochs at most (for reproducible runs and tests).
    pub epochs: Option<usize>,
    /// A lower bound: the search stops when it reaches it (the matrix's trivial bound is
    /// used where it is higher).
    pub bound: f64,
    /// How much worse than its chain's record (relative) a kick's result may be and still be
    /// kept (record-to-record travel, Dueck 1993); 0: only results no worse than the record.
    /// Each epoch ends at the chain's record, so a chain never leaves an epoch worse off.
    pub slack: f64,
    /// Set by another thread to end the search before its time (checked before every kick,
    /// like the time).
    pub stop: Option<&'a AtomicBool>,
}

impl Limits<'_> {
    /// Whether another thread asked the search to stop.
    fn stopped(&self) -> bool {
        self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }
}

/// A schedule with its loads and, per machine, its tasks.
pub(crate) struct State {
    pub(crate) assignment: Vec<u32>,
    loads: Vec<f64>,
    members: Vec<Vec<u32>>,
    /// Index of each task in its machine's member list.
    slot: Vec<u32>,
    /// Moves and checks so far (a clock for the stamps below).
    clock: u64,
    /// When each machine's tasks last changed.
    changed_at: Vec<u64>,
    /// When each machine last failed to improve (0: never checked).
    checked_at: Vec<u64>,
    /// When each machine, as the busiest, last found no re-split with any partner (0:
    /// never).
    resplit_at: Vec<u64>,
    /// Scratch of [`State::improve`]: a partner's tasks' times on the two machines.
    on_a: Vec<f64>,
    on_b: Vec<f64>,
}

impl Clone for State {
    fn clone(&self) -> State {
        State {
            assignment: self.assignment.clone(),
            loads: self.loads.clone(),
            members: self.members.clone(),
            slot: self.slot.clone(),
            clock: self.clock,
            changed_at: self.changed_at.clone(),
            checked_at: self.checked_at.clone(),
            resplit_at: self.resplit_at.clone(),
            on_a: Vec::new(),
            on_b: Vec::new(),
        }
    }

    /// Field by field into the vectors `self` has (a chain saves its schedule before every
    /// kick); the scratch is not copied.
    fn clone_from(&mut self, source: &State) {
        self.assignment.clone_from(&source.assignment);
        self.loads.clone_from(&source.loads);
        self.members.clone_from(&source.members);
        self.slot.clone_from(&source.slot);
        self.clock = source.clock;
        self.changed_at.clone_from(&source.changed_at);
        self.checked_at.clone_from(&source.checked_at);
        self.resplit_at.clone_from(&source.resplit_at);
    }
}

/// The larger of two times, as one instruction: the times of an [`Etc`] and the loads summed
/// from them are never NaN, so `f64::max`'s NaN handling (a fifth of the descent's time in
/// its hottest loop) has nothing to do.
#[inline(always)]
fn larger(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

/// The smaller of two times (see [`larger`]).
#[inline(always)]
fn smaller(x: f64, y: f64) -> f64 {
    if x < y {
        x
    } else {
        y
    }
}

/// Defines `$name(on_a, on_b, after_a, b_with_t) -> f64`: of the swaps of one task (a's
/// load without it `after_a`, b's load with it `b_with_t`) with each of b's tasks (times
/// `on_a`, `on_b`), the smallest larger load (infinity where b has no task). Eight
/// independent lanes, so the compiler keeps them in vector registers; no multiplication, so
/// both paths round alike.
macro_rules! best_swap {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[inline]
        fn $name(on_a: &[f64], on_b: &[f64], after_a: f64, b_with_t: f64) -> f64 {
            const LANES: usize = 8;
            let mut lanes = [f64::INFINITY; LANES];
            let chunks = on_a.len() / LANES * LANES;
            for (ca, cb) in on_a[..chunks]
                .chunks_exact(LANES)
                .zip(on_b[..chunks].chunks_exact(LANES))
            {
                for l in 0..LANES {
                    let pair = larger(after_a + ca[l], b_with_t - cb[l]);
                    lanes[l] = if pair < lanes[l] { pair } else { lanes[l] };
                }
            }
            let mut min = lanes.iter().copied().fold(f64::INFINITY, f64::min);
            for k in chunks..on_a.len() {
                min = smaller(larger(after_a + on_a[k], b_with_t - on_b[k]), min);
            }
            min
        }
    };
}

best_swap!(best_swap_portable);
thicket_core::fast_path!(best_swap!(best_swap_fast));

/// [`best_swap_portable`], on the fast path where `fast`.
#[inline]
fn best_swap(fast: bool, on_a: &[f64], on_b: &[f64], after_a: f64, b_with_t: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if fast {
        // SAFETY: `fast` is true only where cpu_path() found every feature of the fast path.
        return unsafe { best_swap_fast(on_a, on_b, after_a, b_with_t) };
    }
    let _ = fast;
    best_swap_portable(on_a, on_b, after_a, b_with_t)
}

impl State {
    pub(crate) fn new(etc: &Etc, assignment: Vec<u32>) -> State {
        let mut loads = vec![0.0; etc.machines()];
        let mut members = vec![Vec::new(); etc.machines()];
        let mut slot = vec![0; etc.tasks()];
        for (t, &m) in assignment.iter().enumerate() {
            loads[m as usize] += etc.time(t, m as usize);
            slot[t] = members[m as usize].len() as u32;
            members[m as usize].push(t as u32);
        }
        State {
            assignment,
            changed_at: vec![1; loads.len()],
            checked_at: vec![0; loads.len()],
            resplit_at: vec![0; loads.len()],
            loads,
            members,
            slot,
            clock: 1,
            on_a: Vec::new(),
            on_b: Vec::new(),
        }
    }

    pub(crate) fn makespan(&self) -> f64 {
        self.loads.iter().copied().fold(0.0, f64::max)
    }

    fn busiest(&self) -> usize {
        let mut best = 0;
        for m in 1..self.loads.len() {
            if self.loads[m] > self.loads[best] {
                best = m;
            }
        }
        best
    }

    fn shift(&mut self, etc: &Etc, t: usize, to: usize) {
        let from = self.assignment[t] as usize;
        if from == to {
            return;
        }
        let s = self.slot[t] as usize;
        self.members[from].swap_remove(s);
        if let Some(&moved) = self.members[from].get(s) {
            self.slot[moved as usize] = s as u32;
        }
        self.loads[from] -= etc.time(t, from);
        self.loads[to] += etc.time(t, to);
        self.slot[t] = self.members[to].len() as u32;
        self.members[to].push(t as u32);
        self.assignment[t] = to as u32;
        self.clock += 1;
        self.changed_at[from] = self.clock;
        self.changed_at[to] = self.clock;
    }

    /// The clock from which machine a's partners can offer it a move or swap: where a failed
    /// to improve at its last check and has not changed since, the partners that did not
    /// change since then offer it none now either (their loads and tasks, and a's, are those
    /// of that check), so only those that changed are scanned; otherwise 0, every partner.
    /// After a kick most machines have a few changed partners of some thirty.
    fn partners_since(&self, a: usize) -> u64 {
        Self::unchanged_since(self.changed_at[a], self.checked_at[a])
    }

    /// `checked` where a machine changed at `changed` has not changed since, else 0.
    fn unchanged_since(changed: u64, checked: u64) -> u64 {
        match changed < checked {
            true => checked,
            false => 0,
        }
    }

    /// The best move or swap that lowers machine a's load below it while keeping the other
    /// machine below a's old load, with a partner changed at or after `since` (0: any);
    /// applied if found. Partner by partner, the partner's tasks' times on both machines are
    /// gathered once, so the scan over them for each of a's tasks runs on contiguous arrays,
    /// four lanes at a time.
    fn improve(&mut self, etc: &Etc, a: usize, since: u64) -> bool {
        let la = self.loads[a];
        let bar = la * (1.0 - EPS);
        let mut best = bar;
        let mut found: Option<(usize, usize, Option<usize>)> = None;
        let (mut on_a, mut on_b) = (
            std::mem::take(&mut self.on_a),
            std::mem::take(&mut self.on_b),
        );
        let fast = thicket_core::cpu_path() == thicket_core::CpuPath::Fast;
        for b in 0..self.loads.len() {
            let lb = self.loads[b];
            if b == a || lb >= bar || self.changed_at[b] < since {
                continue;
            }
            on_a.clear();
            on_b.clear();
            let (mut least_on_a, mut most_on_b) = (f64::INFINITY, f64::NEG_INFINITY);
            for &u in &self.members[b] {
                let row = etc.row(u as usize);
                on_a.push(row[a]);
                on_b.push(row[b]);
                least_on_a = smaller(row[a], least_on_a);
                most_on_b = larger(row[b], most_on_b);
            }
            for &t in &self.members[a] {
                let t = t as usize;
                let row = etc.row(t);
                let after_a = la - row[a];
                let b_with_t = lb + row[b];
                let pair = larger(b_with_t, after_a);
                if pair < best {
                    best = pair;
                    found = Some((t, b, None));
                }
                // No swap of t with b's tasks has a smaller larger load than this (sums and
                // differences round monotonically), so where it is not below the best the
                // scan can find nothing: on matrices where most tasks are slow on most
                // machines (the inconsistent classes) that skips most scans.
                if larger(after_a + least_on_a, b_with_t - most_on_b) >= best {
                    continue;
                }
                let pair = best_swap(fast, &on_a, &on_b, after_a, b_with_t);
                if pair < best {
                    best = pair;
                    // The first of b's tasks that gives it (rare: only on an improvement).
                    let k = (0..on_a.len())
                        .position(|k| larger(after_a + on_a[k], b_with_t - on_b[k]) == pair)
                        .unwrap_or(0);
                    found = Some((t, b, Some(self.members[b][k] as usize)));
                }
            }
        }
        (self.on_a, self.on_b) = (on_a, on_b);
        match found {
            Some((t, b, swap)) => {
                self.shift(etc, t, b);
                if let Some(u) = swap {
                    self.shift(etc, u, a);
                }
                true
            }
            None => false,
        }
    }

    /// Descends until no machine's load can be lowered by a move or swap: sweeps over the
    /// machines, busiest first, improving each while it can; where `stop` is raised (checked
    /// before each machine) it ends there, the schedule complete but not a local optimum.
    pub(crate) fn descend(&mut self, etc: &Etc, stop: Option<&AtomicBool>) {
        let mut order: Vec<usize> = (0..self.loads.len()).collect();
        loop {
            order.sort_by(|&a, &b| self.loads[b].total_cmp(&self.loads[a]));
            let mut changed = false;
            for &a in &order {
                if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                    return;
                }
                let mut since = self.partners_since(a);
                while self.improve(etc, a, since) {
                    changed = true;
                    since = 0;
                }
                self.clock += 1;
                self.checked_at[a] = self.clock;
            }
            if !changed {
                break;
            }
        }
    }

    /// [`State::descend`], then re-splits the busiest machine's tasks with a partner's
    /// ([`State::resplit`]) and descends again, while that lowers the busiest machine and
    /// neither `stop` nor `deadline` has come.
    fn descend_deep(
        &mut self,
        etc: &Etc,
        stop: Option<&AtomicBool>,
        deadline: Instant,
        split: &mut Split,
    ) {
        loop {
            self.descend(etc, stop);
            if stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
                || Instant::now() >= deadline
                || !self.resplit(etc, split, deadline)
            {
                return;
            }
        }
    }

    /// The same schedule with loads summed afresh (+= and -= drift over many moves).
    fn exact(&mut self, etc: &Etc) {
        *self = State::new(etc, std::mem::take(&mut self.assignment));
    }

    /// Ruins and recreates: takes `k` random tasks off their machines (every second one from
    /// a busiest machine), then puts each back, in that order, on the machine that would
    /// finish it first (Fanjul-Peyro and Ruiz's iterated greedy); in every other kick on
    /// average, on the machine other than its own that would finish it first.
    ///
    /// Why the displacing kicks: a task taken off the busiest machine mostly finishes first
    /// back on it (elsewhere it is slower), so that without them 73-99% of the kicks on
    /// generated matrices ended at the makespan they started from, the busiest machine as it
    /// was. Displaced, the busiest machine's tasks stay off it unless the descent brings them
    /// back (docs/schedule.md, "Kicks that displace their tasks").
    fn kick(&mut self, etc: &Etc, rng: &mut SplitMix, k: usize) {
        let machines = etc.machines();
        if machines < 2 {
            return;
        }
        let displace = rng.below(2) == 0;
        let mut taken = Vec::with_capacity(k);
        for i in 0..k {
            let t = if i % 2 == 0 {
                let top = &self.members[self.busiest()];
                top[rng.below(top.len() as u64) as usize] as usize
            } else {
                rng.below(etc.tasks() as u64) as usize
            };
            if taken.contains(&t) {
                continue;
            }
            // Parked on its own machine, its time taken off the load until it is placed.
            let m = self.assignment[t] as usize;
            self.loads[m] -= etc.time(t, m);
            taken.push(t);
        }
        for &t in &taken {
            let m = self.assignment[t] as usize;
            self.loads[m] += etc.time(t, m);
            let row = etc.row(t);
            let (mut best, mut at) = (f64::INFINITY, m);
            for (b, (&load, &time)) in self.loads.iter().zip(row).enumerate() {
                let done = match b == m {
                    true if displace => continue,
                    true => load,
                    false => load + time,
                };
                if done < best {
                    (best, at) = (done, b);
                }
            }
            self.shift(etc, t, at);
        }
    }
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRun {
    /// The best assignment.
    pub assignment: Vec<u32>,
    /// Its makespan (f64, task order).
    pub makespan: f64,
    /// Epochs run (each chain's, on average, where the chains met as they came).
    pub epochs: usize,
    /// Kicks run over all chains.
    pub kicks: u64,
}

/// Runs `chains` chains (in parallel on the current rayon pool) from `start` until `limits`.
/// The chains meet after every epoch ([`meetings`]): all at once where an epoch limit asks
/// for a repeatable run, each as it finishes its epoch otherwise (where the pool has a thread
/// for every chain). `report(best)` for the start and after every meeting: in step, every
/// epoch; as they come, every epoch of the first chain and every improvement.
pub fn search(
    etc: &Etc,
    start: Vec<u32>,
    chains: usize,
    seed: u64,
    limits: Limits,
    mut report: impl FnMut(f64) + Send,
) -> SearchRun {
    let started = Instant::now();
    let deadline = started + limits.time;
    let lower = etc.lower_bound().max(limits.bound);
    let mut first = State::new(etc, start);
    first.descend_deep(etc, limits.stop, deadline, &mut Split::default());
    first.exact(etc);
    let chains: Vec<Chain> = (0..chains.max(1) as u64)
        .map(|c| Chain {
            state: first.clone(),
            rng: SplitMix::new(seed ^ (c + 1).wrapping_mul(0xa076_1d64_78bd_642f)),
            split: Split::default(),
        })
        .collect();
    report(first.makespan());
    let meeting = meetings::Meeting {
        etc,
        limits: &limits,
        deadline,
        lower,
    };
    // As they come only where every chain has a thread (see `as_they_come`).
    let as_they_come =
        limits.epochs.is_none() && (2..=rayon::current_num_threads()).contains(&chains.len());
    match as_they_come {
        true => meeting.as_they_come(chains, first, report),
        false => meeting.in_step(chains, first, report),
    }
}

#[cfg(test)]
mod tests;
