//! The benchmark harness shared by every solver's `thicket bench`: run a case several times and
//! keep the best and the median ([`repeat`], [`measure`]), walk a series of growing sizes and
//! skip the sizes predicted to pass a time cap ([`Sweep`]), render the rows ([`Table`],
//! [`series_by`]) and write every output a bench is asked for after every case ([`Outputs`]).

mod output;
mod table;

use std::time::Instant;

use serde::Serialize;

use thicket_core::{Backend, Error, Result, RunOptions};

pub use output::{pretty_json, write_file, AfterCase, Outputs, Rendered, Report};
pub use table::{cell, distinct, series_by, Align, Table};

/// The growth of the time per size step seen so far: the ratio of the last two times, kept
/// between 2 and 50; 10 when fewer than two are known.
pub fn growth(history: &[f64]) -> f64 {
    match history {
        [.., a, b] if *a > 0.0 => (b / a).clamp(2.0, 50.0),
        _ => 10.0,
    }
}

/// The predicted time of the next, larger case of a series from its times so far (`None`
/// before the first).
pub fn predict_next(history: &[f64]) -> Option<f64> {
    history.last().map(|last| last * growth(history))
}

/// The run options of one bench case: one quiet trial on the strategy's own backend (`cuda`
/// for a GPU strategy, else `cpu`; a bench never lets `auto` move a case to the other).
pub fn case_run(on_gpu: bool) -> RunOptions {
    RunOptions {
        backend: if on_gpu { Backend::Cuda } else { Backend::Cpu },
        quiet: true,
        ..RunOptions::default()
    }
}

/// How one case of a bench ended: typed, so that a bench branches on what happened and never
/// on the words of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    /// The case ran and measured this.
    Ran(T),
    /// The case was not run on purpose: predicted past the time cap, or too large for the
    /// device or strategy ([`Error::TooLarge`]); the note says why.
    Skipped(String),
    /// The backend cannot run here (no GPU, no driver: [`Error::Unavailable`]).
    Unavailable(String),
    /// The case failed: a bench that meets one reports it and fails as a whole.
    Failed(String),
}

impl<T> Outcome<T> {
    /// The outcome of a case that ran into `error`: too large is skipped, unavailable is
    /// unavailable, anything else failed.
    pub fn from_error(error: Error) -> Outcome<T> {
        match error {
            Error::TooLarge(why) => Outcome::Skipped(why),
            Error::Unavailable(why) => Outcome::Unavailable(why),
            other => Outcome::Failed(other.to_string()),
        }
    }

    /// The outcome of `result`: what it measured, or [`Outcome::from_error`].
    pub fn of(result: Result<T>) -> Outcome<T> {
        result.map_or_else(Outcome::from_error, Outcome::Ran)
    }

    /// What a table cell or a row's note says of a case that did not run (`skipped: why`,
    /// `unavailable: why`, `failed: why`); `None` for a case that ran.
    pub fn note(&self) -> Option<String> {
        match self {
            Outcome::Ran(_) => None,
            Outcome::Skipped(why) => Some(format!("skipped: {why}")),
            Outcome::Unavailable(why) => Some(format!("unavailable: {why}")),
            Outcome::Failed(why) => Some(format!("failed: {why}")),
        }
    }

    /// Whether the case failed.
    pub fn failed(&self) -> bool {
        matches!(self, Outcome::Failed(_))
    }

    /// What the case measured, if it ran.
    pub fn ran(&self) -> Option<&T> {
        match self {
            Outcome::Ran(value) => Some(value),
            _ => None,
        }
    }
}

/// Whether a [`Sweep`] runs its next size.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Run it.
    Run,
    /// Predicted to pass the cap: the note says by how much.
    Skip(String),
    /// A smaller size failed and the sweep stops there.
    Stopped,
}

/// What a [`Sweep`] does after a failed size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// Try the larger sizes anyway (each fails on its own).
    Continue,
    /// Mark the larger sizes as not run.
    Stop,
}

/// One series of a bench (a strategy, a configuration) walked over growing sizes: a size whose
/// time, predicted from the last size that ran, would pass the cap is skipped.
///
/// The prediction scales the last time by the growth of the work where the bench knows it
/// (`work(n)`, e.g. a published node count), and by the growth measured so far otherwise.
#[derive(Debug, Clone)]
pub struct Sweep {
    cap: f64,
    after_failure: AfterFailure,
    times: Vec<(usize, f64)>,
    skipped_since: i32,
    failed: bool,
}

impl Sweep {
    /// A sweep that skips sizes predicted to take more than `cap` seconds.
    pub fn new(cap: f64, after_failure: AfterFailure) -> Sweep {
        Sweep {
            cap,
            after_failure,
            times: Vec::new(),
            skipped_since: 0,
            failed: false,
        }
    }

