//! `thicket bench queens --strategies ...`: the papers' GPU kernels
//! (thicket_queens::strategies) beside thicket's own, every total checked.

use serde::Serialize;
use serde_json::json;
use thicket_core::{Error, Progress, Result};
use thicket_queens::gpu::{count_gpu, GpuOptions};
use thicket_queens::reference::known_counts;
use thicket_queens::strategies::{Strategy, StrategyRun, StrategyRunner};
use thicket_run::bench::{growth, predict_next as predict, Rendered};
use thicket_run::chart::Series;

use crate::cli::BenchQueensArgs;

/// One strategy at one board size in the benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    /// The strategy's name.
    pub strategy: &'static str,
    /// The paper and section it reproduces.
    pub source: &'static str,
    /// Board size.
    pub n: usize,
    /// `ok`, `capped` (not run: predicted too slow), or `failed`.
    pub status: &'static str,
    /// The total counted (by the last repeat).
    pub total: Option<u128>,
    /// Whether every repeat's total matched OEIS A000170.
    pub verified: bool,
    /// Fastest kernel time of the repeats, seconds.
    pub best_seconds: Option<f64>,
    /// Median kernel time, seconds.
    pub median_seconds: Option<f64>,
    /// Repeats run.
    pub repeats: usize,
    /// Jobs (subproblems) the host made.
    pub jobs: usize,
    /// Rows the host placed.
    pub host_depth: usize,
    /// Child launches the device runtime refused (dynamic parallelism only).
    pub refused_launches: u64,
    /// Best time of `naive` at this N over this one's.
    pub speedup_vs_naive: Option<f64>,
    /// Why it was capped or failed.
    pub note: String,
}

/// The first `failed` or `capped` row of a strategy decides its larger boards.
enum Next {
    Run,
    Capped(f64),
    Stop,
}

