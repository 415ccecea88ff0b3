//! Lock-free push-relabel on the GPU (Hong 2008, kernels in `kernels/push_relabel.cu`), both
//! phases on the device: the excess toward the sink, then the excess that cannot reach it
//! back to the source, each phase rounds of pushes after a global relabelling (a BFS from the
//! phase's target in one cooperative launch, which counts the active vertices as it labels
//! them) until none is active. Only the residual capacities come back.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{download_unsigned, launched, per_list, upload_signed, FlowGpu, GpuPhases, GpuSolved};
use crate::kernels::{
    round_launches, PushRelabelKernels, GR_ACTIVE, GR_LEVELS, GR_THREADS, GR_WORDS,
};
use crate::mpm::SolveStats;
use crate::push_relabel;

impl FlowGpu<'_> {
    /// Push-relabel: phase one toward the sink, phase two back to the source, each rounds of
    /// `round_launches() · CYCLES` sweeps after a global relabelling until the relabelling
    /// finds no active vertex; then the flows are read from the residual capacities.
    pub(super) fn solve_push_relabel(self) -> Result<GpuSolved> {
        let launches_per_round = round_launches()?;
        let stream = self.stream().clone();
        let FlowGpu {
            device,
            residual: mut r,
            source: s,
            sink: t,
            start,
            head,
            pair,
        } = self;
        let kernels = device.push_relabel()?;
        let per_sm = kernels
            .global_relabel
            .occupancy_max_active_blocks_per_multiprocessor(GR_THREADS as u32, 0, None)
            .map_err(GpuError::driver(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            ))?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "global_relabel does not fit on an SM with its block size".into(),
            ));
        }
        let excess = push_relabel::saturate_source(&mut r, s);
        let n = r.vertices;
        let zeros_u32 = |len: usize| {
            stream
                .alloc_zeros::<u32>(len.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        let mut solve = DeviceSolve {
            cap: upload_signed(&stream, &r.capacity)?,
            excess: upload_signed(&stream, &excess)?,
            label: zeros_u32(n as usize)?,
            queues: zeros_u32(2 * n as usize)?,
            ctl: stream
                .alloc_zeros::<u64>(GR_WORDS)
                .map_err(GpuError::driver("cuMemAlloc"))?,
            // A cooperative launch of one block per SM (at least one fits), as the grid
            // barrier between BFS levels needs.
            relabel_grid: LaunchConfig {
                grid_dim: (device.gpu().info().sm_count, 1, 1),
                block_dim: (GR_THREADS as u32, 1, 1),
                shared_mem_bytes: 0,
            },
            // Resident threads fill the GPU; each sweeps its share of vertices CYCLES times.
            sweep: per_list(n),
            launches_per_round,
            stream,
            kernels,
            start: &start,
            head: &head,
            pair: &pair,
            n,
            s,
            t,
            phases: GpuPhases::default(),
            stats: SolveStats::default(),
        };
        solve.phase(t, s, "global_relabel", "push_relabel")?;
        solve.phase(s, t, "return_relabel", "return_push")?;
        let downloaded = Instant::now();
        let capacity = download_unsigned(&solve.stream, &solve.cap, r.capacity.len())?;
        let flows = r.flows_from(&capacity, |c| c);
        Ok(GpuSolved {
            flows,
            stats: solve.stats,
            phases: solve.phases,
            download_seconds: downloaded.elapsed().as_secs_f64(),
        })
    }
}

/// The device state of one push-relabel solve: the residual graph, labels, excesses, the
/// relabelling's two frontier queues and control words, and what has been counted.
struct DeviceSolve<'a> {
    stream: Arc<CudaStream>,
    kernels: &'a PushRelabelKernels,
    start: &'a CudaSlice<u32>,
    head: &'a CudaSlice<u32>,
    pair: &'a CudaSlice<u32>,
    cap: CudaSlice<i64>,
    excess: CudaSlice<i64>,
    label: CudaSlice<u32>,
    queues: CudaSlice<u32>,
    ctl: CudaSlice<u64>,
    relabel_grid: LaunchConfig,
    sweep: LaunchConfig,
    launches_per_round: usize,
    n: u32,
    s: u32,
    t: u32,
    phases: GpuPhases,
    stats: SolveStats,
}

impl DeviceSolve<'_> {
    /// One phase: excess toward `target` (`other` kept out at label n), a global relabelling
    /// before every round of pushes, until a relabelling finds no active vertex. Device time
    /// goes to the phases `relabelled` and `pushed`.
    fn phase(
        &mut self,
        target: u32,
        other: u32,
        relabelled: &'static str,
        pushed: &'static str,
    ) -> Result<()> {
        while self.global_relabel(target, other, relabelled)? > 0 {
            self.round(pushed)?;
        }
        Ok(())
    }

    /// Exact labels toward `target` in one cooperative launch; the active vertices (labelled
    /// below n, holding excess, not a terminal).
    fn global_relabel(&mut self, target: u32, other: u32, name: &'static str) -> Result<u64> {
        let started = record_event(&self.stream)?;
        self.stream
            .memset_zeros(&mut self.ctl)
            .map_err(GpuError::driver("cuMemsetD8"))?;
        let mut launch = self.stream.launch_builder(&self.kernels.global_relabel);
        launch
            .arg(self.start)
            .arg(self.head)
            .arg(self.pair)
            .arg(&self.cap)
            .arg(&self.excess)
            .arg(&mut self.label)
            .arg(&mut self.queues)
            .arg(&self.n)
            .arg(&target)
            .arg(&other)
            .arg(&mut self.ctl);
        // SAFETY: global_relabel(start, head, pair, cap, excess, label, queues, n, target,
        // other, ctl): the residual graph, n labels and excesses, 2n queue entries (each
        // frontier holds a vertex at most once: it enters when its label is claimed), GR_WORDS
        // control words zeroed above; a cooperative launch of co-resident blocks, which its
        // grid barrier needs.
        unsafe { launch.launch_cooperative(self.relabel_grid) }
            .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
        let ended = record_event(&self.stream)?;
        self.phases.add(name, seconds_between(&started, &ended)?);
        let ctl = self
            .stream
            .clone_dtoh(&self.ctl)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        self.phases.launches += 1;
        // One barrier after the initial labels and one after every level.
        self.phases.barriers += ctl[GR_LEVELS] + 1;
        self.stats.phases += 1;
        Ok(ctl[GR_ACTIVE])
    }

    /// `launches_per_round` launches of pushes and relabels.
    fn round(&mut self, name: &'static str) -> Result<()> {
        let started = record_event(&self.stream)?;
        for _ in 0..self.launches_per_round {
            let mut launch = self.stream.launch_builder(&self.kernels.pr_round);
            launch
                .arg(self.start)
                .arg(self.head)
                .arg(self.pair)
                .arg(&mut self.cap)
                .arg(&mut self.label)
                .arg(&mut self.excess)
                .arg(&self.n)
                .arg(&self.s)
                .arg(&self.t);
            // SAFETY: pr_round(start, head, pair, cap, label, excess, n, s, t): the residual
            // graph, n labels and excesses; threads stride over ids below n.
            launched(unsafe { launch.launch(self.sweep) }.map(|_| ()))?;
        }
        let ended = record_event(&self.stream)?;
        self.phases.add(name, seconds_between(&started, &ended)?);
        self.phases.launches += self.launches_per_round as u64;
        self.stats.steps += 1;
        Ok(())
    }
}
