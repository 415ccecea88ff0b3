//! `thicket bench schedule`: the thesis's experiments (Solomon 2012, §6.3) rerun, then the
//! Braun table.
//!
//! - **Sweeps** (the thesis's Figs. 6.6-6.9): the multi-swarm PSO on thesis-style matrices at
//!   growing swarm counts (80 tasks x 8 machines), machine counts (80 tasks, 10 swarms, both
//!   fitness scratches, across the shared/global switch) and task counts (8 machines, 10
//!   swarms): the serial CPU's seconds, the GPU's kernel seconds and the speed-up.
//! - **Shares** (Table 6.1): the GPU's device time per phase, shared scratch at 10 machines and
//!   global at 100 (GPU only: without one the rows say so).
//! - **Quality** (Table 6.2): FCFS, the single-swarm PSO, the MSPSO and thicket's default on
//!   one thesis-style matrix per size, makespans over FCFS's, beside the thesis's ratios.
//! - **Braun**: per instance FCFS, Min-Min, the MSPSO, the default, the best known (the
//!   makespan of the `.sol` file beside the instance, recomputed), the gap and the time; the
//!   chart is the default's gap against seconds.
//!
//! Every schedule goes through the crate's verifier (the front door's `verify`); a wrong one
//! fails the bench. A GPU case that cannot run says why in its row, by its typed
//! [`Outcome`]: skipped (`--no-gpu`, or a shared scratch too small for the size), unavailable
//! (no usable GPU) or failed (which fails the bench).

mod render;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness::{cell, AfterCase, Outcome, Report};
use serde::Serialize;
use thicket_core::{Backend, Error, Measured, Result, RunOptions};
use thicket_schedule::{
    assignment, schedule, Etc, Generator, Method, ScheduleOptions, ScheduleRun, Scratch,
    SwarmParams,
};

use render::{render, scratch_name};

/// The thesis's Table 6.2: tasks, machines, MSPSO / FCFS, PSO / FCFS.
pub const THESIS_TABLE_6_2: [(usize, usize, f64, f64); 7] = [
    (60, 10, 0.906, 0.925),
    (60, 15, 0.935, 0.921),
    (70, 10, 0.939, 0.923),
    (70, 15, 0.941, 0.933),
    (80, 10, 0.964, 0.934),
    (200, 40, 1.322, 1.312),
    (1000, 100, 3.106, 3.109),
];

/// What `thicket bench schedule` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleBenchOptions {
    /// Swarm counts of the swarm sweep (80 x 8).
    pub swarms: Vec<usize>,
    /// Machine counts of the machine sweep (80 tasks, 10 swarms).
    pub machines: Vec<usize>,
    /// Task counts of the task sweep (8 machines, 10 swarms).
    pub tasks: Vec<usize>,
    /// Swarm iterations in the sweeps and shares (the quality table uses the thesis's 1,000).
    pub sweep_iterations: usize,
    /// Table 6.2's sizes (tasks, machines).
    pub quality: Vec<(usize, usize)>,
    /// Swarm iterations in the quality and Braun tables.
    pub iterations: usize,
    /// Braun instances (a `.sol` file beside each, named after it, gives the best known).
    pub braun: Vec<PathBuf>,
    /// The default's time limit per matrix.
    pub time_limit: Duration,
    /// CPU threads of the default.
    pub threads: usize,
    /// Seed of the matrices and the randomised methods.
    pub seed: u64,
    /// Whether to run the GPU parts (sweeps' GPU columns, shares).
    pub gpu: bool,
    /// The GPU.
    pub device: usize,
}

/// One measured case.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Row {
    /// The table: `swarms`, `machines`, `tasks`, `shares`, `quality` or `braun`.
    pub table: &'static str,
    /// The matrix (`thesis:80x8`, an instance's file name).
    pub matrix: String,
    /// Tasks.
    pub tasks: usize,
    /// Machines.
    pub machines: usize,
    /// The method.
    pub method: String,
    /// `cpu` or `cuda`.
    pub backend: &'static str,
    /// Swarms of a swarm method.
    pub swarms: Option<usize>,
    /// GPU swarms: the fitness scratch.
    pub scratch: Option<String>,
    /// The makespan.
    pub makespan: Option<f64>,
    /// Makespan over FCFS's (quality table).
    pub vs_fcfs: Option<f64>,
    /// The thesis's ratio for this size and method (quality table).
    pub thesis: Option<f64>,
    /// The best known makespan (Braun table).
    pub best_known: Option<f64>,
    /// (makespan − best known) / best known, percent.
    pub gap_percent: Option<f64>,
    /// The default (Braun table): the LP relaxation's lower bound.
    pub lower_bound: Option<f64>,
    /// Wall seconds (the serial CPU's in the sweeps).
    pub seconds: Option<f64>,
    /// GPU: device seconds from the first launch to the last.
    pub kernel_seconds: Option<f64>,
    /// Serial CPU seconds over GPU kernel seconds.
    pub speedup: Option<f64>,
    /// Shares: percent of the device time per phase of [`thicket_schedule::SWARM_PHASES`].
    pub shares: Option<Vec<f64>>,
    /// Whether the verifier accepted the schedule.
    pub verified: Option<bool>,
    /// Why a case did not run.
    pub note: Option<String>,
}

