//! `thicket bench maxflow`: the thesis's experiment (Solomon 2012, ch. 5, Fig. 5.2): random
//! graphs of average degree 12 at growing sizes, several graphs per size, every strategy on
//! the same graphs, the mean time per graph, the GPU's time per phase (Tables 5.1–5.3) and the
//! speed-up over `mpm-serial`. Every flow is certified (as every `maxflow` run is) and the
//! strategies must agree on each graph. A strategy whose next size is predicted to pass the
//! cap is skipped (`thicket_run::bench::Sweep`). `--family genrmf` and `--family rlg` run the
//! modern families at about the same vertex counts instead.

use serde_json::json;
use thicket_core::{Backend, Error, Result, RunOptions};
use thicket_run::bench::{
    cell, series_by, AfterCase, AfterFailure, Align, Plan, Rendered, Report, Sweep, Table,
};

use std::time::Instant;

use crate::generate::{Family, Spec};
use crate::gpu::FlowDevice;
use crate::network::Network;
use crate::run::{maxflow_on, MaxflowOptions, Strategy};

/// The networks of a bench: the thesis's random graphs, or a modern family sized to about the
/// requested vertex count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchFamily {
    /// `random:N:DEGREE:MAXCAP:SEED` (the thesis's).
    Random,
    /// `genrmf:A:A:1:MAXCAP:SEED`, cubic (A frames of A × A), A the cube root of the count
    /// rounded (at least 2).
    Genrmf,
    /// `rlg:R:R:MAXCAP:SEED`, square, R the square root of the count rounded (at least 2).
    Rlg,
}

impl std::str::FromStr for BenchFamily {
    type Err = Error;

    fn from_str(s: &str) -> Result<BenchFamily> {
        match s {
            "random" => Ok(BenchFamily::Random),
            "genrmf" => Ok(BenchFamily::Genrmf),
            "rlg" => Ok(BenchFamily::Rlg),
            _ => Err(Error::InvalidInput(format!(
                "unknown family {s:?}: random, genrmf or rlg"
            ))),
        }
    }
}

impl std::fmt::Display for BenchFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BenchFamily::Random => "random",
            BenchFamily::Genrmf => "genrmf",
            BenchFamily::Rlg => "rlg",
        })
    }
}

impl BenchFamily {
    /// The family's generator for about `vertices` vertices.
    fn family(self, vertices: u32, degree: u32, max_capacity: u64) -> Family {
        let root = |power: f64| ((vertices as f64).powf(1.0 / power).round() as u32).max(2);
        match self {
            BenchFamily::Random => Family::Random {
                vertices,
                degree,
                max_capacity,
            },
            BenchFamily::Genrmf => Family::Genrmf {
                a: root(3.0),
                b: root(3.0),
                c1: 1,
                c2: max_capacity,
            },
            BenchFamily::Rlg => Family::Rlg {
                rows: root(2.0),
                cols: root(2.0),
                max_capacity,
            },
        }
    }
}

/// What the bench runs.
#[derive(Debug, Clone, PartialEq)]
pub struct MaxflowBenchOptions {
    /// The networks' family.
    pub family: BenchFamily,
    /// Vertex counts, in order.
    pub vertices: Vec<usize>,
    /// Mean degree of the random graphs (the thesis: 12).
    pub degree: u32,
    /// Largest capacity.
    pub max_capacity: u64,
    /// Graphs per size (seeds 1..=graphs; the thesis: at least 5).
    pub graphs: usize,
    /// Strategies, in table order (`mpm-serial` first: the speed-ups are over it).
    pub strategies: Vec<Strategy>,
    /// Cap per graph, in seconds, for the sweep's prediction.
    pub max_seconds: f64,
    /// The GPU.
    pub device: usize,
}

