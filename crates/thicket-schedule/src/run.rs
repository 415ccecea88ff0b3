//! The front door: [`schedule`] runs one method on one matrix as a [`Kernel`], checked by
//! [`crate::verify::verify`] when asked. A run its caller stops ([`thicket_core::stoppable`])
//! returns the best schedule found by then with the bound proven by then, marked
//! [`ScheduleRun::stopped`].

use std::time::Instant;

use serde_json::{Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, StopFlag,
};

use crate::cpu::{self, lp, Fallback};
use crate::etc::Etc;
use crate::gpu::lp_ils;
use crate::gpu::{ils as gpu_ils, mspso};
use crate::io::assignment::loads;
use crate::report::ScheduleRun;
use crate::strategy::{Method, ScheduleOptions};
use crate::verify::{verify, F32_TOLERANCE, F64_TOLERANCE};

struct ScheduleKernel<'a> {
    etc: &'a Etc,
    options: ScheduleOptions,
    /// What a GPU run of the default that found no usable GPU leaves to the CPU run that
    /// follows it (`--backend auto`).
    fallback: Option<Fallback>,
}

impl ScheduleKernel<'_> {
    /// The swarms on the GPU.
    fn run_gpu_swarms(&self, progress: &Progress) -> Result<(ScheduleRun, Placement)> {
        let (etc, o) = (self.etc, &self.options);
        let params = o.swarm_params();
        let started = Instant::now();
        let stop = progress.stop_flag();
        let run = mspso::run(
            etc,
            &params,
            o.seed,
            o.device,
            o.scratch,
            o.profile,
            stop.as_ref().map(StopFlag::as_atomic),
        )?;
        let seconds = started.elapsed().as_secs_f64();
        let (loads, makespan) = loads(etc, &run.run.assignment);
        Ok((
            ScheduleRun {
                method: o.method,
                assignment: run.run.assignment,
                reported: run.run.makespan as f64,
                makespan,
                loads,
                lower_bound: lp::reported_bound(etc, stop.as_ref().map(StopFlag::as_atomic)),
                seconds,
                epochs: None,
                kicks: None,
                swarm: Some(params),
                scratch: Some(run.scratch),
                kernel_seconds: Some(run.kernel_seconds),
                phase_seconds: run.phase_seconds,
                stage_seconds: None,
                trace: Vec::new(),
                stopped: progress.stop_requested(),
            },
            Placement {
                threads: 1,
                devices: vec![run.device],
            },
        ))
    }

    /// The method on the CPU; the searches on the caller's pool of `threads`.
    fn run_cpu(&mut self, progress: &Progress) -> Result<(ScheduleRun, Placement)> {
        let pool = thicket_core::Workers::new(self.options.threads)?;
        let fallback = self.fallback.take();
        let started = fallback.as_ref().map_or_else(Instant::now, |(at, _)| *at);
        let (etc, o) = (self.etc, &self.options);
        let flag = progress.stop_flag();
        let stop = flag.as_ref().map(StopFlag::as_atomic);
        let label = self.label();
        let found = cpu::run(etc, o, &pool, started, fallback, stop, progress, &label)?;
        let threads = match o.method {
            Method::Ils | Method::LpIls => o.threads,
            _ => 1,
        };
        let seconds = started.elapsed().as_secs_f64();
        let (loads, makespan) = loads(etc, &found.assignment);
        Ok((
            ScheduleRun {
                method: o.method,
                assignment: found.assignment,
                reported: found.reported,
                makespan,
                loads,
                lower_bound: found.bound.unwrap_or_else(|| lp::reported_bound(etc, stop)),
                seconds,
                epochs: found.epochs,
                kicks: found.kicks,
                swarm: matches!(o.method, Method::Pso | Method::Mspso).then(|| o.swarm_params()),
                scratch: None,
                kernel_seconds: None,
                phase_seconds: None,
                stage_seconds: None,
                trace: found.trace,
                stopped: progress.stop_requested(),
            },
            Placement {
                threads,
                devices: Vec::new(),
            },
        ))
    }
}

impl Kernel for ScheduleKernel<'_> {
    type Output = ScheduleRun;
    const DOING: &'static str = "scheduling";

    fn label(&self) -> String {
        format!(
            "schedule {}x{} {}",
            self.etc.tasks(),
            self.etc.machines(),
            self.options.method
        )
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(ScheduleRun, Placement)> {
        match (backend, self.options.method) {
            (Backend::Cuda, Method::LpIls) => {
                let label = self.label();
                lp_ils::run(self.etc, &self.options, label, progress, &mut self.fallback)
            }
            (Backend::Cuda, _) => self.run_gpu_swarms(progress),
            _ => self.run_cpu(progress),
        }
    }

    fn verify(&self, output: &ScheduleRun) -> Result<Option<bool>> {
        let tolerance = match output.swarm {
            Some(_) => F32_TOLERANCE,
            None => F64_TOLERANCE,
        };
        Ok(Some(
            verify(self.etc, &output.assignment, output.reported, tolerance).is_ok(),
        ))
    }

    fn stats(&self, output: &ScheduleRun) -> Map<String, Value> {
        output.stats(self.etc)
    }

    fn is_partial(&self, output: &ScheduleRun) -> bool {
        output.stopped
    }
}

/// Waits for the GPU set-up (device, and on a cold kernel cache the NVRTC compile) that a
/// default run on the GPU started and stopped waiting for when it was not ready in time, until
/// `until` at the latest; a program that ends right after its runs calls this so that the
/// compiled kernels reach the kernel cache and the next process finds them. Returns whether
/// every set-up finished (at once where none is under way); one that did not is lost with
/// the process, and the next process compiles again.
pub fn finish_gpu_setup(until: Instant) -> bool {
    gpu_ils::finish_opening(until)
}

/// Runs `options.method` on `etc` as the options ask (backend, trials, verification). A run
/// its caller stops returns the best schedule so far, [`ScheduleRun::stopped`], unverified.
pub fn schedule(etc: &Etc, options: &ScheduleOptions) -> Result<Measured<ScheduleRun>> {
    let mut run = options.run;
    if !options.method.has_gpu() {
        if run.backend == Backend::Cuda {
            return Err(Error::InvalidInput(format!(
                "method {} runs on the CPU only",
                options.method
            )));
        }
        run.backend = Backend::Cpu;
    }
    let mut kernel = ScheduleKernel {
        etc,
        options: *options,
        fallback: None,
    };
    benchmark_kernel(&mut kernel, &run)
}

#[cfg(test)]
mod tests;
