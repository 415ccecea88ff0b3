//! The terminal's view of a run's progress: a bar with ETA on stderr that appears only once
//! a run has lasted about a second, so quick runs print nothing extra, and never where stderr
//! is not a terminal (pipes, CI logs). Runs asked to be quiet get no view at all.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use thicket_core::{ProgressObserver, ProgressView};

/// How long a run must last before its bar is drawn.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Installs the terminal bar as the process's progress observer.
pub fn install() {
    thicket_core::observe_progress(Arc::new(TerminalBars {
        terminal: std::io::stderr().is_terminal(),
    }));
}

/// Makes a [`Bar`] for every run that is not quiet.
struct TerminalBars {
    terminal: bool,
}

impl ProgressObserver for TerminalBars {
    fn view(&self, label: &str, total: u64) -> Box<dyn ProgressView> {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {percent:>3}% ETA {eta_precise}",
        )
        .expect("the progress template is a valid constant");
        bar.set_style(style);
        bar.set_message(label.to_string());
        Box::new(Bar {
            bar,
            may_show: self.terminal,
            shown: AtomicBool::new(false),
            started: Instant::now(),
        })
    }
}

/// One run's bar.
struct Bar {
    bar: ProgressBar,
    may_show: bool,
    shown: AtomicBool,
    started: Instant,
}

impl Bar {
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
}

impl ProgressView for Bar {
    fn set_total(&self, total: u64) {
        self.bar.set_length(total);
    }

    fn set_position(&self, units: u64) {
        self.bar.set_position(units);
        self.show_when_due();
    }

    fn set_message(&self, message: &str) {
        self.bar.set_message(message.to_string());
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