/// The default's best makespan over time on one Braun instance: (seconds, gap percent).
#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    /// The instance.
    pub matrix: String,
    /// (seconds, gap to the best known in percent, or makespan / Min-Min without one).
    pub points: Vec<(f64, f64)>,
}

/// Runs the bench, calling `after_case` after every case.
pub fn bench(options: &ScheduleBenchOptions, after_case: AfterCase) -> Result<Report> {
    let mut bench = Bench {
        options,
        rows: Vec::new(),
        traces: Vec::new(),
        unavailable: None,
        failed: None,
    };
    let o = options;
    // A bad instance file fails before minutes of sweeps, not after.
    let braun: Vec<Etc> = o
        .braun
        .iter()
        .map(|p| Etc::read(p))
        .collect::<Result<_>>()?;
    for &swarms in &o.swarms {
        bench.sweep("swarms", 80, 8, swarms, &[None], after_case)?;
    }
    let both = [Some(Scratch::Shared), Some(Scratch::Global)];
    for &machines in &o.machines {
        bench.sweep("machines", 80, machines, 10, &both, after_case)?;
    }
    for &tasks in &o.tasks {
        bench.sweep("tasks", tasks, 8, 10, &[None], after_case)?;
    }
    if !(o.swarms.is_empty() && o.machines.is_empty() && o.tasks.is_empty()) {
        for (machines, scratch) in [(10, Scratch::Shared), (100, Scratch::Global)] {
            bench.shares(machines, scratch, after_case)?;
        }
    }
    for &(tasks, machines) in &o.quality {
        bench.quality(tasks, machines, after_case)?;
    }
    for (path, etc) in o.braun.iter().zip(braun) {
        bench.braun(path, etc, after_case)?;
    }
    let verdict = match bench.failed.take() {
        Some(why) => Err(Error::Verification(why)),
        None => Ok(()),
    };
    Ok(Report {
        rendered: render(&bench.rows, &bench.traces),
        verdict,
    })
}

struct Bench<'a> {
    options: &'a ScheduleBenchOptions,
    rows: Vec<Row>,
    traces: Vec<Trace>,
    /// Why the GPU is not usable, once a case found it so: the later GPU cases do not try.
    unavailable: Option<String>,
    /// The first wrong schedule.
    failed: Option<String>,
}