    /// Whether to run size `n`; `work(n)` is the work at `n` where known.
    pub fn plan(&mut self, n: usize, work: impl Fn(usize) -> Option<f64>) -> Plan {
        if self.failed && self.after_failure == AfterFailure::Stop {
            return Plan::Stopped;
        }
        let Some(&(last_n, last_seconds)) = self.times.last() else {
            return Plan::Run;
        };
        let predicted = match (work(n), work(last_n)) {
            (Some(now), Some(then)) if then > 0.0 => last_seconds * now / then,
            _ => {
                let seconds: Vec<f64> = self.times.iter().map(|t| t.1).collect();
                last_seconds * growth(&seconds).powi(self.skipped_since + 1)
            }
        };
        if predicted > self.cap {
            self.skipped_since += 1;
            return Plan::Skip(format!(
                "about {predicted:.1} s predicted, over the {} s cap",
                thicket_core::number(self.cap)
            ));
        }
        Plan::Run
    }

    /// Records the outcome of size `n`: its time, or `None` when it failed.
    pub fn record(&mut self, n: usize, seconds: Option<f64>) {
        match seconds {
            Some(seconds) => {
                self.times.push((n, seconds));
                self.skipped_since = 0;
            }
            None => self.failed = true,
        }
    }
}

/// The runs of one case, fastest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Runs<T> {
    runs: Vec<(f64, T)>,
}

impl<T> Runs<T> {
    /// The fastest run: its seconds and its output.
    pub fn best(&self) -> (f64, &T) {
        (self.runs[0].0, &self.runs[0].1)
    }

    /// The median time.
    pub fn median_seconds(&self) -> f64 {
        self.runs[self.runs.len() / 2].0
    }

    /// How many runs.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Always false: a case runs at least once.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Every run's output.
    pub fn outputs(&self) -> impl Iterator<Item = &T> {
        self.runs.iter().map(|r| &r.1)
    }
}

/// Runs `job` `repeats` times (at least once); `job` returns its time (wall or kernel time, as
/// the bench reports) and its output. The first error ends the case.
pub fn repeat<T>(repeats: usize, mut job: impl FnMut() -> Result<(f64, T)>) -> Result<Runs<T>> {
    let mut runs = Vec::with_capacity(repeats.max(1));
    for _ in 0..repeats.max(1) {
        runs.push(job()?);
    }
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(Runs { runs })
}

/// Runs `job` and returns its wall time with its output.
pub fn timed<T>(job: impl FnOnce() -> Result<T>) -> Result<(f64, T)> {
    let start = Instant::now();
    let output = job()?;
    Ok((start.elapsed().as_secs_f64(), output))
}

/// One benchmarked configuration of a bench that times a solver against a reference row.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Measurement {
    /// Problem family, e.g. `queens`.
    pub problem: String,
    /// The solver or strategy measured, e.g. `cpu` or `baseline-mirror`.
    pub strategy: String,
    /// Problem size.
    pub n: usize,
    /// CPU threads used.
    pub threads: usize,
    /// Fastest of the repeats, seconds.
    pub best_seconds: f64,
    /// Median of the repeats, seconds.
    pub median_seconds: f64,
    /// How many times it ran.
    pub repeats: usize,
    /// True when every repeat's answer matched the reference.
    pub verified: bool,
}

/// Runs `job` `repeats` times (at least once), timing each; `job` returns whether its answer
/// was right.
pub fn measure(
    problem: &str,
    strategy: &str,
    n: usize,
    threads: usize,
    repeats: usize,
    mut job: impl FnMut() -> Result<bool>,
) -> Result<Measurement> {
    let runs = repeat(repeats, || timed(&mut job))?;
    let verified = runs.outputs().all(|&right| right);
    Ok(Measurement {
        problem: problem.to_string(),
        strategy: strategy.to_string(),
        n,
        threads,
        best_seconds: runs.best().0,
        median_seconds: runs.median_seconds(),
        repeats: runs.len(),
        verified,
    })
}

/// The measurements as a table, with each row's speed-up over the row of the same `n` whose
/// strategy is `reference` (if that row exists).
pub fn measurement_table(rows: &[Measurement], reference: &str) -> Table {
    let mut table = Table::new([
        ("problem", Align::Left),
        ("n", Align::Right),
        ("strategy", Align::Left),
        ("threads", Align::Right),
        ("best (s)", Align::Right),
        ("median (s)", Align::Right),
        ("repeats", Align::Right),
        ("speed-up vs reference", Align::Right),
        ("verified", Align::Left),
    ]);
    for row in rows {
        let speedup = rows
            .iter()
            .find(|r| r.n == row.n && r.problem == row.problem && r.strategy == reference)
            .map(|r| format!("{:.2}x", r.best_seconds / row.best_seconds));
        table.row(vec![
            row.problem.clone(),
            row.n.to_string(),
            row.strategy.clone(),
            row.threads.to_string(),
            format!("{:.4}", row.best_seconds),
            format!("{:.4}", row.median_seconds),
            row.repeats.to_string(),
            cell(speedup),
            if row.verified { "yes" } else { "NO" }.into(),
        ]);
    }
    table
}

