//! The benchmark harness shared by every solver: time a run several times, keep the best and
//! the median, and render the measurements as a Markdown table, CSV or JSON.

use std::time::Instant;

use serde::Serialize;

use std::path::Path;

use thicket_core::{Error, Result};

/// Writes a benchmark output file; an error names the file.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    }
    std::fs::write(path, contents).map_err(|e| Error::file(path, e))
}

/// One benchmarked configuration.
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

/// Runs `job` `repeats` times (at least once); `job` returns whether its answer was right.
pub fn measure(
    problem: &str,
    strategy: &str,
    n: usize,
    threads: usize,
    repeats: usize,
    mut job: impl FnMut() -> Result<bool>,
) -> Result<Measurement> {
    let mut times = Vec::with_capacity(repeats.max(1));
    let mut verified = true;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        verified &= job()?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(Measurement {
        problem: problem.to_string(),
        strategy: strategy.to_string(),
        n,
        threads,
        best_seconds: times[0],
        median_seconds: times[times.len() / 2],
        repeats: times.len(),
        verified,
    })
}

/// A Markdown table of the measurements, with each row's speed-up over the row of the same `n`
/// whose strategy is `reference` (if that row exists).
pub fn markdown_table(rows: &[Measurement], reference: &str) -> String {
    let mut out = String::from(
        "| problem | n | strategy | threads | best (s) | median (s) | repeats | speed-up vs reference | verified |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---|\n",
    );
    for row in rows {
        let speedup = rows
            .iter()
            .find(|r| r.n == row.n && r.problem == row.problem && r.strategy == reference)
            .map(|r| format!("{:.2}x", r.best_seconds / row.best_seconds))
            .unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.4} | {:.4} | {} | {} | {} |\n",
            row.problem,
            row.n,
            row.strategy,
            row.threads,
            row.best_seconds,
            row.median_seconds,
            row.repeats,
            speedup,
            if row.verified { "yes" } else { "NO" }
        ));
    }
    out
}

/// The measurements as CSV with a header line.
pub fn csv_table(rows: &[Measurement]) -> String {
    let mut out =
        String::from("problem,n,strategy,threads,best_seconds,median_seconds,repeats,verified\n");
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            r.problem,
            r.n,
            r.strategy,
            r.threads,
            r.best_seconds,
            r.median_seconds,
            r.repeats,
            r.verified
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let table = markdown_table(&rows, "baseline");
        assert!(table.contains("| 8.00x |"), "{table}");
        assert!(csv_table(&rows).lines().count() == 3);
    }
}
