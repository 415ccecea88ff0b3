//! Lock-free push-relabel on the GPU (Hong 2008, kernels in `kernels/push_relabel.cu`), both
//! phases on the device: the excess toward the sink, then the excess that cannot reach it
//! back to the source. Each phase alternates a global relabelling (a BFS from the phase's
//! target in one cooperative launch, which lists the active vertices as it labels them) and a
//! round of push cycles on work lists (one cooperative launch, which ends where its list
//! empties or after `round_cycles()` cycles), until a relabelling finds no active vertex. Only
//! the residual capacities come back.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{download_unsigned, upload_signed, FlowGpu, GpuSolved};
use crate::cpu::push_relabel;
use crate::kernels::{
    round_cycles, PushRelabelKernels, PR_ACTIVE, PR_CYCLES_RUN, PR_LEVELS, PR_THREADS, PR_WORDS,
};
use crate::report::{GpuPhases, SolveStats};

impl FlowGpu<'_> {
    /// Push-relabel: phase one toward the sink, phase two back to the source; then the flows
    /// are read from the residual capacities.
    pub(super) fn solve_push_relabel(self) -> Result<GpuSolved> {
        let cycles_per_round = round_cycles()?;
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
        for kernel in [&kernels.global_relabel, &kernels.push_cycles] {
            check_resident(kernel)?;
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
            lists: zeros_u32(2 * n as usize)?,
            stamp: zeros_u32(n as usize)?,
            ctl: stream
                .alloc_zeros::<u64>(PR_WORDS)
                .map_err(GpuError::driver("cuMemAlloc"))?,
            // One block per SM, co-resident (checked above), as the grid barrier needs.
            grid: LaunchConfig {
                grid_dim: (device.gpu().info().sm_count, 1, 1),
                block_dim: (PR_THREADS as u32, 1, 1),
                shared_mem_bytes: 0,
            },
            cycles_per_round,
            tag: 1,
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

/// Refuses a kernel of which not one block of PR_THREADS fits an SM (its cooperative launch
/// of one block per SM could not run).
fn check_resident(kernel: &CudaFunction) -> Result<()> {
    let per_sm = kernel
        .occupancy_max_active_blocks_per_multiprocessor(PR_THREADS as u32, 0, None)
        .map_err(GpuError::driver(
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        ))?;
    if per_sm == 0 {
        return Err(Error::Gpu(format!(
            "a push-relabel kernel does not fit on an SM with {PR_THREADS} threads"
        )));
    }
    Ok(())
}

/// The device state of one push-relabel solve: the residual graph, labels, excesses, the
/// relabelling's two frontier queues, the two work lists and their stamps, the launches'
/// control words, and what has been counted.
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
    lists: CudaSlice<u32>,
    stamp: CudaSlice<u32>,
    ctl: CudaSlice<u64>,
    grid: LaunchConfig,
    cycles_per_round: u32,
    /// The first work list's stamp in the next round: above every stamp held.
    tag: u32,
    n: u32,
    s: u32,
    t: u32,
    phases: GpuPhases,
    stats: SolveStats,
}

impl DeviceSolve<'_> {
    /// One phase: excess toward `target` (`other` kept out at label n), a global relabelling
    /// before every round of push cycles, until a relabelling finds no active vertex. Device
    /// time goes to the phases `relabelled` and `pushed`.
    fn phase(
        &mut self,
        target: u32,
        other: u32,
        relabelled: &'static str,
        pushed: &'static str,
    ) -> Result<()> {
        loop {
            let active = self.global_relabel(target, other, relabelled)?;
            if active == 0 {
                return Ok(());
            }
            self.round(active, pushed)?;
        }
    }

    /// Runs `launch` (the control words zeroed first) and reads the control words back; its
    /// device time goes to phase `name`.
    fn cooperative(
        &mut self,
        name: &'static str,
        launch: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<Vec<u64>> {
        let started = record_event(&self.stream)?;
        self.stream
            .memset_zeros(&mut self.ctl)
            .map_err(GpuError::driver("cuMemsetD8"))?;
        launch(self)?;
        let ended = record_event(&self.stream)?;
        self.phases.add(name, seconds_between(&started, &ended)?);
        self.phases.launches += 1;
        Ok(self
            .stream
            .clone_dtoh(&self.ctl)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?)
    }

    /// Exact labels toward `target`, the active vertices listed as the first work list; their
    /// number.
    fn global_relabel(&mut self, target: u32, other: u32, name: &'static str) -> Result<u64> {
        let ctl = self.cooperative(name, |me| {
            let mut launch = me.stream.launch_builder(&me.kernels.global_relabel);
            launch
                .arg(me.start)
                .arg(me.head)
                .arg(me.pair)
                .arg(&me.cap)
                .arg(&me.excess)
                .arg(&mut me.label)
                .arg(&mut me.queues)
                .arg(&mut me.lists)
                .arg(&me.n)
                .arg(&target)
                .arg(&other)
                .arg(&mut me.ctl);
            // SAFETY: global_relabel(start, head, pair, cap, excess, label, queues, active, n,
            // target, other, ctl): the residual graph, n labels and excesses, 2n queue entries
            // and n list entries (a vertex enters a frontier and the list at most once: when
            // its label is claimed), PR_WORDS control words zeroed; a cooperative launch of
            // co-resident blocks, which its grid barrier needs.
            unsafe { launch.launch_cooperative(me.grid) }
                .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
            Ok(())
        })?;
        // One barrier after the initial labels and one after every level.
        self.phases.barriers += ctl[PR_LEVELS] + 1;
        self.stats.phases += 1;
        Ok(ctl[PR_ACTIVE])
    }

    /// Push cycles from the first work list (`first` vertices) until a list empties or the
    /// round's cycles are spent.
    fn round(&mut self, first: u64, name: &'static str) -> Result<()> {
        // The stamps restart before the round's tags could pass 2^32 - 1.
        if self.tag > u32::MAX - self.cycles_per_round - 1 {
            self.stream
                .memset_zeros(&mut self.stamp)
                .map_err(GpuError::driver("cuMemsetD8"))?;
            self.tag = 1;
        }
        let first = first as u32;
        let ctl = self.cooperative(name, |me| {
            let mut launch = me.stream.launch_builder(&me.kernels.push_cycles);
            launch
                .arg(me.start)
                .arg(me.head)
                .arg(me.pair)
                .arg(&mut me.cap)
                .arg(&mut me.label)
                .arg(&mut me.excess)
                .arg(&mut me.lists)
                .arg(&mut me.stamp)
                .arg(&first)
                .arg(&me.cycles_per_round)
                .arg(&me.tag)
                .arg(&me.n)
                .arg(&me.s)
                .arg(&me.t)
                .arg(&mut me.ctl);
            // SAFETY: push_cycles(start, head, pair, cap, label, excess, lists, stamp, first,
            // cycles, tag, n, s, t, ctl): the residual graph, n labels, excesses and stamps
            // (none at or above `tag`), 2n list entries of which the first `first` list the
            // active vertices (a list holds a vertex at most once: its stamp), PR_WORDS control
            // words zeroed; a cooperative launch of co-resident blocks, as its grid barrier
            // needs.
            unsafe { launch.launch_cooperative(me.grid) }
                .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
            Ok(())
        })?;
        self.tag += self.cycles_per_round + 1;
        self.phases.barriers += ctl[PR_CYCLES_RUN];
        self.stats.steps += 1;
        Ok(())
    }
}
