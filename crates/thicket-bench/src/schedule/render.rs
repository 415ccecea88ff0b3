//! The bench's tables (one per part that ran), the CSV and JSON of every row, and the chart.

use crate::chart::Series;
use crate::harness::{cell, Align, Rendered, Table};
use thicket_schedule::{Scratch, SWARM_PHASES};

use super::{Row, Trace};

/// A scratch's name in the tables.
pub(super) fn scratch_name(scratch: Scratch) -> String {
    match scratch {
        Scratch::Shared => "shared".into(),
        Scratch::Global => "global".into(),
    }
}

fn num(value: Option<f64>, digits: usize) -> String {
    cell(value.map(|v| format!("{v:.digits$}")))
}

/// The tables (one per part that ran), the CSV and JSON of every row, and the chart.
pub(super) fn render(rows: &[Row], traces: &[Trace]) -> Rendered {
    let mut markdown = String::new();
    let of = |table: &'static str| rows.iter().filter(move |r| r.table == table);
    for table in ["swarms", "machines", "tasks"] {
        if of(table).next().is_none() {
            continue;
        }
        markdown.push_str(&format!(
            "\n### The MSPSO against {table} (serial CPU vs GPU kernels)\n\n"
        ));
        let mut t = Table::new([
            ("matrix", Align::Left),
            ("swarms", Align::Right),
            ("backend", Align::Left),
            ("makespan", Align::Right),
            ("seconds", Align::Right),
            ("kernels s", Align::Right),
            ("speed-up", Align::Right),
            ("verified", Align::Left),
            ("note", Align::Left),
        ]);
        for r in of(table) {
            t.row(vec![
                r.matrix.clone(),
                cell(r.swarms),
                match &r.scratch {
                    Some(s) => format!("{} ({s})", r.backend),
                    None => r.backend.to_string(),
                },
                num(r.makespan, 3),
                num(r.seconds, 4),
                num(r.kernel_seconds, 4),
                num(r.speedup, 1),
                cell(r.verified),
                cell(r.note.clone()),
            ]);
        }
        markdown.push_str(&t.markdown());
    }
    if of("shares").next().is_some() {
        markdown.push_str("\n### Table 6.1: share of the GPU's time per phase (%)\n\n");
        let mut columns = vec![("matrix", Align::Left), ("scratch", Align::Left)];
        columns.extend(SWARM_PHASES.iter().map(|p| (*p, Align::Right)));
        columns.extend([("kernels s", Align::Right), ("note", Align::Left)]);
        let mut t = Table::new(columns);
        for r in of("shares") {
            let mut cells = vec![r.matrix.clone(), cell(r.scratch.clone())];
            for k in 0..SWARM_PHASES.len() {
                cells.push(num(r.shares.as_ref().map(|s| s[k]), 1));
            }
            cells.extend([num(r.kernel_seconds, 4), cell(r.note.clone())]);
            t.row(cells);
        }
        markdown.push_str(&t.markdown());
    }
    if of("quality").next().is_some() {
        markdown.push_str("\n### Table 6.2: makespan / FCFS (lower is better)\n\n");
        let mut t = Table::new([
            ("matrix", Align::Left),
            ("method", Align::Left),
            ("makespan", Align::Right),
            ("/ FCFS", Align::Right),
            ("thesis", Align::Right),
            ("seconds", Align::Right),
            ("verified", Align::Left),
        ]);
        for r in of("quality") {
            t.row(vec![
                r.matrix.clone(),
                r.method.clone(),
                num(r.makespan, 3),
                num(r.vs_fcfs, 3),
                num(r.thesis, 3),
                num(r.seconds, 3),
                cell(r.verified),
            ]);
        }
        markdown.push_str(&t.markdown());
    }
    if of("braun").next().is_some() {
        markdown.push_str("\n### Braun instances: gap to the best known\n\n");
        let mut t = Table::new([
            ("instance", Align::Left),
            ("method", Align::Left),
            ("backend", Align::Left),
            ("makespan", Align::Right),
            ("best known", Align::Right),
            ("gap %", Align::Right),
            ("lower bound", Align::Right),
            ("seconds", Align::Right),
            ("verified", Align::Left),
        ]);
        for r in of("braun") {
            t.row(vec![
                r.matrix.clone(),
                r.method.clone(),
                r.backend.to_string(),
                num(r.makespan, 1),
                num(r.best_known, 1),
                num(r.gap_percent, 2),
                num(r.lower_bound, 1),
                num(r.seconds, 3),
                r.note.clone().unwrap_or_else(|| cell(r.verified)),
            ]);
        }
        markdown.push_str(&t.markdown());
    }
    let mut csv = Table::new(
        [
            "table",
            "matrix",
            "tasks",
            "machines",
            "method",
            "backend",
            "swarms",
            "scratch",
            "makespan",
            "vs_fcfs",
            "thesis",
            "best_known",
            "gap_percent",
            "seconds",
            "kernel_seconds",
            "speedup",
            "verified",
            "note",
        ]
        .map(|c| (c, Align::Left)),
    );
    for r in rows {
        let f = |v: Option<f64>| cell(v);
        csv.row(vec![
            r.table.into(),
            r.matrix.clone(),
            r.tasks.to_string(),
            r.machines.to_string(),
            r.method.clone(),
            r.backend.into(),
            cell(r.swarms),
            cell(r.scratch.clone()),
            f(r.makespan),
            f(r.vs_fcfs),
            f(r.thesis),
            f(r.best_known),
            f(r.gap_percent),
            f(r.seconds),
            f(r.kernel_seconds),
            f(r.speedup),
            cell(r.verified),
            cell(r.note.clone()),
        ]);
    }
    Rendered {
        name: "schedule-bench",
        markdown,
        csv: csv.csv(),
        json: serde_json::json!({ "rows": rows, "traces": traces }),
        chart_title: "thicket's default on the Braun instances: gap to the best known \
                      against seconds"
            .into(),
        x_label: "seconds".into(),
        y_label: "gap to the best known (%)".into(),
        log_y: false,
        series: traces
            .iter()
            .map(|t| Series {
                name: t.matrix.clone(),
                points: t.points.clone(),
            })
            .collect(),
    }
}
