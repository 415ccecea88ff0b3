//! Lock-free push-relabel on the GPU (Hong 2008, kernels in `kernels/push_relabel.cu`) with
//! global relabelling by a BFS from the sink; the excess that cannot reach the sink goes back
//! to the source on the CPU.

use std::time::Instant;

use cudarc::driver::PushKernelArg;
use thicket_core::Result;
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{
    download_unsigned, launched, per_list, per_vertex, upload_signed, FlowGpu, GpuPhases, GpuSolved,
};
use crate::kernels::{LEVELS_PER_READ, ROUND_LAUNCHES};
use crate::mpm::SolveStats;
use crate::push_relabel;

impl FlowGpu<'_> {
    /// Push-relabel: rounds of ROUND_LAUNCHES · CYCLES sweeps, each after a global
    /// relabelling, until no vertex below label n holds excess; then the preflow becomes a
    /// flow on the CPU.
    pub(super) fn solve_push_relabel(self) -> Result<GpuSolved> {
        let stream = self.stream().clone();
        let (s, t) = (self.source, self.sink);
        let mut r = self.residual;
        let excess = push_relabel::saturate_source(&mut r, s);
        let n = r.vertices;
        let mut cap = upload_signed(&stream, &r.capacity)?;
        let mut excess_d = upload_signed(&stream, &excess)?;
        let mut label = stream
            .alloc_zeros::<u32>(n as usize)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut word = stream
            .alloc_zeros::<u32>(1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut labelled = stream
            .alloc_zeros::<u32>(n as usize)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let kernels = self.device.push_relabel()?;
        let (round, gr_init, gr_level, active) = (
            &kernels.pr_round,
            &kernels.gr_init,
            &kernels.gr_level,
            &kernels.pr_active,
        );
        let mut phases = GpuPhases::default();
        let mut stats = SolveStats::default();
        let all = per_vertex(n);
        // Resident threads fill the GPU; each sweeps its share of vertices CYCLES times.
        let sweep = per_list(n);
        loop {
            // Global relabelling: exact distances to the sink over arcs with room.
            let started = record_event(&stream)?;
            let mut launch = stream.launch_builder(gr_init);
            launch.arg(&mut label).arg(&n).arg(&t);
            // SAFETY: gr_init(label, n, t) writes label[0..n).
            launched(unsafe { launch.launch(all) }.map(|_| ()))?;
            stream
                .memset_zeros(&mut labelled)
                .map_err(GpuError::driver("cuMemsetD8"))?;
            // Levels in batches: a level after one that labels nothing labels nothing either.
            let mut depth = 0u32;
            while depth < n {
                let last = (depth + LEVELS_PER_READ).min(n);
                for d in depth..last {
                    let mut launch = stream.launch_builder(gr_level);
                    launch
                        .arg(&self.start)
                        .arg(&self.head)
                        .arg(&self.pair)
                        .arg(&cap)
                        .arg(&mut label)
                        .arg(&n)
                        .arg(&d)
                        .arg(&s)
                        .arg(&mut labelled);
                    // SAFETY: gr_level(start, head, pair, cap, label, n, depth, s, labelled):
                    // the residual graph, n labels, n flags (depth < n).
                    launched(unsafe { launch.launch(all) }.map(|_| ()))?;
                    phases.launches += 1;
                }
                let flag = stream
                    .clone_dtoh(&labelled.slice(last as usize - 1..last as usize))
                    .map_err(GpuError::driver("cuMemcpyDtoH"))?;
                if flag[0] == 0 {
                    break;
                }
                depth = last;
            }
            stream
                .memset_zeros(&mut word)
                .map_err(GpuError::driver("cuMemsetD8"))?;
            let mut launch = stream.launch_builder(active);
            launch
                .arg(&label)
                .arg(&excess_d)
                .arg(&n)
                .arg(&s)
                .arg(&t)
                .arg(&mut word);
            // SAFETY: pr_active(label, excess, n, s, t, count): n entries, one word.
            launched(unsafe { launch.launch(all) }.map(|_| ()))?;
            let count = stream
                .clone_dtoh(&word)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?[0];
            let ended = record_event(&stream)?;
            phases.add("global_relabel", seconds_between(&started, &ended)?);
            phases.launches += 2;
            stats.phases += 1;
            if count == 0 {
                break;
            }
            let started = record_event(&stream)?;
            for _ in 0..ROUND_LAUNCHES {
                let mut launch = stream.launch_builder(round);
                launch
                    .arg(&self.start)
                    .arg(&self.head)
                    .arg(&self.pair)
                    .arg(&mut cap)
                    .arg(&mut label)
                    .arg(&mut excess_d)
                    .arg(&n)
                    .arg(&s)
                    .arg(&t);
                // SAFETY: pr_round(start, head, pair, cap, label, excess, n, s, t): the
                // residual graph, n labels and excesses; threads stride over ids below n.
                launched(unsafe { launch.launch(sweep) }.map(|_| ()))?;
            }
            let ended = record_event(&stream)?;
            phases.add("push_relabel", seconds_between(&started, &ended)?);
            phases.launches += ROUND_LAUNCHES as u64;
            stats.steps += 1;
        }
        let downloaded = Instant::now();
        r.capacity = download_unsigned(&stream, &cap, r.capacity.len())?;
        let excess = download_unsigned(&stream, &excess_d, n as usize)?;
        let mut download_seconds = downloaded.elapsed().as_secs_f64();
        let started = Instant::now();
        let back = push_relabel::return_excess(&mut r, excess, s, t);
        phases.add("host_return", started.elapsed().as_secs_f64());
        stats.relabels = back.relabels;
        let read = Instant::now();
        let flows = r.flows();
        download_seconds += read.elapsed().as_secs_f64();
        Ok(GpuSolved {
            flows,
            stats,
            phases,
            download_seconds,
        })
    }
}
