//! The tables, JSON and chart of `thicket bench bfs`.

use crate::harness::{cell, distinct, series_by, Align, Rendered, Table};

use thicket_graph::Strategy;

use super::{BenchRow, BfsBenchOptions, Experiment};

/// The progress line of one row.
pub(super) fn case_line(row: &BenchRow) -> String {
    let time = row
        .mean_seconds
        .map_or("-".to_owned(), |t| format!("{:.3} ms", t * 1e3));
    let speedup = row
        .speedup
        .map_or(String::new(), |s| format!(", {s:.1}x serial"));
    let rate = row
        .gteps
        .map_or(String::new(), |g| format!(", {g:.3} GTEPS"));
    format!(
        "{:<22} {:<16} {time} per search{speedup}{rate} {}",
        row.graph,
        row.strategy,
        row.note.as_deref().unwrap_or("")
    )
}

/// Milliseconds with three significant digits or so.
fn ms(seconds: f64) -> String {
    let ms = seconds * 1e3;
    match ms {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 10.0 => format!("{m:.1}"),
        m if m >= 1.0 => format!("{m:.2}"),
        m => format!("{m:.3}"),
    }
}

/// The mean of the present values.
fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let present: Vec<f64> = values.flatten().collect();
    (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64)
}

/// The rows of one size and strategy (several graphs in the thesis's experiment).
fn group<'a>(rows: &'a [BenchRow], size: u64, strategy: &str) -> Vec<&'a BenchRow> {
    rows.iter()
        .filter(|r| r.size == size && r.strategy == strategy)
        .collect()
}

/// The tables, JSON and chart.
pub(super) fn render(options: &BfsBenchOptions, rows: &[BenchRow]) -> Rendered {
    let thesis = options.experiment == Experiment::Thesis;
    let strategies = distinct(rows, |r| r.strategy.clone());
    let x = |r: &BenchRow| match (thesis, r.graph.starts_with("kron")) {
        (true, _) => Some(r.size as f64 / 1e6),
        (false, true) => Some(r.size as f64),
        (false, false) => None,
    };
    // One point per size and strategy: the mean over its graphs.
    let mut points: Vec<(String, f64, f64)> = Vec::new();
    for size in distinct(rows, |r| r.size) {
        for strategy in &strategies {
            let group = group(rows, size, strategy);
            if let (Some(first), Some(t)) =
                (group.first(), mean(group.iter().map(|r| r.mean_seconds)))
            {
                if let Some(x) = x(first) {
                    points.push((strategy.clone(), x, t * 1e3));
                }
            }
        }
    }
    let (name, title, x_label) = if thesis {
        (
            "bfs-thesis",
            format!(
                "BFS on Viger-Latapy graphs of mean degree {}",
                options.degree
            ),
            "millions of vertices",
        )
    } else {
        (
            "bfs-bench",
            format!(
                "Search on Kronecker graphs, edge factor {}",
                options.edge_factor
            ),
            "scale (log2 of the vertices)",
        )
    };
    Rendered {
        name,
        markdown: if thesis {
            thesis_markdown(rows, &strategies)
        } else {
            modern_markdown(rows, &strategies)
        },
        csv: every_run(rows).csv(),
        json: serde_json::json!({
            "experiment": if thesis { "thesis" } else { "modern" },
            "rows": rows,
        }),
        chart_title: title,
        x_label: x_label.into(),
        y_label: "ms per search (log scale)".into(),
        log_y: true,
        series: series_by(&points, |p| p.0.clone(), |p| Some((p.1, p.2))),
    }
}