impl Bench<'_> {
    fn push(&mut self, row: Row, after_case: AfterCase) -> Result<()> {
        if row.verified == Some(false) && self.failed.is_none() {
            self.failed = Some(format!(
                "{} on {}: the schedule does not verify",
                row.method, row.matrix
            ));
        }
        let line = format!(
            "{} {} {}{}: makespan {} in {} s{}",
            row.table,
            row.matrix,
            row.method,
            row.scratch
                .as_ref()
                .map_or(String::new(), |s| format!(" ({s})")),
            cell(row.makespan.map(|m| format!("{m:.3}"))),
            cell(
                row.kernel_seconds
                    .or(row.seconds)
                    .map(|s| format!("{s:.4}"))
            ),
            row.note
                .as_ref()
                .map_or(String::new(), |n| format!(" ({n})")),
        );
        self.rows.push(row);
        after_case(&line, &render(&self.rows, &self.traces))
    }

    /// Runs `method` through the front door, quietly, verified.
    fn run(
        &self,
        etc: &Etc,
        method: Method,
        backend: Backend,
        swarm: Option<SwarmParams>,
        scratch: Option<Scratch>,
        profile: bool,
    ) -> Result<Measured<ScheduleRun>> {
        let o = self.options;
        schedule(
            etc,
            &ScheduleOptions {
                run: RunOptions {
                    backend,
                    quiet: true,
                    verify: true,
                    ..RunOptions::default()
                },
                method,
                seed: o.seed,
                time_limit: o.time_limit,
                epochs: None,
                swarm,
                threads: o.threads,
                device: o.device,
                scratch,
                profile,
            },
        )
    }

    /// One sweep point: the serial CPU swarms, then the GPU's with each scratch.
    fn sweep(
        &mut self,
        table: &'static str,
        tasks: usize,
        machines: usize,
        swarms: usize,
        scratches: &[Option<Scratch>],
        after_case: AfterCase,
    ) -> Result<()> {
        let etc = Generator::Thesis { tasks, machines }.generate(self.options.seed)?;
        let params = SwarmParams {
            swarms,
            iterations: self.options.sweep_iterations,
            ..SwarmParams::THESIS
        };
        let base = Row {
            table,
            matrix: format!("thesis:{tasks}x{machines}"),
            tasks,
            machines,
            method: "mspso".into(),
            backend: "cpu",
            swarms: Some(swarms),
            ..Row::default()
        };
        let cpu = self.run(&etc, Method::Mspso, Backend::Cpu, Some(params), None, false)?;
        let serial = cpu.info.seconds;
        self.push(
            Row {
                makespan: Some(cpu.output.makespan),
                seconds: Some(serial),
                verified: cpu.verified,
                ..base.clone()
            },
            after_case,
        )?;
        for &scratch in scratches {
            let base = Row {
                backend: "cuda",
                ..base.clone()
            };
            // Past the thesis's switch the shared scratch does not fit: the row is skipped
            // (with or without a GPU) instead of asking the GPU for a run it must refuse.
            let fits = scratch.map_or(Ok(()), |s| s.check(params.particles, machines));
            let run = match fits {
                Err(too_large) => Outcome::from_error(too_large),
                Ok(()) => self.gpu_run(&etc, params, scratch, false),
            };
            let row = match run {
                Outcome::Ran(gpu) => {
                    let kernels = gpu.output.kernel_seconds;
                    Row {
                        scratch: gpu.output.scratch.map(scratch_name),
                        makespan: Some(gpu.output.makespan),
                        seconds: Some(gpu.info.seconds),
                        kernel_seconds: kernels,
                        speedup: kernels.filter(|&k| k > 0.0).map(|k| serial / k),
                        verified: gpu.verified,
                        ..base.clone()
                    }
                }
                other => Row {
                    scratch: scratch.map(scratch_name),
                    note: other.note(),
                    ..base.clone()
                },
            };
            self.push(row, after_case)?;
        }
        Ok(())
    }

    /// A GPU swarm run.
    fn gpu_run(
        &mut self,
        etc: &Etc,
        params: SwarmParams,
        scratch: Option<Scratch>,
        profile: bool,
    ) -> Outcome<Measured<ScheduleRun>> {
        self.on_gpu(|bench| {
            bench.run(
                etc,
                Method::Mspso,
                Backend::Cuda,
                Some(params),
                scratch,
                profile,
            )
        })
    }

    /// A GPU case: skipped without `--gpu`, unavailable once a case found no usable GPU, else
    /// what `run` gives (a failure is remembered for the verdict).
    fn on_gpu(
        &mut self,
        run: impl FnOnce(&Self) -> Result<Measured<ScheduleRun>>,
    ) -> Outcome<Measured<ScheduleRun>> {
        if !self.options.gpu {
            return Outcome::Skipped("GPU not run (--no-gpu)".into());
        }
        if let Some(why) = &self.unavailable {
            return Outcome::Unavailable(format!("GPU not run ({why})"));
        }
        let outcome = Outcome::of(run(self));
        match &outcome {
            Outcome::Unavailable(why) => self.unavailable = Some(why.clone()),
            Outcome::Failed(why) => {
                self.failed.get_or_insert_with(|| why.clone());
            }
            _ => {}
        }
        outcome
    }

    /// Table 6.1: the GPU's time per phase at 60 swarms on 1,000 tasks.
    fn shares(&mut self, machines: usize, scratch: Scratch, after_case: AfterCase) -> Result<()> {
        let tasks = 1000;
        let etc = Generator::Thesis { tasks, machines }.generate(self.options.seed)?;
        let params = SwarmParams {
            swarms: 60,
            iterations: self.options.sweep_iterations,
            ..SwarmParams::THESIS
        };
        let base = Row {
            table: "shares",
            matrix: format!("thesis:{tasks}x{machines}"),
            tasks,
            machines,
            method: "mspso".into(),
            backend: "cuda",
            swarms: Some(60),
            scratch: Some(scratch_name(scratch)),
            ..Row::default()
        };
        let row = match self.gpu_run(&etc, params, Some(scratch), true) {
            Outcome::Ran(gpu) => {
                let total = gpu.output.kernel_seconds.unwrap_or(0.0);
                Row {
                    makespan: Some(gpu.output.makespan),
                    seconds: Some(gpu.info.seconds),
                    kernel_seconds: Some(total),
                    shares: gpu.output.phase_seconds.as_ref().map(|phases| {
                        let sum: f64 = phases.iter().sum();
                        phases.iter().map(|p| 100.0 * p / sum.max(1e-30)).collect()
                    }),
                    verified: gpu.verified,
                    ..base
                }
            }
            other => Row {
                note: other.note(),
                ..base
            },
        };
        self.push(row, after_case)
    }

    /// Table 6.2 at one size: FCFS, PSO, MSPSO, the default.
    fn quality(&mut self, tasks: usize, machines: usize, after_case: AfterCase) -> Result<()> {
        let etc = Generator::Thesis { tasks, machines }.generate(self.options.seed)?;
        let thesis = THESIS_TABLE_6_2
            .iter()
            .find(|r| (r.0, r.1) == (tasks, machines));
        let iterations = self.options.iterations;
        let mut fcfs = None;
        for (method, swarm) in [
            (Method::Fcfs, None),
            (
                Method::Pso,
                Some(SwarmParams {
                    iterations,
                    ..SwarmParams::SINGLE
                }),
            ),
            (
                Method::Mspso,
                Some(SwarmParams {
                    iterations,
                    ..SwarmParams::THESIS
                }),
            ),
            (Method::LpIls, None),
        ] {
            let run = self.run(&etc, method, Backend::Cpu, swarm, None, false)?;
            let makespan = run.output.makespan;
            let fcfs = *fcfs.get_or_insert(makespan);
            let row = Row {
                table: "quality",
                matrix: format!("thesis:{tasks}x{machines}"),
                tasks,
                machines,
                method: method.name().into(),
                backend: "cpu",
                swarms: swarm.map(|s| s.swarms),
                makespan: Some(makespan),
                vs_fcfs: Some(makespan / fcfs),
                thesis: thesis.and_then(|r| match method {
                    Method::Mspso => Some(r.2),
                    Method::Pso => Some(r.3),
                    Method::Fcfs => Some(1.0),
                    _ => None,
                }),
                seconds: Some(run.info.seconds),
                verified: run.verified,
                ..Row::default()
            };
            self.push(row, after_case)?;
        }
        Ok(())
    }

    /// The Braun table for one instance.
    fn braun(&mut self, path: &Path, etc: Etc, after_case: AfterCase) -> Result<()> {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let best_known = best_known(&etc, path)?;
        let gap = |m: f64| best_known.map(|b| 100.0 * (m - b) / b);
        let base = Row {
            table: "braun",
            matrix: name.clone(),
            tasks: etc.tasks(),
            machines: etc.machines(),
            backend: "cpu",
            best_known,
            ..Row::default()
        };
        let mspso = SwarmParams {
            iterations: self.options.iterations,
            ..SwarmParams::THESIS
        };
        for (method, swarm) in [
            (Method::Fcfs, None),
            (Method::MinMin, None),
            (Method::Mspso, Some(mspso)),
        ] {
            let run = self.run(&etc, method, Backend::Cpu, swarm, None, false)?;
            let row = Row {
                method: method.name().into(),
                swarms: swarm.map(|s| s.swarms),
                makespan: Some(run.output.makespan),
                gap_percent: gap(run.output.makespan),
                seconds: Some(run.info.seconds),
                verified: run.verified,
                ..base.clone()
            };
            self.push(row, after_case)?;
        }
        // The default on the CPU: its best makespan over time (the run's trace) is the chart.
        let run = self.run(&etc, Method::LpIls, Backend::Cpu, None, None, false)?;
        let first = run
            .output
            .trace
            .first()
            .map_or(run.output.makespan, |&(_, m)| m);
        self.traces.push(Trace {
            matrix: name,
            points: run
                .output
                .trace
                .iter()
                .map(|&(seconds, best)| (seconds, gap(best).unwrap_or(best / first)))
                .collect(),
        });
        let row = Row {
            method: Method::LpIls.name().into(),
            makespan: Some(run.output.makespan),
            gap_percent: gap(run.output.makespan),
            seconds: Some(run.info.seconds),
            verified: run.verified,
            lower_bound: Some(run.output.lower_bound),
            ..base.clone()
        };
        self.push(row, after_case)?;
        // The default on the GPU, where there is one.
        let row = Row {
            method: Method::LpIls.name().into(),
            backend: "cuda",
            ..base
        };
        let row = match self
            .on_gpu(|bench| bench.run(&etc, Method::LpIls, Backend::Cuda, None, None, false))
        {
            Outcome::Ran(run) => Row {
                makespan: Some(run.output.makespan),
                gap_percent: gap(run.output.makespan),
                seconds: Some(run.info.seconds),
                kernel_seconds: run.output.kernel_seconds,
                verified: run.verified,
                lower_bound: Some(run.output.lower_bound),
                ..row
            },
            other => Row {
                note: other.note(),
                ..row
            },
        };
        self.push(row, after_case)
    }
}

