//! The front door: [`maxflow`] solves a network with the strategy asked for (or the default
//! of the backend) as a [`Kernel`], then checks the flow with [`crate::verify::verify`] (always: the
//! certificate gives the minimum cut that is reported) outside the timed run. The GPU
//! strategies run on the process's shared device: the first solve opens it and loads the
//! kernels, every later one reuses them.

use std::time::Instant;

use serde_json::{Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunOptions,
};

use crate::cpu::{mpm, push_relabel};
use crate::gpu::{FlowDevice, FlowGpu};
use crate::network::Network;
use crate::report::{FlowAnswer, FlowRun, FlowStats, GpuPhases, SolveStats};
use crate::residual::Residual;
use crate::strategy::Strategy;
use crate::verify::verify;

/// How [`maxflow`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MaxflowOptions {
    /// Backend, trials, progress bar (the certificate is always checked).
    pub run: RunOptions,
    /// The strategy; `None`: the default of the backend.
    pub strategy: Option<Strategy>,
    /// The GPU.
    pub device: usize,
}

/// Finds a maximum flow of `network` as `options` ask, and checks it: a flow that fails the
/// certificate is an [`Error::Verification`]; a network too large for the GPU's free memory
/// is [`Error::TooLarge`]. The GPU is opened, and each strategy's kernels loaded, by the
/// process's first solve that needs them; later solves reuse them.
pub fn maxflow(network: &Network, options: &MaxflowOptions) -> Result<Measured<FlowRun>> {
    network.check_solve_fits()?;
    let run = RunOptions {
        backend: thicket_core::backend_for(
            options.strategy,
            Strategy::is_gpu,
            options.run.backend,
        )?,
        verify: false,
        ..options.run
    };
    let mut kernel = FlowKernel { network, options };
    let measured = benchmark_kernel(&mut kernel, &run)?;
    let Solved {
        value,
        flows,
        mut stats,
    } = measured.output;
    let checked = Instant::now();
    let certificate = verify(network, &flows).map_err(|e| {
        Error::Verification(format!("strategy {}: {}", stats.strategy, e.message()))
    })?;
    stats
        .host
        .push(("certificate", checked.elapsed().as_secs_f64()));
    if certificate.value != value {
        return Err(Error::Verification(format!(
            "strategy {} reports {value} for a flow of value {}",
            stats.strategy, certificate.value
        )));
    }
    Ok(Measured {
        output: FlowRun {
            answer: FlowAnswer {
                value,
                flows,
                source_side: certificate.source_side,
                cut_arcs: certificate.cut_arcs,
                verified: true,
            },
            stats,
        },
        info: measured.info,
        trial_seconds: measured.trial_seconds,
        verified: Some(true),
    })
}

/// What one run of the kernel yields, before the certificate.
struct Solved {
    value: u64,
    flows: Vec<u64>,
    stats: FlowStats,
}

struct FlowKernel<'a> {
    network: &'a Network,
    options: &'a MaxflowOptions,
}

impl Kernel for FlowKernel<'_> {
    type Output = Solved;
    const DOING: &'static str = "solving";

    fn label(&self) -> String {
        format!(
            "max flow ({} vertices, {} arcs)",
            self.network.vertices,
            self.network.arcs.len()
        )
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(Solved, Placement)> {
        let strategy = Strategy::chosen(self.options.strategy, backend);
        let mut host = Vec::new();
        let built = Instant::now();
        let r = Residual::new(self.network);
        host.push(("residual", built.elapsed().as_secs_f64()));
        let (solve, placement) = match strategy.is_gpu() {
            true => self.run_gpu(strategy, r, &mut host)?,
            false => self.run_cpu(strategy, r, progress)?,
        };
        let value = net_into(self.network, &solve.flows)?;
        let stats = FlowStats {
            strategy,
            vertices: self.network.vertices,
            arcs: self.network.arcs.len(),
            counts: solve.counts,
            phases: solve.phases,
            solve_seconds: solve.seconds,
            host,
        };
        Ok((
            Solved {
                value,
                flows: solve.flows,
                stats,
            },
            placement,
        ))
    }

    fn verify(&self, output: &Solved) -> Result<Option<bool>> {
        Ok(Some(verify(self.network, &output.flows).is_ok()))
    }

    fn stats(&self, output: &Solved) -> Map<String, Value> {
        output.stats.json(output.value)
    }
}

/// One solve's flows, counts, phases and seconds (from the residual graph in host memory to
/// the flows in host memory).
struct Solve {
    flows: Vec<u64>,
    counts: SolveStats,
    phases: Option<GpuPhases>,
    seconds: f64,
}

impl FlowKernel<'_> {
    /// A GPU strategy on the process's shared device; the device set-up, where this run
    /// was the process's first to need it, and the copies are timed into `host`.
    fn run_gpu(
        &self,
        strategy: Strategy,
        r: Residual,
        host: &mut Vec<(&'static str, f64)>,
    ) -> Result<(Solve, Placement)> {
        let (s, t) = (self.network.source, self.network.sink);
        let setup = Instant::now();
        let device = FlowDevice::shared(self.options.device)?;
        if device.prepare(strategy)? {
            host.push(("device_setup", setup.elapsed().as_secs_f64()));
        }
        let solving = Instant::now();
        let uploaded = FlowGpu::upload(&device, r, s, t)?;
        host.push(("upload", solving.elapsed().as_secs_f64()));
        let solved = uploaded.solve(strategy)?;
        let seconds = solving.elapsed().as_secs_f64();
        host.push(("download", solved.download_seconds));
        let solve = Solve {
            flows: solved.flows,
            counts: solved.stats,
            phases: Some(solved.phases),
            seconds,
        };
        let placement = Placement {
            threads: 1,
            devices: vec![device.name()],
        };
        Ok((solve, placement))
    }

    /// A CPU strategy on one thread; push-relabel stops at the caller's request.
    fn run_cpu(
        &self,
        strategy: Strategy,
        mut r: Residual,
        progress: &Progress,
    ) -> Result<(Solve, Placement)> {
        let (s, t) = (self.network.source, self.network.sink);
        let solving = Instant::now();
        // mpm-serial's time per phase, the CPU side of the thesis's Table 5.3.
        let (counts, phases) = match strategy {
            Strategy::MpmSerial => {
                let (counts, times) = mpm::solve_timed(&mut r, s, t);
                let mut phases = GpuPhases::default();
                for (name, seconds) in times {
                    phases.add(name, seconds);
                }
                (counts, Some(phases))
            }
            _ => {
                let stop = progress.stop_flag();
                (push_relabel::solve(&mut r, s, t, stop.as_ref()), None)
            }
        };
        // A stopped solve leaves a preflow, not a flow.
        progress.check_stop()?;
        let flows = r.flows();
        let solve = Solve {
            flows,
            counts,
            phases,
            seconds: solving.elapsed().as_secs_f64(),
        };
        let placement = Placement {
            threads: 1,
            devices: vec![],
        };
        Ok((solve, placement))
    }
}

/// The flow into the sink less the flow out of it.
fn net_into(network: &Network, flows: &[u64]) -> Result<u64> {
    let mut net: i128 = 0;
    for (a, &f) in network.arcs.iter().zip(flows) {
        if a.head == network.sink {
            net += i128::from(f);
        }
        if a.tail == network.sink {
            net -= i128::from(f);
        }
    }
    u64::try_from(net)
        .map_err(|_| Error::Verification(format!("the sink receives a negative net flow ({net})")))
}
