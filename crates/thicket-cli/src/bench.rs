//! `thicket bench queens`: thicket's CPU counter at each thread count against the plain
//! mirror-symmetric bitboard backtracker, every answer checked against OEIS.

use thicket_core::{Error, Progress, Result};
use thicket_queens::baseline::count_mirror;
use thicket_queens::count_cpu;
use thicket_queens::reference::known_counts;
use thicket_run::bench::{markdown_table, measure, Measurement};

use crate::cli::BenchQueensArgs;

/// Name of the reference row in the table.
const BASELINE: &str = "baseline-mirror";

/// Runs the benchmark and prints (and optionally writes) the table.
pub fn run_queens(args: &BenchQueensArgs) -> Result<()> {
    if let Some(strategies) = &args.strategies {
        return crate::bench_strategies::bench(args, &strategies.0);
    }
    let mut rows: Vec<Measurement> = Vec::new();
    for &n in &args.n.0 {
        let reference = known_counts(n);
        if !args.no_baseline {
            rows.push(measure("queens", BASELINE, n, 1, args.repeat, || {
                Ok(reference.is_none_or(|(total, _)| count_mirror(n) == total))
            })?);
            eprintln!("{}", progress_line(rows.last()));
        }
        for &threads in &args.threads {
            rows.push(measure("queens", "cpu", n, threads, args.repeat, || {
                let count = count_cpu(n, threads, &Progress::hidden())?;
                Ok(reference.is_none_or(|known| known == (count.total, count.unique)))
            })?);
            eprintln!("{}", progress_line(rows.last()));
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&rows)
            .map_err(|e| Error::Verification(format!("cannot encode the results: {e}")))?;
        println!("{text}");
    } else {
        let table = markdown_table(&rows, BASELINE);
        print!("{table}");
        if let Some(path) = &args.out {
            thicket_run::bench::write_file(path, &table)?;
        }
    }
    if rows.iter().any(|r| !r.verified) {
        return Err(Error::Verification(
            "a benchmarked count differs from OEIS".into(),
        ));
    }
    Ok(())
}

fn progress_line(row: Option<&Measurement>) -> String {
    row.map(|r| {
        format!(
            "  n={} {} threads={} best {:.3} s",
            r.n, r.strategy, r.threads, r.best_seconds
        )
    })
    .unwrap_or_default()
}
