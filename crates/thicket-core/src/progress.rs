//! Progress of a run, reported to whoever watches it. Libraries never draw anything: a
//! [`Progress`] only counts, and passes what it counts to the [`ProgressObserver`] the
//! program installed ([`observe_progress`]); the `thicket` binary installs one that draws a
//! bar with ETA on stderr, and a library caller may install its own or none.
//!
//! A caller may also ask a run to stop: a run started inside [`stoppable`] carries its
//! [`StopFlag`] in its [`Progress`], solvers look at it where they report progress (between
//! batches, tasks or launches, [`Progress::stop_requested`]) and skip the work left, and
//! [`crate::benchmark_kernel`] turns a stopped run into [`Error::Interrupted`]. The flag
//! belongs to the thread that starts the run, not to the process, so that one caller's
//! Ctrl-C stops its own run and no other.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::{Error, Result};

/// One run's progress as an observer shows it (a terminal bar, a log line, a callback).
pub trait ProgressView: Send + Sync {
    /// The run will finish `total` units (0 while unknown).
    fn set_total(&self, total: u64);
    /// `units` units are finished.
    fn set_position(&self, units: u64);
    /// The run's label changed (e.g. to the best value found so far).
    fn set_message(&self, message: &str);
    /// The run has ended; the view should disappear.
    fn finish(&self);
}

/// What turns a run into a [`ProgressView`]: installed once per process by the program that
/// wants to show progress.
pub trait ProgressObserver: Send + Sync {
    /// A view of a new run labelled `label` over `total` units (0 while unknown).
    fn view(&self, label: &str, total: u64) -> Box<dyn ProgressView>;
}

/// The observer of this process, if one was installed.
static OBSERVER: OnceLock<Arc<dyn ProgressObserver>> = OnceLock::new();

/// Installs `observer` for every later run that is not quiet; the first call wins (a program
/// installs one at start). Returns whether this call installed it.
pub fn observe_progress(observer: Arc<dyn ProgressObserver>) -> bool {
    OBSERVER.set(observer).is_ok()
}

/// A request to stop, shared by the caller that raises it and the runs that watch it.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag not raised.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// Asks every run started under this flag to stop.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag was raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for searches that watch an `AtomicBool` of their own.
    pub fn as_atomic(&self) -> &AtomicBool {
        &self.0
    }
}

thread_local! {
    /// The flag of the [`stoppable`] call this thread is inside, if any.
    static CURRENT_STOP: RefCell<Option<StopFlag>> = const { RefCell::new(None) };
}

/// Runs `run` on this thread with `flag` as the stop request of every [`Progress`] it
/// creates (every run it starts), and restores the previous flag afterwards.
pub fn stoppable<T>(flag: &StopFlag, run: impl FnOnce() -> T) -> T {
    let previous = CURRENT_STOP.with(|current| current.replace(Some(flag.clone())));
    /// Puts the previous flag back even if `run` unwinds.
    struct Restore(Option<StopFlag>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT_STOP.with(|current| *current.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    run()
}

/// Whether the caller of the [`stoppable`] call this thread is inside has asked it to stop:
/// for a long loop on the caller's thread that has no [`Progress`] at hand (one lattice's
/// layers). A stopped loop may end early with any value; the [`crate::Kernel`] harness then
/// reports the run as [`crate::Error::Interrupted`].
pub fn stop_requested() -> bool {
    CURRENT_STOP.with(|current| current.borrow().as_ref().is_some_and(StopFlag::is_raised))
}

/// The flag of the [`stoppable`] call this thread is inside.
fn current_stop() -> Option<StopFlag> {
    CURRENT_STOP.with(|current| current.borrow().clone())
}

/// Thread-safe progress over a number of work units.
pub struct Progress {
    position: AtomicU64,
    view: Option<Box<dyn ProgressView>>,
    stop: Option<StopFlag>,
}

impl Progress {
    /// Progress over `total` units labelled `label`, shown by the installed observer unless
    /// `quiet`.
    pub fn new(total: u64, label: &str, quiet: bool) -> Progress {
        let view = match OBSERVER.get() {
            Some(observer) if !quiet => Some(observer.view(label, total)),
            _ => None,
        };
        Progress {
            position: AtomicU64::new(0),
            view,
            stop: current_stop(),
        }
    }

    /// Progress that nobody watches (tests, benchmarks, library calls).
    pub fn hidden() -> Progress {
        Progress {
            position: AtomicU64::new(0),
            view: None,
            stop: current_stop(),
        }
    }

    /// Whether the caller asked the run to stop ([`stoppable`]): a solver checks it between
    /// batches, tasks or launches and skips the work left (its partial answer is then
    /// discarded by [`crate::benchmark_kernel`]).
    pub fn stop_requested(&self) -> bool {
        self.stop.as_ref().is_some_and(StopFlag::is_raised)
    }

    /// The caller's stop request, for solvers whose workers watch a flag of their own.
    pub fn stop_flag(&self) -> Option<StopFlag> {
        self.stop.clone()
    }

    /// [`Error::Interrupted`] if the caller asked the run to stop, for solvers that can end
    /// early with `?`.
    pub fn check_stop(&self) -> Result<()> {
        if self.stop_requested() {
            Err(Error::Interrupted(
                "the run was stopped by its caller".into(),
            ))
        } else {
            Ok(())
        }
    }

    /// Records `units` more finished work units.
    pub fn inc(&self, units: u64) {
        let now = self.position.fetch_add(units, Ordering::Relaxed) + units;
        if let Some(view) = &self.view {
            view.set_position(now);
        }
    }

    /// Moves forward to `units` finished work units (never back: reports that arrive out of
    /// order leave the furthest one).
    pub fn advance_to(&self, units: u64) {
        let before = self.position.fetch_max(units, Ordering::Relaxed);
        if units > before {
            if let Some(view) = &self.view {
                view.set_position(units);
            }
        }
    }

    /// Sets the number of units the run will finish (known only after set-up).
    pub fn set_total(&self, total: u64) {
        if let Some(view) = &self.view {
            view.set_total(total);
        }
    }

    /// Replaces the label (e.g. with the best value found so far).
    pub fn set_message(&self, message: String) {
        if let Some(view) = &self.view {
            view.set_message(&message);
        }
    }

    /// Units finished so far.
    pub fn position(&self) -> u64 {
        self.position.load(Ordering::Relaxed)
    }

    /// Ends the run's view.
    pub fn finish(&self) {
        if let Some(view) = &self.view {
            view.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_units_from_many_threads() {
        let progress = Progress::new(1000, "test", true);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| (0..250).for_each(|_| progress.inc(1)));
            }
        });
        assert_eq!(progress.position(), 1000);
        progress.finish();
    }

    #[test]
    fn a_run_sees_only_the_flag_it_was_started_under() {
        let outside = Progress::hidden();
        let flag = StopFlag::new();
        let inside = stoppable(&flag, || Progress::new(10, "test", true));
        assert!(!inside.stop_requested() && inside.check_stop().is_ok());
        flag.raise();
        assert!(inside.stop_requested());
        assert!(matches!(inside.check_stop(), Err(Error::Interrupted(_))));
        assert!(!outside.stop_requested());
        assert!(
            !Progress::hidden().stop_requested(),
            "the flag ends with its call"
        );
    }

    #[test]
    fn advancing_never_goes_back() {
        let progress = Progress::new(100, "test", true);
        progress.advance_to(40);
        progress.advance_to(30);
        assert_eq!(progress.position(), 40);
        progress.advance_to(100);
        assert_eq!(progress.position(), 100);
    }
}
