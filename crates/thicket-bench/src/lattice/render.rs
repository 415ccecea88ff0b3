//! The tables, CSV, JSON and charts of `thicket bench lookback`: the sweep's pivot tables
//! (time, speed-up, error) and every run, the books' table, the convergence table, and the
//! progress line of each case.

use crate::chart::Series;
use crate::harness::{cell, distinct, series_by, Align, Rendered, Table};

use super::{BookRow, ConvergenceRow, StepsRow};

/// The progress line of one case of the sweep.
pub(super) fn steps_line(row: &StepsRow) -> String {
    let time = row.time.map_or("-".to_owned(), |t| format!("{:.4} s", t));
    let speedup = row
        .speedup
        .map_or(String::new(), |s| format!(", {s:.1}x serial"));
    let note = row.note.as_deref().unwrap_or("");
    format!(
        "N = {:>7} {:<16} {time}{speedup} {note}",
        row.n,
        row.column()
    )
}

/// The progress line of one book.
pub(super) fn book_line(row: &BookRow) -> String {
    let rate = row
        .nodes_per_second
        .map_or("-".to_owned(), |r| format!("{r:.3e} nodes/s"));
    let note = row.note.as_deref().unwrap_or("");
    format!(
        "book {} ({} x {}) {} {}: {rate} {note}",
        row.book, row.options, row.steps, row.strategy, row.precision
    )
}

/// The tables, JSON and chart of the sweep and the books.
pub(super) fn render(rows: &[StepsRow], books: &[BookRow]) -> Rendered {
    Rendered {
        name: "lookback-bench",
        markdown: markdown(rows, books),
        csv: sweep_table(rows).csv(),
        json: serde_json::json!({ "rows": rows, "books": books }),
        chart_title: "American lookback put: time against N (GPU: kernel time)".into(),
        x_label: "N (lattice steps)".into(),
        y_label: "seconds (log scale)".into(),
        log_y: true,
        series: series_by(rows, StepsRow::column, |r| Some((r.n as f64, r.time?))),
    }
}

/// How a pivot table reads its cell from a row.
pub(super) type CellOf = fn(&StepsRow) -> Option<String>;

/// One pivot table of the sweep: a row per N, a column per series.
pub(super) fn pivot(rows: &[StepsRow], value: CellOf) -> Table {
    let columns = distinct(rows, StepsRow::column);
    let mut sizes = distinct(rows, |r| r.n);
    sizes.sort_unstable();
    let mut table = Table::new(
        std::iter::once(("N".to_owned(), Align::Right))
            .chain(columns.iter().map(|c| (c.clone(), Align::Right))),
    );
    for n in sizes {
        let mut cells = vec![n.to_string()];
        cells.extend(columns.iter().map(|column| {
            cell(
                rows.iter()
                    .find(|r| r.n == n && r.column() == *column)
                    .and_then(value),
            )
        }));
        table.row(cells);
    }
    table
}

/// Every row of the sweep.
pub(super) fn sweep_table(rows: &[StepsRow]) -> Table {
    let mut table = Table::new([
        ("N", Align::Right),
        ("strategy", Align::Left),
        ("threshold", Align::Right),
        ("precision", Align::Left),
        ("wall s", Align::Right),
        ("kernel s", Align::Right),
        ("speed-up", Align::Right),
        ("price", Align::Right),
        ("error vs f64", Align::Right),
        ("verified", Align::Left),
        ("note", Align::Left),
    ]);
    for r in rows {
        table.row(vec![
            r.n.to_string(),
            r.strategy.clone(),
            cell(r.threshold),
            r.precision.name().to_owned(),
            cell(r.seconds.map(|s| format!("{s:.6}"))),
            cell(r.kernel_seconds.map(|s| format!("{s:.6}"))),
            cell(r.speedup.map(|s| format!("{s:.1}"))),
            cell(r.price.map(|p| format!("{p:.10}"))),
            cell(r.error.map(|e| format!("{e:.2e}"))),
            cell(r.verified.map(|v| if v { "yes" } else { "NO" })),
            r.note.clone().unwrap_or_default(),
        ]);
    }
    table
}

