//! `thicket bench maxflow`: the thesis's experiment (Solomon 2012, ch. 5, Fig. 5.2): random
//! graphs of average degree 12 at growing sizes, several graphs per size, every strategy on
//! the same graphs, the mean time per graph, the GPU's time per phase (Tables 5.1–5.3) and the
//! speed-up over `mpm-serial`. Every flow is certified (as every `maxflow` run is) and the
//! strategies must agree on each graph. A strategy whose next size is predicted to pass the
//! cap is skipped (`crate::harness::Sweep`). `--family genrmf` and `--family rlg` run the
//! modern families at about the same vertex counts instead.

mod render;

use std::time::Instant;

use crate::harness::{case_run, AfterCase, AfterFailure, Outcome, Plan, Report, Sweep};
use thicket_core::{Error, Result};
use thicket_flow::generate::{Family, Spec};
use thicket_flow::{maxflow, MaxflowOptions, Network, Strategy};

use render::{accumulate, render, Row};

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

/// One strategy's means over a size's graphs.
struct Means {
    seconds: f64,
    solve: f64,
    phases: Vec<(&'static str, f64)>,
    host: Vec<(&'static str, f64)>,
    values: Vec<u64>,
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
    // The thesis times the algorithm on a device already set up: each GPU strategy's first
    // solve (the process's device opened, its kernels loaded, a small graph solved) comes
    // before its first timed graph, that time shown once as its setup.
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
            match sweeps[i].plan(n, |_| None) {
                Plan::Skip(why) => row.note = why,
                Plan::Stopped => row.note = "not run (a smaller size failed)".into(),
                Plan::Run => {
                    let run = MaxflowOptions {
                        run: case_run(strategy.is_gpu()),
                        strategy: Some(strategy),
                        device: options.device,
                    };
                    let result = warm_up(&run, &mut setup[i]).and_then(|()| solve(&networks, &run));
                    // The failed case's error, made again for the verdict (the outcome keeps
                    // its words only).
                    let failure = result.as_ref().err().map(|e| (e.kind(), e.message()));
                    row.setup = setup[i];
                    match Outcome::of(result) {
                        Outcome::Ran(means) => {
                            row.seconds = Some(means.seconds);
                            row.solve = Some(means.solve);
                            row.phases = means.phases;
                            row.host = means.host;
                            if let Some(s) = row.setup {
                                row.note = format!("GPU setup {s:.3} s once");
                            }
                            sweeps[i].record(n, Some(means.seconds));
                            match &flows {
                                None => flows = Some(means.values),
                                Some(first) if *first != means.values => {
                                    row.note = "flows differ from the first strategy".into();
                                    verdict = Err(Error::Verification(format!(
                                        "{strategy} at {n} vertices: flows {:?}, the first \
                                         strategy's {first:?}",
                                        means.values
                                    )));
                                }
                                Some(_) => {}
                            }
                        }
                        // No GPU, or a network past the GPU's memory: the row says why, and
                        // neither fails the bench nor stops the larger sizes (not "a smaller
                        // size failed").
                        outcome @ (Outcome::Unavailable(_) | Outcome::Skipped(_)) => {
                            row.note = outcome.note().unwrap_or_default();
                        }
                        outcome @ Outcome::Failed(_) => {
                            row.note = outcome.note().unwrap_or_default();
                            sweeps[i].record(n, None);
                            if let Some((kind, message)) = failure {
                                verdict = Err(Error::from_kind(kind, message));
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

/// Solves every network with `run` and takes the means per graph.
fn solve(networks: &[Network], run: &MaxflowOptions) -> Result<Means> {
    let mut total = 0.0;
    let mut solve = 0.0;
    let mut values = Vec::new();
    let mut phases: Vec<(&'static str, f64)> = Vec::new();
    let mut host: Vec<(&'static str, f64)> = Vec::new();
    for network in networks {
        let m = maxflow(network, run)?;
        let stats = &m.output.stats;
        total += m.info.seconds;
        solve += stats.solve_seconds;
        values.push(m.output.answer.value);
        for (name, s) in stats.phases.iter().flat_map(|g| g.seconds.iter()) {
            accumulate(&mut phases, name, *s);
        }
        for &(name, s) in &stats.host {
            accumulate(&mut host, name, s);
        }
    }
    let count = networks.len() as f64;
    let mean = |sums: Vec<(&'static str, f64)>| sums.into_iter().map(|(p, s)| (p, s / count));
    Ok(Means {
        seconds: total / count,
        solve: solve / count,
        phases: mean(phases).collect(),
        host: mean(host).collect(),
        values,
    })
}

/// Before a GPU strategy's first timed graph: opens the process's device where no solve has
/// yet, loads the strategy's kernels and solves a small random graph once, so that no timed
/// graph pays the first load or the first allocations; the seconds it took go into `setup`.
/// Nothing for a CPU strategy or one already set up.
fn warm_up(run: &MaxflowOptions, setup: &mut Option<f64>) -> Result<()> {
    if !run.strategy.is_some_and(Strategy::is_gpu) || setup.is_some() {
        return Ok(());
    }
    let started = Instant::now();
    let network = Spec {
        family: Family::Random {
            vertices: 1000,
            degree: 12,
            max_capacity: 1000,
        },
        seed: 1,
    }
    .generate()?;
    maxflow(&network, run)?;
    *setup = Some(started.elapsed().as_secs_f64());
    Ok(())
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
