//! `thicket bench perm`: the thesis's strategy table for perm-queens (Carneiro 2017, Tables
//! 1 and 4): every strategy over a range of N, each count checked against Table 1, as
//! Markdown, CSV, JSON and a chart of time against N.
//!
//! A strategy is skipped at an N where its time, extrapolated from its time at the N before by
//! the growth of the tree (Table 1's node counts), would pass `--max-seconds`; the row says so.

use std::fmt::Write as _;
use std::time::Instant;

use serde::Serialize;
use thicket_core::{Error, Progress, Result};
use thicket_perm::gpu::queens::count_gpu;
use thicket_perm::gpu::GpuParams;
use thicket_perm::queens::{count, PermQueensCount};
use thicket_perm::reference::perm_queens;
use thicket_perm::strategy::Strategy;
use thicket_run::bench::Rendered;
use thicket_run::chart::Series;

use crate::cli::BenchPermArgs;
use thicket_perm::MULTICORE_D_CPU;

/// One strategy at one N (and, in a sweep, one d_cpu).
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Board size.
    pub n: usize,
    /// Strategy name.
    pub strategy: String,
    /// The d_cpu asked for (`None`: the strategy's default).
    pub d_cpu_asked: Option<usize>,
    /// The depths used (GPU strategies).
    pub d_cpu: Option<usize>,
    /// The intermediate depth used (GPU strategies).
    pub d_gpu: Option<usize>,
    /// CPU threads (multicore).
    pub threads: usize,
    /// Fastest run, seconds of the whole call (device set-up included).
    pub best_seconds: Option<f64>,
    /// Median run, seconds.
    pub median_seconds: Option<f64>,
    /// GPU strategies: seconds from the first copy to the GPU to the last result (best run).
    pub device_seconds: Option<f64>,
    /// Nodes counted.
    pub nodes: Option<u64>,
    /// Solutions counted.
    pub solutions: Option<u64>,
    /// Nodes per second of the best run.
    pub nodes_per_second: Option<f64>,
    /// Whether nodes and solutions equal Table 1 and OEIS (`None`: not tabulated).
    pub verified: Option<bool>,
    /// Why the row was not run, or how it failed.
    pub note: Option<String>,
}

/// One timed run's outcome.
struct Timed {
    seconds: f64,
    count: PermQueensCount,
    depths: Option<(usize, usize)>,
    device_seconds: Option<f64>,
}

