//! `thicket bench queens`: thicket's CPU counter at each thread count against the plain
//! mirror-symmetric bitboard backtracker (the reference row), every answer checked against
//! OEIS; with `--strategies`, the papers' GPU kernels ([`super::bench_strategies`]).

use serde_json::json;
use thicket_core::{Error, Progress, Result};
use thicket_queens::baseline::count_mirror;
use thicket_queens::count_cpu;
use thicket_queens::reference::known_counts;
use thicket_run::bench::{csv_table, markdown_table, measure, Measurement, Rendered};
use thicket_run::chart::Series;

use crate::cli::BenchQueensArgs;

/// Name of the reference row in the table.
const BASELINE: &str = "baseline-mirror";

/// Runs the benchmark, prints the table (or JSON) and writes the files asked for after every
/// row.
pub fn run(args: &BenchQueensArgs) -> Result<()> {
    if let Some(strategies) = &args.strategies {
        return super::bench_strategies::bench(args, &strategies.0);
    }
    let outputs = args.outputs.outputs();
    let mut rows: Vec<Measurement> = Vec::new();
    let keep = |rows: &mut Vec<Measurement>, row: Measurement| -> Result<()> {
        eprintln!("{}", progress_line(&row));
        rows.push(row);
        outputs.write(&render(rows))
    };
    for &n in &args.n.0 {
        let reference = known_counts(n);
        if !args.no_baseline {
            let row = measure("queens", BASELINE, n, 1, args.repeat, || {
                Ok(reference.is_none_or(|(total, _)| count_mirror(n) == total))
            })?;
            keep(&mut rows, row)?;
        }
        for &threads in &args.threads {
            let row = measure("queens", "cpu", n, threads, args.repeat, || {
                let count = count_cpu(n, threads, &Progress::hidden())?;
                Ok(reference.is_none_or(|known| known == (count.total, count.unique)))
            })?;
            keep(&mut rows, row)?;
        }
    }
    if args.outputs.json {
        let text = serde_json::to_string_pretty(&rows)
            .map_err(|e| Error::Verification(format!("cannot encode the results: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", markdown_table(&rows, BASELINE));
    }
    if rows.iter().any(|r| !r.verified) {
        return Err(Error::Verification(
            "a benchmarked count differs from OEIS".into(),
        ));
    }
    Ok(())
}

/// The tables, JSON and chart of `rows`.
fn render(rows: &[Measurement]) -> Rendered {
    let mut series: Vec<Series> = Vec::new();
    for row in rows {
        let name = format!("{} ({} threads)", row.strategy, row.threads);
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((row.n as f64, row.best_seconds)),
            None => series.push(Series {
                name,
                points: vec![(row.n as f64, row.best_seconds)],
            }),
        }
    }
    Rendered {
        name: "queens-bench",
        markdown: markdown_table(rows, BASELINE),
        csv: csv_table(rows),
        json: json!({ "rows": rows }),
        chart_title: "thicket queens (CPU) against the mirror baseline".into(),
        y_label: "seconds (best run, log scale)".into(),
        series,
    }
}

fn progress_line(r: &Measurement) -> String {
    format!(
        "  n={} {} threads={} best {:.3} s",
        r.n, r.strategy, r.threads, r.best_seconds
    )
}
