//! The thesis's strategy table for perm-queens (Carneiro 2017, Tables 1 and 4): every strategy
//! over a range of N, each count checked against Table 1, as Markdown, CSV, JSON and a chart of
//! time against N (`thicket bench perm`).
//!
//! A strategy is skipped at an N where its time, extrapolated from its last time by the growth
//! of the tree (Table 1's node counts), would pass the cap; the row says so.

use crate::harness::{
    case_run, cell, distinct, repeat, series_by, timed, AfterCase, AfterFailure, Align, Outcome,
    Plan, Rendered, Report, Sweep, Table,
};
use serde::Serialize;
use thicket_core::{Error, Result};
use thicket_perm::{count_queens, perm_queens, GpuParams, PermOptions, PermQueensCount, Strategy};

/// What `thicket bench perm` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// Board sizes.
    pub sizes: Vec<usize>,
    /// Strategies, in table order.
    pub strategies: Vec<Strategy>,
    /// The cap on a GPU strategy's predicted time, seconds.
    pub max_seconds: f64,
    /// The cap for the CPU strategies.
    pub cpu_max_seconds: f64,
    /// Runs per configuration.
    pub repeat: usize,
    /// CPU threads for `multicore`.
    pub threads: usize,
    /// The d_cpu of each GPU run (a sweep); `None`: each strategy's default.
    pub d_cpu: Option<Vec<usize>>,
}

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
    /// Why the row was not run, or how it failed (`skipped: ...`, `unavailable: ...`,
    /// `failed: ...`).
    pub note: Option<String>,
    /// How the row ended.
    #[serde(skip)]
    pub outcome: Outcome<()>,
}

/// One timed run's outcome.
struct Timed {
    count: PermQueensCount,
    depths: Option<(usize, usize)>,
    device_seconds: Option<f64>,
}

/// Runs every strategy over every size, calling `after_case` after each row.
pub fn bench(options: &BenchOptions, after_case: AfterCase) -> Result<Report> {
    let mut sizes = options.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for &strategy in &options.strategies {
        let sweep: Vec<Option<usize>> = match (&options.d_cpu, strategy.is_gpu()) {
            (Some(depths), true) => depths.iter().copied().map(Some).collect(),
            _ => vec![None],
        };
        for &d_cpu in &sweep {
            let cap = match strategy.is_gpu() {
                true => options.max_seconds,
                false => options.cpu_max_seconds,
            };
            let mut series = Sweep::new(cap, AfterFailure::Continue);
            for &n in &sizes {
                let row = match series.plan(n, |n| perm_queens(n).map(|(nodes, _)| nodes as f64)) {
                    Plan::Run => bench_one(options, strategy, d_cpu, n),
                    Plan::Skip(why) => Row::new(strategy, d_cpu, n, options, Outcome::Skipped(why)),
                    Plan::Stopped => {
                        unreachable!("a sweep that continues after a failure never stops")
                    }
                };
                series.record(n, row.best_seconds);
                rows.push(row);
                after_case(
                    &progress_line(rows.last().expect("just pushed")),
                    &render(&rows, options),
                )?;
            }
        }
    }
    Ok(Report {
        rendered: render(&rows, options),
        verdict: verdict(&rows),
    })
}

/// A wrong count or a failed run is an error.
fn verdict(rows: &[Row]) -> Result<()> {
    if rows.iter().any(|r| r.verified == Some(false)) {
        return Err(Error::Verification(
            "a benchmarked count differs from Table 1".into(),
        ));
    }
    match rows.iter().find(|r| r.outcome.failed()) {
        Some(failed) => Err(Error::Gpu(format!(
            "{} at N = {}: {}",
            failed.strategy,
            failed.n,
            failed.note.as_deref().unwrap_or_default()
        ))),
        None => Ok(()),
    }
}