/// The measurements as CSV with a header line.
pub fn measurement_csv(rows: &[Measurement]) -> String {
    let mut table = Table::new(
        [
            "problem",
            "n",
            "strategy",
            "threads",
            "best_seconds",
            "median_seconds",
            "repeats",
            "verified",
        ]
        .map(|name| (name, Align::Left)),
    );
    for r in rows {
        table.row(vec![
            r.problem.clone(),
            r.n.to_string(),
            r.strategy.clone(),
            r.threads.to_string(),
            r.best_seconds.to_string(),
            r.median_seconds.to_string(),
            r.repeats.to_string(),
            r.verified.to_string(),
        ]);
    }
    table.csv()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_come_from_typed_errors_not_from_their_words() {
        let too_large = Outcome::<f64>::from_error(Error::TooLarge("a graph of 9 GiB".into()));
        assert_eq!(too_large.note().unwrap(), "skipped: a graph of 9 GiB");
        // A GPU failure whose words say "does not fit" is still a failure.
        let failed = Outcome::<f64>::of(Err(Error::Gpu("fast_bfs does not fit on an SM".into())));
        assert!(failed.failed());
        let none = Outcome::<f64>::of(Err(Error::Unavailable("no driver".into())));
        assert_eq!(none, Outcome::Unavailable("no driver".into()));
        assert_eq!(Outcome::of(Ok(1.5)).ran(), Some(&1.5));
    }

    #[test]
    fn measure_keeps_best_and_median_and_verification() {
        let mut calls = 0;
        let m = measure("queens", "cpu", 8, 1, 3, || {
            calls += 1;
            Ok(calls != 2)
        })
        .unwrap();
        assert_eq!(m.repeats, 3);
        assert!(m.best_seconds <= m.median_seconds);
        assert!(!m.verified);
    }

    #[test]
    fn the_next_case_is_predicted_from_the_growth_so_far() {
        assert_eq!(predict_next(&[]), None);
        assert_eq!(predict_next(&[2.0]), Some(20.0));
        assert_eq!(predict_next(&[1.0, 8.0]), Some(64.0));
        assert_eq!(predict_next(&[1.0, 100.0]), Some(5000.0));
    }

    #[test]
    fn a_sweep_skips_what_would_pass_the_cap_and_stops_after_a_failure() {
        let unknown = |_: usize| None;
        let mut sweep = Sweep::new(30.0, AfterFailure::Stop);
        assert_eq!(sweep.plan(10, unknown), Plan::Run);
        sweep.record(10, Some(1.0));
        assert_eq!(sweep.plan(11, unknown), Plan::Run);
        sweep.record(11, Some(4.0));
        // 4 s x 4 = 16 s runs; then 16 x 4 = 64 s is over the cap, and 256 s after it.
        assert_eq!(sweep.plan(12, unknown), Plan::Run);
        sweep.record(12, Some(16.0));
        assert!(matches!(sweep.plan(13, unknown), Plan::Skip(note) if note.contains("64.0 s")));
        assert!(matches!(sweep.plan(14, unknown), Plan::Skip(note) if note.contains("256.0 s")));
        sweep.record(15, None);
        assert_eq!(sweep.plan(16, unknown), Plan::Stopped);
    }

    #[test]
    fn a_known_work_count_predicts_better_than_the_growth() {
        let work = |n: usize| Some(10f64.powi(n as i32));
        let mut sweep = Sweep::new(50.0, AfterFailure::Continue);
        sweep.record(3, Some(1.0));
        assert!(matches!(sweep.plan(5, work), Plan::Skip(note) if note.contains("100.0 s")));
        sweep.record(4, None);
        assert_eq!(sweep.plan(4, work), Plan::Run);
    }

    #[test]
    fn table_shows_speedup_against_the_reference_row() {
        let row = |strategy: &str, secs: f64| Measurement {
            problem: "queens".into(),
            strategy: strategy.into(),
            n: 16,
            threads: 1,
            best_seconds: secs,
            median_seconds: secs,
            repeats: 1,
            verified: true,
        };
        let rows = [row("baseline", 4.0), row("cpu", 0.5)];
        let table = measurement_table(&rows, "baseline").markdown();
        assert!(table.contains("| 8.00x |"), "{table}");
        assert!(measurement_csv(&rows).lines().count() == 3);
    }
}
