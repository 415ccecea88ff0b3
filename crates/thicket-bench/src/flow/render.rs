//! The bench's table, CSV, JSON and chart: per strategy and size the wall, solve and device
//! times with their speed-ups over `mpm-serial`, each phase's speed-up (the thesis's Table
//! 5.3) and the host's steps.

use crate::harness::{cell, series_by, Align, Rendered, Table};
use serde_json::json;
use thicket_flow::Strategy;

use super::{BenchFamily, MaxflowBenchOptions};

/// One strategy at one size.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Row {
    pub(super) strategy: Strategy,
    pub(super) vertices: usize,
    /// The networks' mean vertex count (a modern family's differs from the requested one).
    pub(super) actual: f64,
    pub(super) arcs: Option<f64>,
    /// Mean wall seconds per graph (the front door's: residual graph, copies, solve, flows).
    pub(super) seconds: Option<f64>,
    /// Mean solve seconds per graph (residual graph in host memory to flows in host memory).
    pub(super) solve: Option<f64>,
    pub(super) phases: Vec<(&'static str, f64)>,
    /// Mean host seconds per graph by name (residual, upload, download, certificate).
    pub(super) host: Vec<(&'static str, f64)>,
    /// The GPU's one-time setup for this strategy (context, kernels, a warm-up solve).
    pub(super) setup: Option<f64>,
    pub(super) note: String,
}

/// Adds `seconds` to `name` in `sums`, in the order first met.
pub(super) fn accumulate(sums: &mut Vec<(&'static str, f64)>, name: &'static str, seconds: f64) {
    match sums.iter_mut().find(|(n, _)| *n == name) {
        Some((_, t)) => *t += seconds,
        None => sums.push((name, seconds)),
    }
}

pub(super) fn render(rows: &[Row], options: &MaxflowBenchOptions) -> Rendered {
    let mut table = Table::new([
        ("strategy", Align::Left),
        ("vertices", Align::Right),
        ("vertices (mean)", Align::Right),
        ("arcs (mean)", Align::Right),
        ("wall s per graph", Align::Right),
        ("× mpm-serial, wall", Align::Right),
        ("solve s per graph", Align::Right),
        ("× mpm-serial, solve", Align::Right),
        ("GPU device s", Align::Right),
        ("× mpm-serial, device", Align::Right),
        ("per phase × mpm-serial", Align::Left),
        ("phases, mean s", Align::Left),
        ("host, mean s", Align::Left),
        ("note", Align::Left),
    ]);
    let serial_row = |n: usize| {
        rows.iter()
            .find(|r| r.strategy == Strategy::MpmSerial && r.vertices == n)
    };
    let serial = |n: usize| serial_row(n).and_then(|r| r.seconds);
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(s), Some(t)) if t > 0.0 => Some(s / t),
        _ => None,
    };
    let mut json_rows = Vec::new();
    for r in rows {
        let speedup = ratio(serial(r.vertices), r.seconds);
        let solve_speedup = ratio(serial_row(r.vertices).and_then(|q| q.solve), r.solve);
        // A GPU row's device time (its phases' sum, without opening the device, compiling or
        // loading the kernels and copying the network) and the speed-up on it.
        let device = (r.strategy.is_gpu() && !r.phases.is_empty() && r.seconds.is_some())
            .then(|| r.phases.iter().map(|(_, s)| s).sum::<f64>());
        let device_speedup = match (serial(r.vertices), device) {
            (Some(s), Some(t)) if t > 0.0 => Some(s / t),
            _ => None,
        };
        // Table 5.3: each phase's speed-up over mpm-serial's time in the same phase.
        let serial_phases = rows
            .iter()
            .find(|q| q.strategy == Strategy::MpmSerial && q.vertices == r.vertices)
            .map(|q| q.phases.as_slice())
            .unwrap_or(&[]);
        let per_phase: Vec<(&'static str, f64)> = if device.is_some() {
            r.phases
                .iter()
                .filter_map(|&(name, gpu)| {
                    let (_, cpu) = serial_phases.iter().find(|(n, _)| *n == name)?;
                    (gpu > 0.0).then(|| (name, cpu / gpu))
                })
                .collect()
        } else {
            Vec::new()
        };
        let listed = |parts: &[(&'static str, f64)]| {
            parts
                .iter()
                .map(|(name, s)| format!("{name} {s:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        table.row(vec![
            r.strategy.to_string(),
            r.vertices.to_string(),
            format!("{:.0}", r.actual),
            cell(r.arcs.map(|a| format!("{a:.0}"))),
            cell(r.seconds.map(|s| format!("{s:.4}"))),
            cell(speedup.map(|s| format!("{s:.2}"))),
            cell(r.solve.map(|s| format!("{s:.4}"))),
            cell(solve_speedup.map(|s| format!("{s:.2}"))),
            cell(device.map(|s| format!("{s:.4}"))),
            cell(device_speedup.map(|s| format!("{s:.2}"))),
            per_phase
                .iter()
                .map(|(name, x)| format!("{name} {x:.1}"))
                .collect::<Vec<_>>()
                .join(", "),
            listed(&r.phases),
            listed(&r.host),
            r.note.clone(),
        ]);
        json_rows.push(json!({
            "strategy": r.strategy,
            "vertices": r.vertices,
            "mean_vertices": r.actual,
            "arcs": r.arcs,
            "seconds": r.seconds,
            "speedup_over_mpm_serial": speedup,
            "solve_seconds": r.solve,
            "solve_speedup_over_mpm_serial": solve_speedup,
            "device_seconds": device,
            "device_speedup_over_mpm_serial": device_speedup,
            "phase_speedups_over_mpm_serial": per_phase.iter().map(|(n, x)| json!({"phase": n, "speedup": x})).collect::<Vec<_>>(),
            "phases": r.phases.iter().map(|(n, s)| json!({"phase": n, "seconds": s})).collect::<Vec<_>>(),
            "host": r.host.iter().map(|(n, s)| json!({"part": n, "seconds": s})).collect::<Vec<_>>(),
            "setup_seconds": r.setup,
            "note": r.note,
        }));
    }
    Rendered {
        name: "maxflow-bench",
        markdown: table.markdown(),
        csv: table.csv(),
        json: json!({
            "family": options.family.to_string(),
            "degree": options.degree,
            "graphs": options.graphs,
            "max_capacity": options.max_capacity,
            "rows": json_rows,
        }),
        chart_title: match options.family {
            BenchFamily::Random => format!(
                "max flow, random graphs of mean degree {}, {} per size",
                options.degree, options.graphs
            ),
            family => format!("max flow, {family} networks, {} per size", options.graphs),
        },
        x_label: "vertices".into(),
        y_label: "mean solve seconds per graph".into(),
        log_y: true,
        series: series_by(
            rows,
            |r| r.strategy.to_string(),
            |r| r.solve.map(|s| (r.vertices as f64, s)),
        ),
    }
}