/// The smallest makespan of the `.sol` files beside `path` whose names start with the
/// instance's (hcsp's `u_c_hihi.0_MS_7358942,8.sol`), recomputed from the matrix; `None`
/// without one.
fn best_known(etc: &Etc, path: &Path) -> Result<Option<f64>> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(None);
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    let sols: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::file(dir, e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|f| {
                let f = f.to_string_lossy();
                f.starts_with(&*name) && f.ends_with(".sol") && f[name.len()..].starts_with('_')
            })
        })
        .collect();
    // The best of them (hcsp keeps a MIP and a column-pricing solution for some instances).
    let mut best: Option<f64> = None;
    for sol in &sols {
        let assignment = assignment::read(sol, etc)?;
        let makespan = assignment::loads(etc, &assignment).1;
        best = Some(best.map_or(makespan, |b| b.min(makespan)));
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_bench_runs_every_part_and_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let braun =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../thicket-schedule/data/braun/u_c_lolo.0");
        let options = ScheduleBenchOptions {
            swarms: vec![1, 2],
            machines: vec![2, 100],
            tasks: vec![20],
            sweep_iterations: 5,
            quality: vec![(60, 10)],
            iterations: 5,
            braun: vec![braun],
            time_limit: Duration::from_millis(200),
            threads: 1,
            seed: 1,
            gpu: false,
            device: 0,
        };
        let mut lines = 0;
        let outputs = crate::harness::Outputs {
            dir: Some(dir.path().to_path_buf()),
            ..Default::default()
        };
        let report = bench(&options, &mut |_, rendered| {
            lines += 1;
            outputs.write(rendered)
        })
        .unwrap();
        report.verdict.unwrap();
        let json = &report.rendered.json["rows"];
        let rows = json.as_array().unwrap();
        // Sweeps: 2 + 2 + 3 + 3 + 2 rows, shares 2, quality 4, Braun 5.
        assert_eq!(rows.len(), 23);
        assert_eq!(lines, 23);
        assert!(rows
            .iter()
            .filter(|r| r["verified"].is_boolean())
            .all(|r| r["verified"] == true));
        let quality: Vec<&serde_json::Value> =
            rows.iter().filter(|r| r["table"] == "quality").collect();
        assert_eq!(quality[0]["vs_fcfs"], 1.0);
        assert_eq!(quality[2]["thesis"], 0.906);
        let ils = rows
            .iter()
            .find(|r| r["method"] == "lp-ils" && r["table"] == "braun" && r["backend"] == "cpu");
        let ils = ils.unwrap();
        assert_eq!(ils["best_known"].as_f64().unwrap().round(), 5136.0);
        assert!(ils["gap_percent"].as_f64().unwrap() >= -1e-9);
        assert!(ils["lower_bound"].as_f64().unwrap() <= ils["makespan"].as_f64().unwrap());
        let gpu_rows = rows.iter().filter(|r| r["backend"] == "cuda").count();
        assert_eq!(gpu_rows, 2 + 2 + 2 + 1 + 2 + 1);
        // 128 particles x 100 machines pass the shared scratch: said, not run (nor failed).
        let shared_100 = rows
            .iter()
            .find(|r| r["matrix"] == "thesis:80x100" && r["scratch"] == "shared")
            .unwrap();
        assert!(shared_100["note"]
            .as_str()
            .unwrap()
            .contains("shared scratch does not fit"));
        assert!(rows
            .iter()
            .filter(|r| r["table"] == "shares")
            .all(|r| r["note"].as_str().unwrap().contains("GPU not run")));
        for ext in ["md", "csv", "json", "svg"] {
            assert!(dir.path().join(format!("schedule-bench.{ext}")).exists());
        }
    }
}