/// The thesis's tables: time and speed-up per size, Table 4.1's split, every run.
fn thesis_markdown(rows: &[BenchRow], strategies: &[String]) -> String {
    let sizes = distinct(rows, |r| r.size);
    let mut summary = Table::new(
        [
            ("vertices".to_owned(), Align::Right),
            ("graphs".to_owned(), Align::Right),
        ]
        .into_iter()
        .chain(strategies.iter().map(|s| (s.clone(), Align::Right))),
    );
    let mut split = Table::new([
        ("vertices", Align::Right),
        ("thesis: BFS kernel (us)", Align::Right),
        ("thesis-active: BFS kernel (us)", Align::Right),
        ("scan + compaction (us)", Align::Right),
        ("total (us)", Align::Right),
    ]);
    for &size in &sizes {
        let graphs = distinct(
            &rows.iter().filter(|r| r.size == size).collect::<Vec<_>>(),
            |r| r.seed,
        )
        .len();
        let mut cells = vec![size.to_string(), graphs.to_string()];
        for strategy in strategies {
            let group = group(rows, size, strategy);
            let time = mean(group.iter().map(|r| r.mean_seconds));
            let speedup = mean(group.iter().map(|r| r.speedup));
            let best = group
                .iter()
                .filter_map(|r| r.speedup)
                .max_by(f64::total_cmp);
            cells.push(match (time, speedup, best) {
                (Some(t), Some(s), Some(b)) if strategy != Strategy::Serial.name() => {
                    format!("{} ms ({s:.1}x, max {b:.1}x)", ms(t))
                }
                (Some(t), _, _) => format!("{} ms", ms(t)),
                _ => "-".to_owned(),
            });
        }
        summary.row(cells);
        let thesis = mean(
            group(rows, size, Strategy::Thesis.name())
                .iter()
                .map(|r| r.mean_seconds),
        );
        let active = group(rows, size, Strategy::ThesisActive.name());
        let total = mean(active.iter().map(|r| r.mean_seconds));
        let scan = mean(active.iter().map(|r| r.scan_seconds));
        if thesis.is_some() || total.is_some() {
            let us = |v: Option<f64>| cell(v.map(|v| format!("{:.1}", v * 1e6)));
            split.row(vec![
                size.to_string(),
                us(thesis),
                us(total.zip(scan).map(|(t, s)| t - s)),
                us(scan),
                us(total),
            ]);
        }
    }
    format!(
        "Mean time per search over the graphs of each size (GPU: device time, CPU: wall time), \
         with the mean and largest speed-up over serial on the same graph:\n\n{}\n\
         Table 4.1's split (mean per search):\n\n{}\nEvery run:\n\n{}",
        summary.markdown(),
        split.markdown(),
        every_run(rows).markdown()
    )
}

/// The modern tables: time per search and both rates per graph and strategy, every run.
fn modern_markdown(rows: &[BenchRow], strategies: &[String]) -> String {
    let graphs = distinct(rows, |r| r.graph.clone());
    let columns = || {
        std::iter::once(("graph".to_owned(), Align::Left))
            .chain(strategies.iter().map(|s| (s.clone(), Align::Right)))
    };
    let mut time = Table::new(columns());
    let mut rate = Table::new(columns());
    for graph in &graphs {
        let row_of = |strategy: &String| {
            rows.iter()
                .find(|r| &r.graph == graph && &r.strategy == strategy)
        };
        let mut times = vec![graph.clone()];
        let mut rates = vec![graph.clone()];
        for strategy in strategies {
            let row = row_of(strategy);
            times.push(cell(row.and_then(|r| r.mean_seconds).map(ms)));
            rates.push(cell(row.and_then(|r| {
                Some(format!("{:.3} / {:.3}", r.gteps?, r.graph500_gteps?))
            })));
        }
        time.row(times);
        rate.row(rates);
    }
    format!(
        "Mean ms per search over the roots (GPU: device time, CPU: wall time):\n\n{}\n\
         GTEPS: arcs out of reached vertices / Graph500's undirected edges, per second:\n\n{}\n\
         Every run:\n\n{}",
        time.markdown(),
        rate.markdown(),
        every_run(rows).markdown()
    )
}

/// Every row.
fn every_run(rows: &[BenchRow]) -> Table {
    let mut table = Table::new([
        ("graph", Align::Left),
        ("vertices", Align::Right),
        ("arcs", Align::Right),
        ("strategy", Align::Left),
        ("roots", Align::Right),
        ("mean ms", Align::Right),
        ("min ms", Align::Right),
        ("max ms", Align::Right),
        ("scan ms", Align::Right),
        ("speed-up", Align::Right),
        ("GTEPS", Align::Right),
        ("Graph500 GTEPS", Align::Right),
        ("mean reached", Align::Right),
        ("max distance", Align::Right),
        ("GPU bytes", Align::Right),
        ("verified", Align::Left),
        ("note", Align::Left),
    ]);
    for r in rows {
        table.row(vec![
            r.graph.clone(),
            cell(r.vertices),
            cell(r.arcs),
            r.strategy.clone(),
            r.sources.to_string(),
            cell(r.mean_seconds.map(ms)),
            cell(r.min_seconds.map(ms)),
            cell(r.max_seconds.map(ms)),
            cell(r.scan_seconds.map(ms)),
            cell(r.speedup.map(|s| format!("{s:.1}"))),
            cell(r.gteps.map(|g| format!("{g:.4}"))),
            cell(r.graph500_gteps.map(|g| format!("{g:.4}"))),
            cell(r.mean_reached.map(|m| format!("{m:.0}"))),
            cell(r.max_distance),
            cell(r.gpu_bytes),
            cell(r.verified.map(|v| if v { "yes" } else { "NO" })),
            r.note.clone().unwrap_or_default(),
        ]);
    }
    table
}