/// Runs `thicket bench queens --strategies ...`.
pub fn bench(args: &BenchQueensArgs, strategies: &[Strategy]) -> Result<()> {
    let mut sizes = args.n.0.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let params = args.paper.params(args.depth);
    let mut runner = StrategyRunner::open(args.device)?;
    let device = runner.device_name().to_owned();
    let mut rows: Vec<BenchRow> = Vec::new();
    for &strategy in strategies {
        let mut next = Next::Run;
        let mut history: Vec<f64> = Vec::new();
        for &n in &sizes {
            if let Next::Run = next {
                if let Some(predicted) = predict(&history) {
                    if predicted > args.max_seconds {
                        next = Next::Capped(predicted);
                    }
                }
            }
            let row = match next {
                Next::Run => {
                    let row = measure(&mut runner, strategy, n, &params, args, &device);
                    match row.best_seconds {
                        Some(best) if row.status == "ok" => history.push(best),
                        _ => next = Next::Stop,
                    }
                    row
                }
                Next::Capped(predicted) => {
                    let row = skipped(
                        strategy,
                        n,
                        "capped",
                        format!(
                            "predicted {predicted:.0} s > --max-seconds {}",
                            args.max_seconds
                        ),
                    );
                    next = Next::Capped(predicted * growth(&history));
                    row
                }
                Next::Stop => skipped(strategy, n, "failed", "a smaller board failed".into()),
            };
            eprintln!("  {}", progress_line(&row));
            rows.push(row);
            // Written after every row, so that a run stopped by a time limit keeps its results.
            save(args, &mut rows, &sizes, &device, strategies)?;
        }
    }
    if args.outputs.json {
        let text = serde_json::to_string_pretty(&json!({"device": device, "rows": rows}))
            .map_err(|e| Error::Verification(format!("cannot encode the results: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", markdown(&rows, &sizes, &device, args.repeat));
    }
    if rows
        .iter()
        .any(|r| r.status == "failed" || (r.status == "ok" && !r.verified))
    {
        return Err(Error::Verification(
            "a strategy failed or its count differs from OEIS".into(),
        ));
    }
    Ok(())
}

/// Fills in the speed-ups and writes the files asked for (table, CSV, JSON, chart).
fn save(
    args: &BenchQueensArgs,
    rows: &mut [BenchRow],
    sizes: &[usize],
    device: &str,
    strategies: &[Strategy],
) -> Result<()> {
    fill_speedups(rows);
    args.outputs.outputs().write(&Rendered {
        name: "queens-strategies",
        markdown: markdown(rows, sizes, device, args.repeat),
        csv: csv(rows),
        json: json!({"device": device, "rows": rows}),
        chart_title: format!("N-Queens kernels on {device}"),
        y_label: "kernel time (s, log scale)".into(),
        series: chart_series(rows, strategies),
    })
}

/// Runs `strategy` at `n` `--repeat` times.
fn measure(
    runner: &mut StrategyRunner,
    strategy: Strategy,
    n: usize,
    params: &thicket_queens::strategies::Params,
    args: &BenchQueensArgs,
    device: &str,
) -> BenchRow {
    let expected = known_counts(n).map(|(total, _)| total);
    let mut times = Vec::new();
    let mut row = skipped(strategy, n, "ok", String::new());
    row.verified = true;
    for _ in 0..args.repeat.max(1) {
        let outcome = if strategy == Strategy::Constellation {
            let options = GpuOptions {
                devices: Some(vec![args.device]),
                depth: None,
                threads: None,
            };
            count_gpu(n, &options, &Progress::hidden()).map(|gpu| StrategyRun {
                strategy,
                n,
                total: gpu.count.total,
                jobs: gpu.tasks,
                depth: gpu.depth,
                kernel_seconds: gpu.kernel_seconds,
                refused_launches: 0,
                device: device.to_owned(),
            })
        } else {
            runner.count(strategy, n, params)
        };
        match outcome {
            Ok(run) => {
                times.push(run.kernel_seconds);
                row.verified &= expected.is_none_or(|t| t == run.total);
                row.total = Some(run.total);
                row.jobs = run.jobs;
                row.host_depth = run.depth;
                row.refused_launches += run.refused_launches;
            }
            Err(error) => {
                row.status = "failed";
                row.verified = false;
                row.note = error.to_string();
                break;
            }
        }
    }
    times.sort_by(f64::total_cmp);
    if row.status == "ok" {
        row.best_seconds = times.first().copied();
        row.median_seconds = times.get(times.len() / 2).copied();
        row.repeats = times.len();
        if !row.verified {
            row.note = format!("total {:?} differs from OEIS {:?}", row.total, expected);
        }
    }
    row
}

fn skipped(strategy: Strategy, n: usize, status: &'static str, note: String) -> BenchRow {
    BenchRow {
        strategy: strategy.name(),
        source: strategy.source(),
        n,
        status,
        total: None,
        verified: false,
        best_seconds: None,
        median_seconds: None,
        repeats: 0,
        jobs: 0,
        host_depth: 0,
        refused_launches: 0,
        speedup_vs_naive: None,
        note,
    }
}

fn fill_speedups(rows: &mut [BenchRow]) {
    let naive: Vec<(usize, f64)> = rows
        .iter()
        .filter(|r| r.strategy == Strategy::Naive.name())
        .filter_map(|r| r.best_seconds.map(|t| (r.n, t)))
        .collect();
    for row in rows.iter_mut() {
        let reference = naive.iter().find(|(n, _)| *n == row.n).map(|(_, t)| *t);
        row.speedup_vs_naive = match (reference, row.best_seconds) {
            (Some(reference), Some(best)) if best > 0.0 => Some(reference / best),
            _ => None,
        };
    }
}

fn progress_line(row: &BenchRow) -> String {
    match row.best_seconds {
        Some(best) => format!(
            "{} n={} best {best:.4} s total {:?} {} refused launches {}",
            row.strategy,
            row.n,
            row.total.unwrap_or_default(),
            if row.verified { "ok" } else { "WRONG" },
            row.refused_launches
        ),
        None => format!("{} n={} {}: {}", row.strategy, row.n, row.status, row.note),
    }
}

/// The table in the papers' shape: a row per strategy, kernel seconds per N with the speed-up
/// over `naive` in brackets.
pub fn markdown(rows: &[BenchRow], sizes: &[usize], device: &str, repeats: usize) -> String {
    let mut out = format!(
        "Kernel time in seconds (best of {repeats}) on {device}, speed-up over `naive` in \
         brackets; every total checked against OEIS A000170.\n\n| strategy | reproduces |"
    );
    for n in sizes {
        out.push_str(&format!(" N = {n} |"));
    }
    out.push_str(" checked |\n|---|---|");
    out.push_str(&"---:|".repeat(sizes.len()));
    out.push_str("---|\n");
    let mut names: Vec<(&str, &str)> = Vec::new();
    for row in rows {
        if !names.iter().any(|(name, _)| *name == row.strategy) {
            names.push((row.strategy, row.source));
        }
    }
    for (name, source) in names {
        out.push_str(&format!("| `{name}` | {source} |"));
        let mine: Vec<&BenchRow> = rows.iter().filter(|r| r.strategy == name).collect();
        for n in sizes {
            let cell = match mine.iter().find(|r| r.n == *n) {
                Some(r) if r.status == "ok" => {
                    let time = r.best_seconds.unwrap_or_default();
                    let speedup = r
                        .speedup_vs_naive
                        .map(|s| format!(" ({s:.1}x)"))
                        .unwrap_or_default();
                    let wrong = if r.verified { "" } else { " WRONG" };
                    format!("{time:.3}{speedup}{wrong}")
                }
                Some(r) if r.status == "capped" => "capped".to_owned(),
                Some(_) => "failed".to_owned(),
                None => "-".to_owned(),
            };
            out.push_str(&format!(" {cell} |"));
        }
        let ran: Vec<&&BenchRow> = mine.iter().filter(|r| r.status == "ok").collect();
        let checked = if ran.is_empty() {
            "none".to_owned()
        } else if ran.iter().all(|r| r.verified) {
            let (lo, hi) = (ran[0].n, ran[ran.len() - 1].n);
            format!("N = {lo}..{hi} ok")
        } else {
            "MISMATCH".to_owned()
        };
        out.push_str(&format!(" {checked} |\n"));
    }
    let notes: Vec<String> = rows
        .iter()
        .filter(|r| !r.note.is_empty() || r.refused_launches > 0)
        .map(|r| {
            let refused = if r.refused_launches > 0 {
                format!(
                    "{} child launches refused by the device runtime and counted by their parents",
                    r.refused_launches
                )
            } else {
                String::new()
            };
            format!("- `{}` N = {}: {}{}", r.strategy, r.n, r.note, refused)
        })
        .collect();
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
        out.push('\n');
    }
    out
}

fn csv(rows: &[BenchRow]) -> String {
    let mut out = String::from(
        "strategy,source,n,status,total,verified,best_seconds,median_seconds,repeats,jobs,host_depth,refused_launches,speedup_vs_naive,note\n",
    );
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for r in rows {
        out.push_str(&format!(
            "{},\"{}\",{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n",
            r.strategy,
            r.source,
            r.n,
            r.status,
            r.total.map(|t| t.to_string()).unwrap_or_default(),
            r.verified,
            opt(r.best_seconds),
            opt(r.median_seconds),
            r.repeats,
            r.jobs,
            r.host_depth,
            r.refused_launches,
            opt(r.speedup_vs_naive),
            r.note.replace('"', "'")
        ));
    }
    out
}

fn chart_series(rows: &[BenchRow], strategies: &[Strategy]) -> Vec<Series> {
    strategies
        .iter()
        .map(|s| Series {
            name: s.name().to_owned(),
            points: rows
                .iter()
                .filter(|r| r.strategy == s.name() && r.status == "ok")
                .filter_map(|r| r.best_seconds.map(|t| (r.n as f64, t)))
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions_grow_with_the_measured_ratio() {
        assert_eq!(predict(&[]), None);
        assert_eq!(predict(&[2.0]), Some(20.0));
        assert_eq!(predict(&[1.0, 8.0]), Some(64.0));
        assert_eq!(growth(&[1.0, 1.0]), 2.0);
    }

    #[test]
    fn table_marks_capped_and_failed_cells() {
        let mut ok = skipped(Strategy::Naive, 15, "ok", String::new());
        ok.best_seconds = Some(2.0);
        ok.verified = true;
        let mut fast = skipped(Strategy::PoolGlobal, 15, "ok", String::new());
        fast.best_seconds = Some(0.5);
        fast.verified = true;
        let capped = skipped(Strategy::Dp1, 15, "capped", "predicted 99 s".into());
        let mut rows = vec![ok, fast, capped];
        fill_speedups(&mut rows);
        let table = markdown(&rows, &[15], "GPU", 1);
        assert!(
            table
                .contains("| `pool-global` | Zhang 2011, Table 8 | 0.500 (4.0x) | N = 15..15 ok |"),
            "{table}"
        );
        assert!(
            table.contains("| `dp1` | Plauth 2016, Sec. 3.1 | capped | none |"),
            "{table}"
        );
        assert!(csv(&rows).lines().count() == 4);
        assert_eq!(chart_series(&rows, &Strategy::ALL).len(), 2);
    }
}
