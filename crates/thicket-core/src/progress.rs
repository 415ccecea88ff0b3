//! A progress bar with ETA on stderr that only appears once a run has lasted about a second,
//! so quick runs print nothing extra. It stays hidden with `--quiet` or when stderr is not a
//! terminal (pipes, CI logs).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run must last before its bar is drawn.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Thread-safe progress over a known number of work units.
pub struct Progress {
    bar: ProgressBar,
    may_show: bool,
    shown: AtomicBool,
    started: Instant,
}

impl Progress {
    /// A bar over `total` units labelled `label`; drawn only if `quiet` is false and stderr is a
    /// terminal.
    pub fn new(total: u64, label: &str, quiet: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {percent:>3}% ETA {eta_precise}",
        )
        .expect("the progress template is a valid constant");
        bar.set_style(style);
        bar.set_message(label.to_string());
        Progress {
            bar,
            may_show: !quiet && std::io::stderr().is_terminal(),
            shown: AtomicBool::new(false),
            started: Instant::now(),
        }
    }

    /// A progress that never draws anything (library callers, tests, benchmarks).
    pub fn hidden() -> Progress {
        Progress::new(0, "", true)
    }

    /// Records `units` more finished work units; draws the bar once the run is old enough.
    pub fn inc(&self, units: u64) {
        self.bar.inc(units);
        self.show_when_due();
    }

    /// Moves the bar forward to `units` finished work units (never back: reports that arrive
    /// out of order leave the furthest one); draws the bar once the run is old enough.
    pub fn advance_to(&self, units: u64) {
        if units > self.bar.position() {
            self.bar.set_position(units);
        }
        self.show_when_due();
    }

    /// Draws the bar from now on if it may be shown and the run has lasted long enough.
    fn show_when_due(&self) {
        if self.may_show
            && self.started.elapsed() >= SHOW_AFTER
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    /// Sets the number of units the run will finish (known only after set-up).
    pub fn set_total(&self, total: u64) {
        self.bar.set_length(total);
    }

    /// Replaces the label (e.g. with the best value found so far).
    pub fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Units finished so far.
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
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
