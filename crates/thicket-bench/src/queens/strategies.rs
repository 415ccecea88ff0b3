//! The papers' GPU kernels ([`Strategy`]) beside thicket's own constellation
//! counter, each run through the front door ([`thicket_queens::count`]), every total checked against OEIS A000170 (`thicket bench queens --strategies`).
//! A strategy's larger boards are skipped once its next run is predicted (from the growth of
//! its last two) to pass the cap, and after a failure.

use crate::harness::{
    series_by, AfterCase, AfterFailure, Align, Outcome, Plan, Rendered, Report, Sweep, Table,
};
use serde::Serialize;
use serde_json::json;
use thicket_core::{Backend, Error, Result, RunOptions};
use thicket_gpu::Gpu;
use thicket_queens::{known_counts, CountOptions, Counted, Params, Strategy};

/// What the strategies bench runs.
#[derive(Debug, Clone)]
pub struct StrategyBenchOptions {
    /// Board sizes.
    pub sizes: Vec<usize>,
    /// Strategies, in table order.
    pub strategies: Vec<Strategy>,
    /// The kernels' parameters.
    pub params: Params,
    /// Runs per configuration.
    pub repeat: usize,
    /// The cap on a predicted kernel time, seconds.
    pub max_seconds: f64,
    /// The GPU to run on.
    pub device: usize,
}

/// One strategy at one board size in the benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    /// The strategy's name.
    pub strategy: &'static str,
    /// The paper and section it reproduces.
    pub source: &'static str,
    /// Board size.
    pub n: usize,
    /// How the case ended.
    pub status: Status,
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
    /// Why it was capped, skipped, unavailable or failed.
    pub note: String,
}

/// How one strategy at one board size ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every repeat ran.
    Ok,
    /// Not run: predicted to pass the time cap.
    Capped,
    /// Not run: the board is too large for the strategy.
    Skipped,
    /// The GPU or what the strategy needs of it is not there.
    Unavailable,
    /// A run failed, or a smaller board did.
    Failed,
}

impl Status {
    /// The status as the table, CSV and JSON write it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Capped => "capped",
            Status::Skipped => "skipped",
            Status::Unavailable => "unavailable",
            Status::Failed => "failed",
        }
    }

    /// The status of a case that did not run to the end, and why.
    fn of<T>(outcome: Outcome<T>) -> (Status, String) {
        match outcome {
            Outcome::Ran(_) => (Status::Ok, String::new()),
            Outcome::Skipped(why) => (Status::Skipped, why),
            Outcome::Unavailable(why) => (Status::Unavailable, why),
            Outcome::Failed(why) => (Status::Failed, why),
        }
    }
}

/// What one run of a kernel measured.
struct KernelRun {
    total: u128,
    jobs: usize,
    depth: usize,
    kernel_seconds: f64,
    refused_launches: u64,
}

/// Runs every strategy over every size, calling `after_case` after each row.
pub fn bench(options: &StrategyBenchOptions, after_case: AfterCase) -> Result<Report> {
    let mut sizes = options.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    // No device is an error of the whole bench, not of every case.
    let device = Gpu::shared(options.device)
        .map_err(Error::from)?
        .info()
        .name
        .clone();
    let mut rows: Vec<BenchRow> = Vec::new();
    for &strategy in &options.strategies {
        let mut series = Sweep::new(options.max_seconds, AfterFailure::Stop);
        for &n in &sizes {
            let row = match series.plan(n, |_| None) {
                Plan::Run => measure(strategy, n, options),
                Plan::Skip(why) => skipped(strategy, n, Status::Capped, why),
                Plan::Stopped => {
                    skipped(strategy, n, Status::Failed, "a smaller board failed".into())
                }
            };
            if row.status != Status::Capped {
                series.record(n, row.best_seconds.filter(|_| row.status == Status::Ok));
            }
            let line = format!("  {}", progress_line(&row));
            rows.push(row);
            fill_speedups(&mut rows);
            after_case(&line, &render(&rows, &sizes, &device, options))?;
        }
    }
    let verdict = match rows
        .iter()
        .any(|r| r.status == Status::Failed || (r.status == Status::Ok && !r.verified))
    {
        true => Err(Error::Verification(
            "a strategy failed or its count differs from OEIS".into(),
        )),
        false => Ok(()),
    };
    Ok(Report {
        rendered: render(&rows, &sizes, &device, options),
        verdict,
    })
}

/// The table, CSV, JSON and chart of `rows`.
fn render(
    rows: &[BenchRow],
    sizes: &[usize],
    device: &str,
    options: &StrategyBenchOptions,
) -> Rendered {
    Rendered {
        name: "queens-strategies",
        markdown: markdown(rows, sizes, device, options.repeat),
        csv: csv(rows),
        json: json!({"device": device, "rows": rows}),
        chart_title: format!("N-Queens kernels on {device}"),
        x_label: "N".into(),
        y_label: "kernel time (s, log scale)".into(),
        log_y: true,
        series: series_by(
            rows,
            |r| r.strategy.to_owned(),
            |r| {
                Some((
                    r.n as f64,
                    r.best_seconds.filter(|_| r.status == Status::Ok)?,
                ))
            },
        ),
    }
}