impl Row {
    /// A row not (yet) run, with how it ended.
    fn new(
        strategy: Strategy,
        d_cpu: Option<usize>,
        n: usize,
        options: &BenchOptions,
        outcome: Outcome<()>,
    ) -> Row {
        Row {
            n,
            strategy: strategy.name().to_owned(),
            d_cpu_asked: d_cpu,
            d_cpu: None,
            d_gpu: None,
            threads: if strategy == Strategy::Multicore {
                options.threads
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
            note: outcome.note(),
            outcome,
        }
    }

    /// The row's column in the pivot tables: the strategy, with the d_cpu asked in a sweep.
    fn column(&self) -> String {
        match self.d_cpu_asked {
            Some(d) => format!("{} d_cpu={d}", self.strategy),
            None => self.strategy.clone(),
        }
    }
}

/// Times `strategy` at `n`, or says why it could not.
fn bench_one(options: &BenchOptions, strategy: Strategy, d_cpu: Option<usize>, n: usize) -> Row {
    let runs = repeat(options.repeat, || {
        timed(|| time_one(strategy, d_cpu, n, options.threads))
    });
    let runs = match Outcome::of(runs) {
        Outcome::Ran(runs) => runs,
        Outcome::Skipped(why) => {
            return Row::new(strategy, d_cpu, n, options, Outcome::Skipped(why))
        }
        Outcome::Unavailable(why) => {
            return Row::new(strategy, d_cpu, n, options, Outcome::Unavailable(why))
        }
        Outcome::Failed(why) => return Row::new(strategy, d_cpu, n, options, Outcome::Failed(why)),
    };
    let mut row = Row::new(strategy, d_cpu, n, options, Outcome::Ran(()));
    let (seconds, best) = runs.best();
    row.best_seconds = Some(seconds);
    row.median_seconds = Some(runs.median_seconds());
    row.device_seconds = best.device_seconds;
    row.d_cpu = best.depths.map(|d| d.0);
    row.d_gpu = best.depths.map(|d| d.1);
    row.nodes = Some(best.count.nodes);
    row.solutions = Some(best.count.solutions);
    row.nodes_per_second = Some(best.count.nodes as f64 / seconds.max(1e-9));
    row.verified = perm_queens(n).map(|expected| {
        runs.outputs()
            .all(|r| (r.count.nodes, r.count.solutions) == expected)
    });
    row
}

/// One run of `strategy` at `n` through the front door, on its own backend.
fn time_one(strategy: Strategy, d_cpu: Option<usize>, n: usize, threads: usize) -> Result<Timed> {
    let options = PermOptions {
        run: case_run(strategy.is_gpu()),
        strategy: Some(strategy),
        threads,
        gpu: GpuParams {
            d_cpu,
            ..GpuParams::default()
        },
    };
    let run = count_queens(n, &options)?.output;
    Ok(Timed {
        count: run.count,
        depths: run.gpu.as_ref().map(|g| (g.depths.d_cpu, g.depths.d_gpu)),
        device_seconds: run.gpu.as_ref().map(|g| g.device_seconds),
    })
}

/// The tables, JSON and chart of `rows`.
fn render(rows: &[Row], options: &BenchOptions) -> Rendered {
    Rendered {
        name: "perm-bench",
        markdown: markdown(rows, options),
        csv: every_row(rows, false).csv(),
        json: serde_json::json!({ "rows": rows, "sweep": sweep_ratios(rows) }),
        chart_title: "perm-queens: time against N per strategy".into(),
        x_label: "N".into(),
        y_label: "seconds (best run, log scale)".into(),
        log_y: true,
        series: series_by(rows, Row::column, |r| Some((r.n as f64, r.best_seconds?))),
    }
}

/// The Markdown report: time and nodes/s per N and strategy, the sweep's spread, every row.
fn markdown(rows: &[Row], options: &BenchOptions) -> String {
    let mut out = String::new();
    let columns = distinct(rows, Row::column);
    let mut sizes = distinct(rows, |r| r.n);
    sizes.sort_unstable();
    type Value = fn(&Row) -> Option<String>;
    let tables: [(&str, Value); 2] = [
        ("Time (s, best run; - = not run)", |r| {
            r.best_seconds.map(|s| format!("{s:.3}"))
        }),
        ("Nodes per second", |r| {
            r.nodes_per_second.map(|v| format!("{v:.3e}"))
        }),
    ];
    for (title, value) in tables {
        let mut table = Table::new(
            [
                ("N".to_owned(), Align::Right),
                ("Table 1 nodes".to_owned(), Align::Right),
            ]
            .into_iter()
            .chain(columns.iter().map(|c| (c.clone(), Align::Right))),
        );
        for &n in &sizes {
            let mut cells = vec![n.to_string(), cell(perm_queens(n).map(|(nodes, _)| nodes))];
            cells.extend(columns.iter().map(|column| {
                cell(
                    rows.iter()
                        .find(|r| r.n == n && r.column() == *column)
                        .and_then(value),
                )
            }));
            table.row(cells);
        }
        out.push_str(&format!("{title}:\n\n{}\n", table.markdown()));
    }
    let sweep = sweep_ratios(rows);
    if !sweep.is_empty() {
        let mut table = Table::new([
            ("strategy", Align::Left),
            ("N", Align::Right),
            ("best d_cpu", Align::Right),
            ("best (s)", Align::Right),
            ("worst d_cpu", Align::Right),
            ("worst (s)", Align::Right),
            ("worst/best", Align::Right),
        ]);
        for s in &sweep {
            table.row(vec![
                s.strategy.clone(),
                s.n.to_string(),
                s.best_d_cpu.to_string(),
                format!("{:.3}", s.best_seconds),
                s.worst_d_cpu.to_string(),
                format!("{:.3}", s.worst_seconds),
                format!("{:.1}", s.ratio),
            ]);
        }
        out.push_str(&format!(
            "d_cpu sweep, worst/best time:\n\n{}\n",
            table.markdown()
        ));
    }
    out.push_str(&format!(
        "Every run ({} repeat(s); a run predicted to pass {} s, {} s for the CPU \
         strategies, is skipped):\n\n{}",
        options.repeat.max(1),
        thicket_core::number(options.max_seconds),
        thicket_core::number(options.cpu_max_seconds),
        every_row(rows, true).markdown()
    ));
    out
}

/// Every row: for Markdown (`-` for what is missing, the d_cpu asked where none was used) or
/// for CSV (blank cells).
fn every_row(rows: &[Row], markdown: bool) -> Table {
    let columns: [(&str, &str); 13] = [
        ("N", "n"),
        ("strategy", "strategy"),
        ("d_cpu", "d_cpu"),
        ("d_gpu", "d_gpu"),
        ("threads", "threads"),
        ("best (s)", "best_seconds"),
        ("median (s)", "median_seconds"),
        ("device (s)", "device_seconds"),
        ("nodes", "nodes"),
        ("solutions", "solutions"),
        ("nodes/s", "nodes_per_second"),
        ("verified", "verified"),
        ("note", "note"),
    ];
    let text = [1, 11, 12];
    let mut table = Table::new(columns.iter().enumerate().map(|(i, (md, csv))| {
        let align = if text.contains(&i) {
            Align::Left
        } else {
            Align::Right
        };
        (if markdown { *md } else { *csv }, align)
    }));
    let opt = |v: Option<String>| match markdown {
        true => cell(v),
        false => v.unwrap_or_default(),
    };
    let seconds = |v: Option<f64>| match markdown {
        true => v.map(|s| format!("{s:.3}")),
        false => v.map(|s| s.to_string()),
    };
    for r in rows {
        let d_cpu = if markdown {
            r.d_cpu.or(r.d_cpu_asked)
        } else {
            r.d_cpu
        };
        table.row(vec![
            r.n.to_string(),
            r.strategy.clone(),
            opt(d_cpu.map(|d| d.to_string())),
            opt(r.d_gpu.map(|d| d.to_string())),
            r.threads.to_string(),
            opt(seconds(r.best_seconds)),
            opt(seconds(r.median_seconds)),
            opt(seconds(r.device_seconds)),
            opt(r.nodes.map(|v| v.to_string())),
            opt(r.solutions.map(|v| v.to_string())),
            opt(r.nodes_per_second.map(|v| match markdown {
                true => format!("{v:.3e}"),
                false => v.to_string(),
            })),
            match (markdown, r.verified) {
                (true, Some(true)) => "yes".into(),
                (true, Some(false)) => "NO".into(),
                (true, None) => "-".into(),
                (false, v) => v.map(|v| v.to_string()).unwrap_or_default(),
            },
            r.note.clone().unwrap_or_default(),
        ]);
    }
    table
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
    let swept: Vec<&Row> = rows.iter().filter(|r| r.d_cpu_asked.is_some()).collect();
    let mut spreads = Vec::new();
    for (strategy, n) in distinct(&swept, |r| (r.strategy.clone(), r.n)) {
        let timed: Vec<(usize, f64)> = swept
            .iter()
            .filter(|r| r.strategy == strategy && r.n == n)
            .filter_map(|r| Some((r.d_cpu_asked?, r.best_seconds?)))
            .collect();
        let best = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1)).copied();
        let worst = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied();
        if let (true, Some(best), Some(worst)) = (timed.len() >= 2, best, worst) {
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

/// The line printed after each row.
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

    fn options() -> BenchOptions {
        BenchOptions {
            sizes: vec![8, 9],
            strategies: vec![Strategy::Serial, Strategy::Multicore],
            max_seconds: 60.0,
            cpu_max_seconds: 60.0,
            repeat: 2,
            threads: 2,
            d_cpu: None,
        }
    }

    fn row(n: usize, d_cpu: Option<usize>, seconds: Option<f64>) -> Row {
        let mut row = Row::new(Strategy::BpDfs, d_cpu, n, &options(), Outcome::Ran(()));
        row.d_cpu = d_cpu;
        row.best_seconds = seconds;
        row
    }

    #[test]
    fn sweeps_report_worst_over_best() {
        let rows = vec![
            row(17, Some(3), Some(58.0)),
            row(17, Some(4), Some(2.0)),
            row(17, Some(5), Some(1.0)),
            row(17, Some(6), None),
        ];
        let spreads = sweep_ratios(&rows);
        assert_eq!(spreads.len(), 1);
        assert_eq!((spreads[0].best_d_cpu, spreads[0].worst_d_cpu), (5, 3));
        assert!((spreads[0].ratio - 58.0).abs() < 1e-9);
        assert_eq!(distinct(&rows, Row::column).len(), 4);
    }

    #[test]
    fn the_cpu_strategies_bench_and_check_table_one() {
        let mut lines = 0;
        let report = bench(&options(), &mut |_, _| {
            lines += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(lines, 4);
        assert!(report.verdict.is_ok());
        let markdown = &report.rendered.markdown;
        assert!(
            markdown.contains("| N | Table 1 nodes | serial | multicore |"),
            "{markdown}"
        );
        assert!(markdown.contains("| 9 | 8393 |"), "{markdown}");
        assert_eq!(report.rendered.csv.lines().count(), 5);
        assert_eq!(report.rendered.series.len(), 2);
    }
}
