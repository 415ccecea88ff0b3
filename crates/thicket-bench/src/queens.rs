//! `thicket bench queens`: thicket's CPU counter at each thread count against the plain
//! mirror-symmetric bitboard backtracker (the reference row), every answer checked against
//! OEIS; and the papers' GPU kernels beside thicket's own ([`strategies`]).

pub mod strategies;

use crate::harness::{
    measure, measurement_csv, measurement_table, series_by, AfterCase, Measurement, Rendered,
    Report,
};
use thicket_core::{Error, Progress, Result};
use thicket_queens::{count_cpu, count_mirror, known_counts};

/// Name of the reference row in the table.
const BASELINE: &str = "baseline-mirror";

/// What the CPU bench runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuBenchOptions {
    /// Board sizes, in order.
    pub sizes: Vec<usize>,
    /// Thread counts for thicket's counter.
    pub threads: Vec<usize>,
    /// Runs per configuration.
    pub repeat: usize,
    /// Whether to time the reference backtracker too.
    pub baseline: bool,
}

/// Times the CPU counter (and the baseline) at every size, calling `after_case` after each row.
pub fn bench_cpu(options: &CpuBenchOptions, after_case: AfterCase) -> Result<Report> {
    let mut rows: Vec<Measurement> = Vec::new();
    for &n in &options.sizes {
        let reference = known_counts(n);
        let baseline = options.baseline.then(|| {
            measure("queens", BASELINE, n, 1, options.repeat, || {
                Ok(reference.is_none_or(|(total, _)| count_mirror(n) == total))
            })
        });
        let counters = options.threads.iter().map(|&threads| {
            measure("queens", "cpu", n, threads, options.repeat, || {
                let count = count_cpu(n, threads, &Progress::hidden())?;
                Ok(reference.is_none_or(|known| known == (count.total, count.unique)))
            })
        });
        for row in baseline.into_iter().chain(counters) {
            let row = row?;
            let line = format!(
                "  n={} {} threads={} best {:.3} s",
                row.n, row.strategy, row.threads, row.best_seconds
            );
            rows.push(row);
            after_case(&line, &render(&rows))?;
        }
    }
    let verdict = match rows.iter().all(|r| r.verified) {
        true => Ok(()),
        false => Err(Error::Verification(
            "a benchmarked count differs from OEIS".into(),
        )),
    };
    Ok(Report {
        rendered: render(&rows),
        verdict,
    })
}

/// The tables, JSON and chart of `rows`.
fn render(rows: &[Measurement]) -> Rendered {
    Rendered {
        name: "queens-bench",
        markdown: measurement_table(rows, BASELINE).markdown(),
        csv: measurement_csv(rows),
        json: serde_json::json!({ "rows": rows }),
        chart_title: "thicket queens (CPU) against the mirror baseline".into(),
        x_label: "N".into(),
        y_label: "seconds (best run, log scale)".into(),
        log_y: true,
        series: series_by(
            rows,
            |r| format!("{} ({} threads)", r.strategy, r.threads),
            |r| Some((r.n as f64, r.best_seconds)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_bench_checks_every_count_against_the_baseline_row() {
        let options = CpuBenchOptions {
            sizes: vec![8, 9],
            threads: vec![1, 2],
            repeat: 2,
            baseline: true,
        };
        let mut lines = Vec::new();
        let report = bench_cpu(&options, &mut |line, _| {
            lines.push(line.to_owned());
            Ok(())
        })
        .unwrap();
        assert!(report.verdict.is_ok());
        assert_eq!(lines.len(), 6);
        assert!(lines[0].contains("baseline-mirror"), "{lines:?}");
        assert_eq!(report.rendered.csv.lines().count(), 7);
        assert_eq!(report.rendered.series.len(), 3);
    }
}