/// Runs `strategy` at `n` `repeat` times.
fn measure(strategy: Strategy, n: usize, options: &StrategyBenchOptions) -> BenchRow {
    let expected = known_counts(n).map(|(total, _)| total);
    let mut times = Vec::new();
    let mut row = skipped(strategy, n, Status::Ok, String::new());
    row.verified = true;
    for _ in 0..options.repeat.max(1) {
        match Outcome::of(run_once(strategy, n, options)) {
            Outcome::Ran(run) => {
                times.push(run.kernel_seconds);
                row.verified &= expected.is_none_or(|t| t == run.total);
                row.total = Some(run.total);
                row.jobs = run.jobs;
                row.host_depth = run.depth;
                row.refused_launches += run.refused_launches;
            }
            other => {
                (row.status, row.note) = Status::of(other);
                row.verified = false;
                break;
            }
        }
    }
    times.sort_by(f64::total_cmp);
    if row.status == Status::Ok {
        row.best_seconds = times.first().copied();
        row.median_seconds = times.get(times.len() / 2).copied();
        row.repeats = times.len();
        if !row.verified {
            row.note = format!("total {:?} differs from OEIS {:?}", row.total, expected);
        }
    }
    row
}

/// One count of `strategy` at `n` on the bench's device, through the front door: thicket's
/// kernel with its own depth, a paper's with the bench's parameters.
fn run_once(strategy: Strategy, n: usize, options: &StrategyBenchOptions) -> Result<KernelRun> {
    let count_options = CountOptions {
        run: RunOptions {
            backend: Backend::Cuda,
            quiet: true,
            ..RunOptions::default()
        },
        devices: Some(vec![options.device]),
        depth: match strategy {
            Strategy::Constellation => None,
            _ => options.params.depth,
        },
        strategy,
        paper: options.params,
        ..CountOptions::default()
    };
    let Counted::Whole(measured) = thicket_queens::count(n, &count_options)? else {
        unreachable!("a count without batching is whole");
    };
    let run = measured.output;
    if let Some((_, paper)) = run.strategy {
        return Ok(KernelRun {
            total: paper.total,
            jobs: paper.jobs,
            depth: paper.depth,
            kernel_seconds: paper.kernel_seconds,
            refused_launches: paper.refused_launches,
        });
    }
    let gpu = run
        .gpu
        .ok_or_else(|| Error::Gpu("the count ran on no GPU".into()))?;
    Ok(KernelRun {
        total: gpu.count.total,
        jobs: gpu.tasks,
        depth: gpu.depth,
        kernel_seconds: gpu.kernel_seconds,
        refused_launches: 0,
    })
}

/// A row of `strategy` at `n` that has not run (yet).
fn skipped(strategy: Strategy, n: usize, status: Status, note: String) -> BenchRow {
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
        None => format!(
            "{} n={} {}: {}",
            row.strategy,
            row.n,
            row.status.name(),
            row.note
        ),
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
                Some(r) if r.status == Status::Ok => {
                    let time = r.best_seconds.unwrap_or_default();
                    let speedup = r
                        .speedup_vs_naive
                        .map(|s| format!(" ({s:.1}x)"))
                        .unwrap_or_default();
                    let wrong = if r.verified { "" } else { " WRONG" };
                    format!("{time:.3}{speedup}{wrong}")
                }
                Some(r) => r.status.name().to_owned(),
                None => "-".to_owned(),
            };
            out.push_str(&format!(" {cell} |"));
        }
        let ran: Vec<&&BenchRow> = mine.iter().filter(|r| r.status == Status::Ok).collect();
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

/// Every row as CSV (the column order is what scripts/gpu-check.sh reads).
fn csv(rows: &[BenchRow]) -> String {
    let columns = [
        "strategy",
        "source",
        "n",
        "status",
        "total",
        "verified",
        "best_seconds",
        "median_seconds",
        "repeats",
        "jobs",
        "host_depth",
        "refused_launches",
        "speedup_vs_naive",
        "note",
    ];
    let mut table = Table::new(columns.map(|c| (c, Align::Left)));
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for r in rows {
        table.row(vec![
            r.strategy.to_owned(),
            r.source.to_owned(),
            r.n.to_string(),
            r.status.name().to_owned(),
            r.total.map(|t| t.to_string()).unwrap_or_default(),
            r.verified.to_string(),
            opt(r.best_seconds),
            opt(r.median_seconds),
            r.repeats.to_string(),
            r.jobs.to_string(),
            r.host_depth.to_string(),
            r.refused_launches.to_string(),
            opt(r.speedup_vs_naive),
            r.note.clone(),
        ]);
    }
    table.csv()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_marks_capped_and_failed_cells() {
        let mut ok = skipped(Strategy::Naive, 15, Status::Ok, String::new());
        ok.best_seconds = Some(2.0);
        ok.verified = true;
        let mut fast = skipped(Strategy::PoolGlobal, 15, Status::Ok, String::new());
        fast.best_seconds = Some(0.5);
        fast.verified = true;
        let capped = skipped(Strategy::Dp1, 15, Status::Capped, "predicted 99 s".into());
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
        let options = StrategyBenchOptions {
            sizes: vec![15],
            strategies: Strategy::ALL.to_vec(),
            params: Params::default(),
            repeat: 1,
            max_seconds: 1.0,
            device: 0,
        };
        assert_eq!(render(&rows, &[15], "GPU", &options).series.len(), 2);
    }
}