/// Runs the benchmark, prints the Markdown and writes the files of `--out-dir`.
pub fn run(args: &BenchPermArgs) -> Result<()> {
    let threads = args
        .threads
        .map_or_else(thicket_core::available_threads, |t| t as usize);
    let mut sizes = args.n.0.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for &strategy in &args.strategies {
        let sweep: Vec<Option<usize>> = match (&args.d_cpu, strategy.is_gpu()) {
            (Some(depths), true) => depths.0.iter().copied().map(Some).collect(),
            _ => vec![None],
        };
        for &d_cpu in &sweep {
            let mut previous: Option<(usize, f64)> = None;
            for &n in &sizes {
                let row = bench_one(args, strategy, d_cpu, n, threads, previous);
                eprintln!("{}", progress_line(&row));
                rows.push(row.clone());
                // Written after every row, so that an interrupted run keeps what it measured.
                write_outputs(&rows, args)?;
                if let Some(seconds) = row.best_seconds {
                    previous = Some((n, seconds));
                }
            }
        }
    }
    if args.outputs.json {
        let text = serde_json::to_string_pretty(&render(&rows, args).json)
            .map_err(|e| Error::Verification(format!("cannot encode the results: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", render_markdown(&rows, args));
    }
    if rows.iter().any(|r| r.verified == Some(false)) {
        return Err(Error::Verification(
            "a benchmarked count differs from Table 1".into(),
        ));
    }
    if let Some(failed) = rows
        .iter()
        .find(|r| r.note.as_deref().is_some_and(|n| n.starts_with("failed")))
    {
        return Err(Error::Gpu(format!(
            "{} at N = {}: {}",
            failed.strategy,
            failed.n,
            failed.note.as_deref().unwrap_or_default()
        )));
    }
    Ok(())
}

/// Writes the files asked for (with `--out-dir`: perm-bench.md, .csv, .json and .svg).
fn write_outputs(rows: &[Row], args: &BenchPermArgs) -> Result<()> {
    args.outputs.outputs().write(&render(rows, args))
}

/// The tables, JSON and chart of `rows`.
fn render(rows: &[Row], args: &BenchPermArgs) -> Rendered {
    Rendered {
        name: "perm-bench",
        markdown: render_markdown(rows, args),
        csv: render_csv(rows),
        json: serde_json::json!({ "rows": rows, "sweep": sweep_ratios(rows) }),
        chart_title: "perm-queens: time against N per strategy".into(),
        y_label: "seconds (best run, log scale)".into(),
        series: chart_series(rows),
    }
}

/// Times `strategy` at `n`, or says why not.
fn bench_one(
    args: &BenchPermArgs,
    strategy: Strategy,
    d_cpu: Option<usize>,
    n: usize,
    threads: usize,
    previous: Option<(usize, f64)>,
) -> Row {
    let reference = perm_queens(n);
    let mut row = Row {
        n,
        strategy: strategy.name().to_owned(),
        d_cpu_asked: d_cpu,
        d_cpu: None,
        d_gpu: None,
        threads: if strategy == Strategy::Multicore {
            threads
        } else {
            1
        },
        best_seconds: None,
        median_seconds: None,
        device_seconds: None,
        nodes: None,
        solutions: None,
        nodes_per_second: None,
        verified: None,
        note: None,
    };
    let cap = match strategy.is_gpu() {
        true => args.max_seconds,
        false => args.cpu_max_seconds.unwrap_or(args.max_seconds),
    };
    if let Some(predicted) = predict(previous, n) {
        if predicted > cap {
            row.note = Some(format!(
                "skipped: about {predicted:.1} s predicted, over the {cap} s cap"
            ));
            return row;
        }
    }
    let mut runs = Vec::new();
    for _ in 0..args.repeat.max(1) {
        match time_one(strategy, d_cpu, n, threads) {
            Ok(timed) => runs.push(timed),
            Err(Error::Unavailable(why)) => {
                row.note = Some(format!("unavailable: {why}"));
                return row;
            }
            Err(error) => {
                row.note = Some(format!("failed: {error}"));
                return row;
            }
        }
    }
    runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let best = &runs[0];
    row.best_seconds = Some(best.seconds);
    row.median_seconds = Some(runs[runs.len() / 2].seconds);
    row.device_seconds = best.device_seconds;
    row.d_cpu = best.depths.map(|d| d.0);
    row.d_gpu = best.depths.map(|d| d.1);
    row.nodes = Some(best.count.nodes);
    row.solutions = Some(best.count.solutions);
    row.nodes_per_second = Some(best.count.nodes as f64 / best.seconds.max(1e-9));
    row.verified = reference.map(|expected| {
        runs.iter()
            .all(|r| (r.count.nodes, r.count.solutions) == expected)
    });
    row
}

/// One run of `strategy` at `n`.
fn time_one(strategy: Strategy, d_cpu: Option<usize>, n: usize, threads: usize) -> Result<Timed> {
    let started = Instant::now();
    let hidden = Progress::hidden();
    if strategy.is_gpu() {
        let params = GpuParams {
            d_cpu,
            ..GpuParams::default()
        };
        let (count, run) = count_gpu(n, strategy, &params, &hidden)?;
        return Ok(Timed {
            seconds: started.elapsed().as_secs_f64(),
            count,
            depths: Some((run.depths.d_cpu, run.depths.d_gpu)),
            device_seconds: Some(run.device_seconds),
        });
    }
    let d_cpu = d_cpu.unwrap_or(MULTICORE_D_CPU);
    let count = count(n, strategy, d_cpu, threads, &hidden)?;
    Ok(Timed {
        seconds: started.elapsed().as_secs_f64(),
        count,
        depths: None,
        device_seconds: None,
    })
}

/// The time at `n` extrapolated from the time at a smaller N by the growth of the tree.
fn predict(previous: Option<(usize, f64)>, n: usize) -> Option<f64> {
    let (m, seconds) = previous?;
    let growth = perm_queens(n)?.0 as f64 / perm_queens(m)?.0 as f64;
    Some(seconds * growth)
}

/// The Markdown report: time and nodes/s per N and strategy, the sweep's spread, every row.
fn render_markdown(rows: &[Row], args: &BenchPermArgs) -> String {
    let mut out = String::new();
    let columns = column_names(rows);
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for (title, value) in [
        ("Time (s, best run; - = not run)", 0usize),
        ("Nodes per second", 1usize),
    ] {
        let _ = writeln!(out, "{title}:\n");
        let _ = writeln!(out, "| N | Table 1 nodes | {} |", columns.join(" | "));
        let _ = writeln!(out, "|---:|---:|{}", "---:|".repeat(columns.len()));
        for &n in &sizes {
            let nodes = perm_queens(n).map_or("-".to_owned(), |(nodes, _)| nodes.to_string());
            let cells: Vec<String> = columns
                .iter()
                .map(|column| {
                    rows.iter()
                        .find(|r| r.n == n && column_name(r) == *column)
                        .and_then(|r| match value {
                            0 => r.best_seconds.map(|s| format!("{s:.3}")),
                            _ => r.nodes_per_second.map(|v| format!("{v:.3e}")),
                        })
                        .unwrap_or_else(|| "-".into())
                })
                .collect();
            let _ = writeln!(out, "| {n} | {nodes} | {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    let sweep = sweep_ratios(rows);
    if !sweep.is_empty() {
        let _ = writeln!(out, "d_cpu sweep, worst/best time:\n");
        let _ = writeln!(
            out,
            "| strategy | N | best d_cpu | best (s) | worst d_cpu | worst (s) | worst/best |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
        for s in &sweep {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.3} | {} | {:.3} | {:.1} |",
                s.strategy,
                s.n,
                s.best_d_cpu,
                s.best_seconds,
                s.worst_d_cpu,
                s.worst_seconds,
                s.ratio
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "Every run ({} repeat(s); a run predicted to pass {:.0} s, {:.0} s for the CPU \
         strategies, is skipped):\n",
        args.repeat.max(1),
        args.max_seconds,
        args.cpu_max_seconds.unwrap_or(args.max_seconds)
    );
    out.push_str("| N | strategy | d_cpu | d_gpu | threads | best (s) | median (s) | device (s) | nodes | solutions | nodes/s | verified | note |\n");
    out.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.n,
            r.strategy,
            opt(r.d_cpu.or(r.d_cpu_asked).map(|d| d.to_string())),
            opt(r.d_gpu.map(|d| d.to_string())),
            r.threads,
            opt(r.best_seconds.map(|s| format!("{s:.3}"))),
            opt(r.median_seconds.map(|s| format!("{s:.3}"))),
            opt(r.device_seconds.map(|s| format!("{s:.3}"))),
            opt(r.nodes.map(|v| v.to_string())),
            opt(r.solutions.map(|v| v.to_string())),
            opt(r.nodes_per_second.map(|v| format!("{v:.3e}"))),
            match r.verified {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "-",
            },
            r.note.as_deref().unwrap_or("")
        );
    }
    out
}

/// Every row as CSV with a header line.
fn render_csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "n,strategy,d_cpu,d_gpu,threads,best_seconds,median_seconds,device_seconds,nodes,solutions,nodes_per_second,verified,note\n",
    );
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},\"{}\"",
            r.n,
            r.strategy,
            opt(r.d_cpu.map(|d| d.to_string())),
            opt(r.d_gpu.map(|d| d.to_string())),
            r.threads,
            opt(r.best_seconds.map(|s| s.to_string())),
            opt(r.median_seconds.map(|s| s.to_string())),
            opt(r.device_seconds.map(|s| s.to_string())),
            opt(r.nodes.map(|v| v.to_string())),
            opt(r.solutions.map(|v| v.to_string())),
            opt(r.nodes_per_second.map(|v| v.to_string())),
            opt(r.verified.map(|v| v.to_string())),
            r.note.as_deref().unwrap_or("").replace('"', "'")
        );
    }
    out
}

