//! Progress of a run, reported to whoever watches it. Libraries never draw anything: a
//! [`Progress`] only counts, and passes what it counts to the [`ProgressObserver`] the
//! program installed ([`observe_progress`]); the `thicket` binary installs one that draws a
//! bar with ETA on stderr, and a library caller may install its own or none.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

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

/// Thread-safe progress over a number of work units.
pub struct Progress {
    position: AtomicU64,
    view: Option<Box<dyn ProgressView>>,
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
        }
    }

    /// Progress that nobody watches (tests, benchmarks, library calls).
    pub fn hidden() -> Progress {
        Progress {
            position: AtomicU64::new(0),
            view: None,
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
    fn advancing_never_goes_back() {
        let progress = Progress::new(100, "test", true);
        progress.advance_to(40);
        progress.advance_to(30);
        assert_eq!(progress.position(), 40);
        progress.advance_to(100);
        assert_eq!(progress.position(), 100);
    }
}
