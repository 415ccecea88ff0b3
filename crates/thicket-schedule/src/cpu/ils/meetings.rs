//! Where the chains meet: after each epoch a chain's schedule becomes the best where it is
//! better, and a chain more than [`RESTART_GAP`] behind the best restarts from it.
//!
//! In step ([`Meeting::in_step`]), every chain runs its epoch and all meet at once, the best
//! chain the lowest index on ties, so that runs with the same seed and epochs are the same.
//! As they come ([`Meeting::as_they_come`]), each chain meets the best as soon as its own epoch
//! ends and goes on at once: no chain waits for the slowest. Epochs differ in length (a kick's
//! descent may re-split machines or not), and the pool's threads sleep between steps: on this
//! project's 2-core machine the chains in step spent a fifth of a run waiting, and on a 16-core
//! H100 host a 1 s run made 34,513 kicks on one thread against 31,712 on two and 158,306 on
//! fifteen (docs/schedule.md). A time-limited run is not repeatable anyway, so it meets as
//! the chains come; a run with an epoch limit meets in step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use thicket_core::SplitMix;

use super::{Limits, SearchRun, State, BOUND_TOLERANCE, EPOCH_KICKS, RESPLIT_EVERY, RESTART_GAP};
use crate::cpu::ils::pair::Split;
use crate::etc::Etc;

/// One chain: its schedule, its random stream and its re-split's scratch.
pub(super) struct Chain {
    pub(super) state: State,
    pub(super) rng: SplitMix,
    pub(super) split: Split,
}

impl Chain {
    /// One epoch: [`EPOCH_KICKS`] kicks, each followed by a descent and kept if no worse
    /// (or within the limits' slack of the epoch's record), fewer if the deadline or a stop
    /// comes first (large matrices: an epoch may take seconds); the chain ends it at its
    /// record. Returns the kicks made.
    fn epoch(&mut self, meeting: &Meeting<'_>) -> u64 {
        let (etc, limits, deadline) = (meeting.etc, meeting.limits, meeting.deadline);
        let Chain { state, rng, split } = self;
        let slack = limits.slack;
        let mut kicks = 0;
        // The chain's best schedule of the epoch, kept only once the walk may leave it.
        let mut record = state.makespan();
        let mut record_state = (slack > 0.0).then(|| state.clone());
        // The schedule before each kick, kept in one place so that its memory is reused.
        let mut before = state.clone();
        while kicks < EPOCH_KICKS as u64 && Instant::now() < deadline && !limits.stopped() {
            before.clone_from(state);
            let k = 2 + rng.below(3) as usize;
            state.kick(etc, rng, k);
            if kicks % RESPLIT_EVERY == 0 {
                state.descend_deep(etc, limits.stop, deadline, split);
            } else {
                state.descend(etc, limits.stop);
            }
            let now = state.makespan();
            if now > record * (1.0 + slack) {
                std::mem::swap(state, &mut before);
            } else if now < record {
                record = now;
                if let Some(kept) = record_state.as_mut() {
                    kept.clone_from(state);
                }
            }
            kicks += 1;
        }
        if let Some(kept) = record_state {
            if kept.makespan() < state.makespan() {
                *state = kept;
            }
        }
        state.exact(etc);
        kicks
    }

    /// Whether the chain is far enough behind `best` to restart from it.
    fn behind(&self, best: &State) -> bool {
        self.state.makespan() > best.makespan() * (1.0 + RESTART_GAP)
    }
}

/// What the chains search under.
pub(super) struct Meeting<'a> {
    pub(super) etc: &'a Etc,
    pub(super) limits: &'a Limits<'a>,
    pub(super) deadline: Instant,
    /// The search ends once the best reaches this bound.
    pub(super) lower: f64,
}

impl Meeting<'_> {
    /// Whether `best` is at the bound: nothing can beat it.
    fn reached(&self, best: &State) -> bool {
        best.makespan() <= self.lower * (1.0 + BOUND_TOLERANCE)
    }

    /// Whether a chain may start another epoch (the best not yet at the bound aside).
    fn goes_on(&self) -> bool {
        Instant::now() < self.deadline && !self.limits.stopped()
    }

    /// All chains run an epoch, then meet at once; until the limits, the epoch limit or the
    /// bound.
    pub(super) fn in_step(
        &self,
        mut chains: Vec<Chain>,
        mut best: State,
        mut report: impl FnMut(f64),
    ) -> SearchRun {
        let (mut epochs, mut kicks) = (0, 0);
        while self.goes_on()
            && self.limits.epochs.is_none_or(|e| epochs < e)
            && !self.reached(&best)
        {
            kicks += chains
                .par_iter_mut()
                .map(|chain| chain.epoch(self))
                .sum::<u64>();
            epochs += 1;
            // The best chain, the lowest index on ties, so that runs repeat.
            let (c, _) = chains
                .iter()
                .enumerate()
                .fold((0, f64::INFINITY), |acc, (i, chain)| {
                    if chain.state.makespan() < acc.1 {
                        (i, chain.state.makespan())
                    } else {
                        acc
                    }
                });
            if chains[c].state.makespan() < best.makespan() {
                best.clone_from(&chains[c].state);
            }
            for chain in chains.iter_mut().filter(|chain| chain.behind(&best)) {
                chain.state.clone_from(&best);
            }
            report(best.makespan());
        }
        SearchRun {
            makespan: best.makespan(),
            assignment: best.assignment,
            epochs,
            kicks,
        }
    }

    /// Each chain on a thread of its own, meeting the best after each of its epochs, until
    /// the limits or the bound; `epochs` in the result is the chains' epochs over the chains.
    /// The caller's pool must have a thread for every chain (one waiting for a thread would
    /// start only once another's time is up).
    pub(super) fn as_they_come(
        &self,
        mut chains: Vec<Chain>,
        best: State,
        report: impl FnMut(f64) + Send,
    ) -> SearchRun {
        let count = chains.len();
        let reached = AtomicBool::new(self.reached(&best));
        // The best, the chains' epochs so far, and the report of a better best.
        let shared = Mutex::new((best, 0, report));
        let kicks = chains
            .par_iter_mut()
            .enumerate()
            .map(|(index, chain)| {
                let mut kicks = 0;
                while self.goes_on() && !reached.load(Ordering::Relaxed) {
                    kicks += chain.epoch(self);
                    // A chain that panicked while holding the lock left the best as it was
                    // (it is replaced only whole, by clone_from): go on with it.
                    let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
                    let (best, epochs, report) = &mut *guard;
                    *epochs += 1;
                    let better = chain.state.makespan() < best.makespan();
                    if better {
                        best.clone_from(&chain.state);
                        if self.reached(best) {
                            reached.store(true, Ordering::Relaxed);
                        }
                    } else if chain.behind(best) {
                        chain.state.clone_from(best);
                    }
                    // As often as in step: after each epoch of the first chain, and at
                    // once where the best improved.
                    if better || index == 0 {
                        report(best.makespan());
                    }
                }
                kicks
            })
            .sum();
        let (best, epochs, _) = shared.into_inner().unwrap_or_else(|e| e.into_inner());
        SearchRun {
            makespan: best.makespan(),
            assignment: best.assignment,
            epochs: usize::div_ceil(epochs, count),
            kicks,
        }
    }
}