/// The Markdown report: the sweep's pivot tables and every run, then the books.
pub(super) fn markdown(rows: &[StepsRow], books: &[BookRow]) -> String {
    let mut out = String::new();
    if !rows.is_empty() {
        let sections: [(&str, CellOf); 3] = [
            (
                "Time (s; GPU: kernel time, CPU: wall time; - = not run)",
                |r| r.time.map(|t| format!("{t:.4}")),
            ),
            ("Speed-up over serial in the same precision", |r| {
                r.speedup.map(|s| format!("{s:.1}x"))
            }),
            ("Error against the f64 lattice (relative)", |r| {
                r.error.map(|e| format!("{e:.1e}"))
            }),
        ];
        for (title, value) in sections {
            out.push_str(&format!("{title}:\n\n{}\n", pivot(rows, value).markdown()));
        }
        out.push_str(&format!("Every run:\n\n{}\n", sweep_table(rows).markdown()));
    }
    if !books.is_empty() {
        out.push_str(&format!(
            "Books (GPU rates from kernel time, CPU from wall time):\n\n{}",
            book_table(books).markdown()
        ));
    }
    out
}

/// Every book on every strategy and precision.
pub(super) fn book_table(books: &[BookRow]) -> Table {
    let mut table = Table::new([
        ("book", Align::Left),
        ("options x steps", Align::Right),
        ("strategy", Align::Left),
        ("precision", Align::Left),
        ("wall s", Align::Right),
        ("kernel ms", Align::Right),
        ("span ms", Align::Right),
        ("options/s", Align::Right),
        ("nodes/s", Align::Right),
        ("worst error", Align::Right),
        ("verified", Align::Left),
        ("note", Align::Left),
    ]);
    for b in books {
        table.row(vec![
            b.book.clone(),
            format!("{} x {}", b.options, b.steps),
            b.strategy.clone(),
            b.precision.name().to_owned(),
            cell(b.seconds.map(|s| format!("{s:.4}"))),
            cell(b.kernel_seconds.map(|s| format!("{:.3}", s * 1e3))),
            cell(b.span_seconds.map(|s| format!("{:.3}", s * 1e3))),
            cell(b.options_per_second.map(|v| format!("{v:.3e}"))),
            cell(b.nodes_per_second.map(|v| format!("{v:.3e}"))),
            cell(b.worst_error.map(|e| format!("{e:.1e}"))),
            cell(b.verified.map(|v| if v { "yes" } else { "NO" })),
            b.note.clone().unwrap_or_default(),
        ]);
    }
    table
}

/// The convergence table, JSON and chart (price against N, linear axis).
pub(super) fn render_convergence(rows: &[ConvergenceRow]) -> Rendered {
    let mut table = Table::new([
        ("N", Align::Right),
        ("American put", Align::Right),
        ("European put", Align::Right),
        ("closed form (GSG)", Align::Right),
        ("closed form - European", Align::Right),
        ("seconds", Align::Right),
    ]);
    for r in rows {
        table.row(vec![
            r.n.to_string(),
            format!("{:.8}", r.american),
            format!("{:.8}", r.european),
            format!("{:.8}", r.closed_form),
            format!("{:.2e}", r.gap),
            format!("{:.3}", r.seconds),
        ]);
    }
    let line = |name: &str, value: fn(&ConvergenceRow) -> f64| Series {
        name: name.to_owned(),
        points: rows.iter().map(|r| (r.n as f64, value(r))).collect(),
    };
    Rendered {
        name: "lookback-convergence",
        markdown: format!(
            "Lookback put (S = 50, T = 0.35, σ = 0.3, r = 0.1) against N; the European lattice \
             monitors the maximum at N + 1 dates and approaches the continuously monitored \
             closed form from below:\n\n{}",
            table.markdown()
        ),
        csv: table.csv(),
        json: serde_json::json!({ "rows": rows }),
        chart_title: "Lookback put: lattice price against N".into(),
        x_label: "N (lattice steps)".into(),
        y_label: "price".into(),
        log_y: false,
        series: vec![
            line("American put (lattice)", |r| r.american),
            line("European put (lattice)", |r| r.european),
            line("European put (Goldman-Sosin-Gatto)", |r| r.closed_form),
        ],
    }
}