/// A row's column in the pivot tables: the strategy, with the d_cpu asked in a sweep.
fn column_name(row: &Row) -> String {
    match row.d_cpu_asked {
        Some(d) => format!("{} d_cpu={d}", row.strategy),
        None => row.strategy.clone(),
    }
}

/// The pivot tables' columns, in the order the rows were run.
fn column_names(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for row in rows {
        let name = column_name(row);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The spread of a d_cpu sweep for one strategy at one N.
#[derive(Debug, Clone, Serialize)]
pub struct Spread {
    /// Strategy name.
    pub strategy: String,
    /// Board size.
    pub n: usize,
    /// The fastest d_cpu and its time.
    pub best_d_cpu: usize,
    /// Seconds at the fastest d_cpu.
    pub best_seconds: f64,
    /// The slowest d_cpu.
    pub worst_d_cpu: usize,
    /// Seconds at the slowest d_cpu.
    pub worst_seconds: f64,
    /// Worst over best (the thesis's 58x for BP-DFS on queens17 over d_cpu 3..7).
    pub ratio: f64,
}

/// The worst/best ratio of every strategy and N run at more than one d_cpu.
fn sweep_ratios(rows: &[Row]) -> Vec<Spread> {
    let mut spreads = Vec::new();
    let mut keys: Vec<(String, usize)> = rows
        .iter()
        .filter(|r| r.d_cpu_asked.is_some())
        .map(|r| (r.strategy.clone(), r.n))
        .collect();
    keys.dedup();
    for (strategy, n) in keys {
        let timed: Vec<(usize, f64)> = rows
            .iter()
            .filter(|r| r.strategy == strategy && r.n == n)
            .filter_map(|r| Some((r.d_cpu_asked?, r.best_seconds?)))
            .collect();
        if timed.len() < 2 {
            continue;
        }
        let best = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1)).copied();
        let worst = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied();
        if let (Some(best), Some(worst)) = (best, worst) {
            spreads.push(Spread {
                strategy,
                n,
                best_d_cpu: best.0,
                best_seconds: best.1,
                worst_d_cpu: worst.0,
                worst_seconds: worst.1,
                ratio: worst.1 / best.1.max(1e-9),
            });
        }
    }
    spreads
}