/// One strategy at one size.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    strategy: Strategy,
    vertices: usize,
    /// The networks' mean vertex count (a modern family's differs from the requested one).
    actual: f64,
    arcs: Option<f64>,
    /// Mean wall seconds per graph (the front door's: residual graph, copies, solve, flows).
    seconds: Option<f64>,
    /// Mean solve seconds per graph (residual graph in host memory to flows in host memory).
    solve: Option<f64>,
    phases: Vec<(&'static str, f64)>,
    /// Mean host seconds per graph by name (residual, upload, download).
    host: Vec<(&'static str, f64)>,
    /// The GPU's one-time setup for this strategy (context, kernels, a warm-up solve).
    setup: Option<f64>,
    note: String,
}

/// Adds `seconds` to `name` in `sums`, in the order first met.
fn accumulate(sums: &mut Vec<(&'static str, f64)>, name: &'static str, seconds: f64) {
    match sums.iter_mut().find(|(n, _)| *n == name) {
        Some((_, t)) => *t += seconds,
        None => sums.push((name, seconds)),
    }
}

fn render(rows: &[Row], options: &MaxflowBenchOptions) -> Rendered {
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

/// Runs the bench; `after` gets a line and the results after every case.
pub fn bench(options: &MaxflowBenchOptions, after: AfterCase) -> Result<Report> {
    if options.graphs == 0 || options.strategies.is_empty() || options.vertices.is_empty() {
        return Err(Error::InvalidInput(
            "a bench needs sizes, strategies and at least one graph per size".into(),
        ));
    }
    let mut sweeps: Vec<Sweep> = options
        .strategies
        .iter()
        .map(|_| Sweep::new(options.max_seconds, AfterFailure::Stop))
        .collect();
    let mut rows = Vec::new();
    let mut verdict = Ok(());
    // The GPU is opened once for the whole bench, as the thesis times the algorithm on a
    // device already set up; each GPU strategy's kernels load (and a small solve warms them)
    // before its first timed graph, that time shown once as its setup.
    let opened = Instant::now();
    let device = options
        .strategies
        .iter()
        .any(|s| s.is_gpu())
        .then(|| FlowDevice::open(options.device));
    let open_seconds = opened.elapsed().as_secs_f64();
    let mut setup: Vec<Option<f64>> = vec![None; options.strategies.len()];
    for &n in &options.vertices {
        let vertices = u32::try_from(n)
            .map_err(|_| Error::InvalidInput(format!("{n} vertices: at most 2^32 - 2")))?;
        let networks: Vec<Network> = (1..=options.graphs as u64)
            .map(|seed| {
                Spec {
                    family: options
                        .family
                        .family(vertices, options.degree, options.max_capacity),
                    seed,
                }
                .generate()
            })
            .collect::<Result<_>>()?;
        let arcs =
            networks.iter().map(|g| g.arcs.len() as f64).sum::<f64>() / networks.len() as f64;
        let actual =
            networks.iter().map(|g| g.vertices as f64).sum::<f64>() / networks.len() as f64;
        // The first strategy's flow on each graph: every other must equal it.
        let mut flows: Option<Vec<u64>> = None;
        for (i, &strategy) in options.strategies.iter().enumerate() {
            let mut row = Row {
                strategy,
                vertices: n,
                actual,
                arcs: Some(arcs),
                seconds: None,
                solve: None,
                phases: Vec::new(),
                host: Vec::new(),
                setup: None,
                note: String::new(),
            };
            let gpu = match (strategy.is_gpu(), &device) {
                (true, Some(Ok(d))) => Ok(Some(d)),
                // Every GPU row says why the device did not open (no GPU: not a failure).
                (true, Some(Err(Error::Unavailable(why)))) => Err(Error::Unavailable(why.clone())),
                (true, Some(Err(e))) => Err(Error::Gpu(e.to_string())),
                _ => Ok(None),
            };
            match sweeps[i].plan(n, |_| None) {
                Plan::Skip(why) => row.note = why,
                Plan::Stopped => row.note = "not run (a smaller size failed)".into(),
                Plan::Run => {
                    let run = MaxflowOptions {
                        run: RunOptions {
                            backend: if strategy.is_gpu() {
                                Backend::Cuda
                            } else {
                                Backend::Cpu
                            },
                            quiet: true,
                            ..RunOptions::default()
                        },
                        strategy: Some(strategy),
                        device: options.device,
                    };
                    let mut total = 0.0;
                    let mut solve = 0.0;
                    let mut values = Vec::new();
                    let mut phases: Vec<(&'static str, f64)> = Vec::new();
                    let mut host: Vec<(&'static str, f64)> = Vec::new();
                    let mut failure = None;
                    let warmed = match (gpu, setup[i]) {
                        (Err(e), _) => Err(e),
                        (Ok(Some(d)), None) => {
                            let started = Instant::now();
                            warm_up(d, &run).map(|()| {
                                setup[i] = Some(open_seconds + started.elapsed().as_secs_f64());
                                Some(d)
                            })
                        }
                        (Ok(d), _) => Ok(d),
                    };
                    match warmed {
                        Err(e) => failure = Some(e),
                        Ok(d) => {
                            for network in &networks {
                                match maxflow_on(network, &run, d) {
                                    Ok(m) => {
                                        total += m.info.seconds;
                                        solve += m.output.solve_seconds;
                                        values.push(m.output.value);
                                        for (name, s) in
                                            m.output.gpu.iter().flat_map(|g| g.seconds.iter())
                                        {
                                            accumulate(&mut phases, name, *s);
                                        }
                                        for &(name, s) in &m.output.host {
                                            accumulate(&mut host, name, s);
                                        }
                                    }
                                    Err(e) => {
                                        failure = Some(e);
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    row.setup = setup[i];
                    match failure {
                        Some(e) => {
                            row.note = e.to_string();
                            // No GPU: every size's row says so (not "a smaller size failed").
                            if !matches!(e, Error::Unavailable(_)) {
                                verdict = Err(e);
                                sweeps[i].record(n, None);
                            }
                        }
                        None => {
                            let count = networks.len() as f64;
                            let mean = total / count;
                            row.seconds = Some(mean);
                            row.solve = Some(solve / count);
                            row.phases = phases.into_iter().map(|(p, s)| (p, s / count)).collect();
                            row.host = host.into_iter().map(|(p, s)| (p, s / count)).collect();
                            if let Some(s) = row.setup {
                                row.note = format!("GPU setup {s:.3} s once");
                            }
                            sweeps[i].record(n, Some(mean));
                            match &flows {
                                None => flows = Some(values),
                                Some(first) if *first != values => {
                                    row.note = "flows differ from the first strategy".into();
                                    verdict = Err(Error::Verification(format!(
                                        "{strategy} at {n} vertices: flows {values:?}, the first \
                                         strategy's {first:?}"
                                    )));
                                }
                                Some(_) => {}
                            }
                        }
                    }
                }
            }
            let line = format!(
                "{strategy} {n} vertices: {}",
                match (row.seconds, row.solve) {
                    (Some(wall), Some(solve)) =>
                        format!("{wall:.4} s per graph, solve {solve:.4} s"),
                    _ => row.note.clone(),
                }
            );
            rows.push(row);
            after(&line, &render(&rows, options))?;
        }
    }
    Ok(Report {
        rendered: render(&rows, options),
        verdict,
    })
}

/// Opens nothing: loads `run`'s strategy's kernels on `device` and solves a small random
/// graph once, so that no timed graph pays the first load or the first allocations.
fn warm_up(device: &FlowDevice, run: &MaxflowOptions) -> Result<()> {
    let network = Spec {
        family: Family::Random {
            vertices: 1000,
            degree: 12,
            max_capacity: 1000,
        },
        seed: 1,
    }
    .generate()?;
    maxflow_on(&network, run, Some(device)).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_strategies_run_agree_and_render() {
        let options = MaxflowBenchOptions {
            family: BenchFamily::Random,
            vertices: vec![200, 400],
            degree: 12,
            max_capacity: 1000,
            graphs: 2,
            strategies: vec![Strategy::MpmSerial, Strategy::PushRelabel],
            max_seconds: 60.0,
            device: 0,
        };
        let mut lines = 0;
        let report = bench(&options, &mut |_, _| {
            lines += 1;
            Ok(())
        })
        .unwrap();
        report.verdict.unwrap();
        assert_eq!(lines, 4);
        let md = &report.rendered.markdown;
        assert!(md.contains("| push-relabel |"), "{md}");
        assert_eq!(report.rendered.json["rows"].as_array().unwrap().len(), 4);
        assert!(report.rendered.json["rows"][1]["speedup_over_mpm_serial"].is_number());
        // mpm-serial's own phases (Table 5.3's CPU side); no device time for a CPU row.
        let serial = &report.rendered.json["rows"][0];
        assert_eq!(serial["phases"].as_array().unwrap().len(), 3);
        assert!(serial["device_seconds"].is_null());
        // The solve time is a part of the wall time (the residual graph's build is not in
        // it), with its own speed-up; the build is listed among the host parts.
        for row in report.rendered.json["rows"].as_array().unwrap() {
            let (wall, solve) = (row["seconds"].as_f64(), row["solve_seconds"].as_f64());
            assert!(solve.unwrap() <= wall.unwrap(), "{row}");
            assert!(row["solve_speedup_over_mpm_serial"].is_number());
            assert_eq!(row["host"][0]["part"], "residual");
            assert!(row["setup_seconds"].is_null());
        }
        assert!(md.contains("× mpm-serial, solve"), "{md}");
    }

    #[test]
    fn the_modern_families_are_sized_and_the_gpu_rows_say_why_they_did_not_run() {
        for (family, vertices, strategies) in [
            (
                BenchFamily::Genrmf,
                512,
                vec![
                    Strategy::MpmSerial,
                    Strategy::PushRelabel,
                    Strategy::MpmActive,
                ],
            ),
            (
                BenchFamily::Rlg,
                400,
                vec![Strategy::MpmSerial, Strategy::PushRelabel],
            ),
        ] {
            let options = MaxflowBenchOptions {
                family,
                vertices: vec![vertices],
                degree: 12,
                max_capacity: 1000,
                graphs: 2,
                strategies,
                max_seconds: 60.0,
                device: 0,
            };
            let report = bench(&options, &mut |_, _| Ok(())).unwrap();
            report.verdict.unwrap();
            let rows = report.rendered.json["rows"].as_array().unwrap();
            // genrmf 8 × 8 × 8 = 512; rlg 20 × 20 plus s and t.
            let expected = if family == BenchFamily::Genrmf {
                512.0
            } else {
                402.0
            };
            assert_eq!(rows[0]["mean_vertices"].as_f64(), Some(expected));
            assert!(rows[1]["speedup_over_mpm_serial"].is_number());
            // Without a GPU (CI) the GPU row has no time and says why; with one it agreed.
            if let Some(gpu) = rows.get(2) {
                assert!(gpu["seconds"].is_number() || !gpu["note"].as_str().unwrap().is_empty());
            }
        }
    }
}
