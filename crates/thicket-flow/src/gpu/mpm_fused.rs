//! `mpm-active`: the thesis's active-vertices MPM in one cooperative launch
//! (`kernels/mpm_fused.cu`): grid barriers instead of the host's loops, lists of active
//! vertices by atomic appends. The lead thread's clock splits the launch's event time into
//! the phases.

use std::time::Instant;

use cudarc::driver::{LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{download_unsigned, upload_signed, FlowGpu, GpuSolved};
use crate::kernels::{
    FUSED_CTL_WORDS, FUSED_THREADS, SLOT_BASE, SLOT_WORDS, STAT_PHASES, STAT_ROUNDS, STAT_STEPS,
    TIME_LAYERED, TIME_PRUNE, TIME_PUSH_PULL,
};
use crate::report::{GpuPhases, SolveStats};

impl FlowGpu<'_> {
    /// `mpm-active`: the whole solve in one cooperative launch of `mpm_fused`, one block per
    /// SM (the grid barrier needs the grid co-resident); only the residual capacities and the
    /// control words come back.
    pub(super) fn solve_fused(self) -> Result<GpuSolved> {
        let stream = self.stream().clone();
        let (s, t) = (self.source, self.sink);
        let r = &self.residual;
        let n = r.vertices as usize;
        let kernel = &self.device.fused()?.mpm_fused;
        let per_sm = kernel
            .occupancy_max_active_blocks_per_multiprocessor(FUSED_THREADS as u32, 0, None)
            .map_err(GpuError::driver(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            ))?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "mpm_fused does not fit on an SM with its block size".into(),
            ));
        }
        let mut cap = upload_signed(&stream, &r.capacity)?;
        let zeros_u32 = |len: usize| {
            stream
                .alloc_zeros::<u32>(len.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        let zeros_i64 = |len: usize| {
            stream
                .alloc_zeros::<i64>(len.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        let (mut level, mut alive, mut flags) = (zeros_u32(n)?, zeros_u32(n)?, zeros_u32(n)?);
        let (mut list0, mut list1) = (zeros_u32(n)?, zeros_u32(n)?);
        let (mut inward, mut outward, mut held) = (zeros_i64(n)?, zeros_i64(n)?, zeros_i64(n)?);
        let mut words = vec![0u64; FUSED_CTL_WORDS];
        for slot in 0..3 {
            // Each slot's least potential and vertex start at "none".
            words[SLOT_BASE + slot * SLOT_WORDS + 2] = u64::MAX;
            words[SLOT_BASE + slot * SLOT_WORDS + 3] = u64::MAX;
        }
        let mut ctl = stream
            .clone_htod(&words)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let config = LaunchConfig {
            grid_dim: (self.gpu().info().sm_count, 1, 1),
            block_dim: (FUSED_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let n_arg = n as u32;
        let started = record_event(&stream)?;
        let mut launch = stream.launch_builder(kernel);
        launch
            .arg(&self.start)
            .arg(&self.head)
            .arg(&self.pair)
            .arg(&mut cap)
            .arg(&mut level)
            .arg(&mut alive)
            .arg(&mut inward)
            .arg(&mut outward)
            .arg(&mut held)
            .arg(&mut flags)
            .arg(&mut list0)
            .arg(&mut list1)
            .arg(&n_arg)
            .arg(&s)
            .arg(&t)
            .arg(&mut ctl);
        // SAFETY: mpm_fused(start (n + 1), head, pair, cap (per residual arc), level, alive,
        // in, out, held, flags (zero), two lists (n each), n, s, t, ctl (FUSED_CTL_WORDS, set
        // as the kernel expects)); a list holds a vertex at most once (its flag), so n entries
        // suffice; a cooperative launch of one block per SM (at least one fits), which the
        // grid barrier needs.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
        let ended = record_event(&stream)?;
        let kernel_seconds = seconds_between(&started, &ended)?;
        let downloaded = Instant::now();
        let words = stream
            .clone_dtoh(&ctl)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let cap = download_unsigned(&stream, &cap, r.capacity.len())?;
        let flows = r.flows_from(&cap, |c| c);
        Ok(GpuSolved {
            flows,
            stats: SolveStats {
                phases: words[STAT_PHASES],
                steps: words[STAT_STEPS],
                ..SolveStats::default()
            },
            phases: fused_phases(&words, kernel_seconds),
            download_seconds: downloaded.elapsed().as_secs_f64(),
        })
    }
}

/// The one-launch MPM's per-phase split: the lead thread's clock (nanoseconds) scaled to the
/// launch's event time, so that the phases add up to it.
fn fused_phases(words: &[u64], kernel_seconds: f64) -> GpuPhases {
    let parts = [
        ("layered", words[TIME_LAYERED]),
        ("prune", words[TIME_PRUNE]),
        ("push_pull", words[TIME_PUSH_PULL]),
    ];
    let clocked: u64 = parts.iter().map(|(_, ns)| ns).sum();
    let mut phases = GpuPhases {
        launches: 1,
        ..GpuPhases::default()
    };
    for (name, ns) in parts {
        let share = if clocked == 0 {
            0.0
        } else {
            ns as f64 / clocked as f64
        };
        phases.add(name, share * kernel_seconds);
    }
    phases.barriers = words[STAT_ROUNDS];
    phases
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lead thread's clock splits the launch's event time in its proportions, and the
    /// barrier count comes through.
    #[test]
    fn the_one_launch_phases_add_up_to_the_launch() {
        let mut words = vec![0u64; FUSED_CTL_WORDS];
        words[TIME_LAYERED] = 1_000;
        words[TIME_PRUNE] = 3_000;
        words[TIME_PUSH_PULL] = 6_000;
        words[STAT_ROUNDS] = 42;
        let phases = fused_phases(&words, 2.0);
        let share = |name: &str| {
            phases
                .seconds
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| *s)
        };
        assert_eq!(share("layered"), Some(0.2));
        assert_eq!(share("prune"), Some(0.6));
        assert_eq!(share("push_pull"), Some(1.2));
        assert!((phases.total_seconds() - 2.0).abs() < 1e-12);
        assert_eq!((phases.launches, phases.barriers), (1, 42));
        // A launch too short for the clock: no split, no division by zero.
        let none = fused_phases(&[0u64; FUSED_CTL_WORDS], 0.5);
        assert_eq!(none.total_seconds(), 0.0);
    }
}