/// One chart line per column: best seconds against N.
fn chart_series(rows: &[Row]) -> Vec<Series> {
    column_names(rows)
        .into_iter()
        .map(|name| Series {
            points: rows
                .iter()
                .filter(|r| column_name(r) == name)
                .filter_map(|r| Some((r.n as f64, r.best_seconds?)))
                .collect(),
            name,
        })
        .collect()
}

fn progress_line(row: &Row) -> String {
    match (row.best_seconds, &row.note) {
        (Some(seconds), _) => format!(
            "  n={} {}{} best {:.3} s, {:.3e} nodes/s, verified {:?}",
            row.n,
            row.strategy,
            row.d_cpu.map(|d| format!(" d_cpu={d}")).unwrap_or_default(),
            seconds,
            row.nodes_per_second.unwrap_or(0.0),
            row.verified
        ),
        (None, note) => format!(
            "  n={} {}: {}",
            row.n,
            row.strategy,
            note.as_deref().unwrap_or("")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize, strategy: &str, d_cpu: Option<usize>, seconds: Option<f64>) -> Row {
        Row {
            n,
            strategy: strategy.into(),
            d_cpu_asked: d_cpu,
            d_cpu,
            d_gpu: d_cpu,
            threads: 1,
            best_seconds: seconds,
            median_seconds: seconds,
            device_seconds: None,
            nodes: None,
            solutions: None,
            nodes_per_second: None,
            verified: Some(true),
            note: None,
        }
    }

    #[test]
    fn the_prediction_grows_with_table_one() {
        let predicted = predict(Some((15, 1.0)), 16).unwrap();
        assert!((predicted - 1_141_190_302.0 / 171_129_071.0).abs() < 1e-9);
        assert_eq!(predict(None, 16), None);
        assert_eq!(predict(Some((18, 1.0)), 19), None);
    }

    #[test]
    fn sweeps_report_worst_over_best() {
        let rows = vec![
            row(17, "bp-dfs", Some(3), Some(58.0)),
            row(17, "bp-dfs", Some(4), Some(2.0)),
            row(17, "bp-dfs", Some(5), Some(1.0)),
            row(17, "bp-dfs", Some(6), None),
        ];
        let spreads = sweep_ratios(&rows);
        assert_eq!(spreads.len(), 1);
        assert_eq!((spreads[0].best_d_cpu, spreads[0].worst_d_cpu), (5, 3));
        assert!((spreads[0].ratio - 58.0).abs() < 1e-9);
        assert_eq!(column_names(&rows).len(), 4);
        assert_eq!(chart_series(&rows)[3].points.len(), 0);
    }
}
