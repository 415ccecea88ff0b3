//! The thesis's multi-swarm PSO on the GPU (kernels in `kernels/mspso.cu`; Solomon 2012,
//! §6.4): per iteration the fitness (shared-memory scratch while a block's loads fit, global
//! otherwise), the bests, the position update, and every K iterations the ring exchange;
//! random numbers are made in bulk, as many iterations' worth at once as fit in
//! [`RANDOM_BYTES`]. The same arithmetic and random numbers as [`crate::cpu::pso::run`], so the
//! schedules are the serial swarms' exactly.

use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use serde::Serialize;
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, Gpu, GpuError};

use super::functions;
use crate::cpu::pso::{first_min, round, SwarmParams, SwarmRun};
use crate::etc::Etc;
use crate::kernels::{MAX_PARTICLES, MSPSO, SHARED_SCRATCH_BYTES, THREADS};

/// The phases a profiled GPU swarm run splits its device time into (the thesis's Table 6.1
/// rows, and the initialisation).
pub const SWARM_PHASES: [&str; 6] = ["init", "random", "fitness", "bests", "update", "exchange"];

/// Records an event after phase `phase` when profiling.
fn mark(
    stream: &CudaStream,
    marks: &mut Option<Vec<(usize, CudaEvent)>>,
    phase: usize,
) -> Result<()> {
    if let Some(marks) = marks {
        marks.push((phase, record_event(stream)?));
    }
    Ok(())
}

/// Bytes of device memory for a batch of random numbers (the thesis refilled 250 MB chunks).
pub const RANDOM_BYTES: usize = 256 << 20;

/// Where the fitness kernel keeps each particle's machine loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scratch {
    /// Shared memory: P · M floats per block.
    Shared,
    /// Global memory.
    Global,
}

impl Scratch {
    /// Whether this scratch holds the loads of `particles` × `machines`: the global one
    /// always, the shared one within [`SHARED_SCRATCH_BYTES`] a block; [`Error::TooLarge`]
    /// where it does not (a bench skips that case).
    pub fn check(self, particles: usize, machines: usize) -> Result<()> {
        match self {
            Scratch::Shared
                if particles.saturating_mul(machines).saturating_mul(4) > SHARED_SCRATCH_BYTES =>
            {
                Err(Error::TooLarge(format!(
                    "shared scratch does not fit ({particles} particles x {machines} machines x \
                     4 bytes > {SHARED_SCRATCH_BYTES} bytes): global only"
                )))
            }
            _ => Ok(()),
        }
    }
}

/// A GPU swarm run.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuSwarmRun {
    /// The schedule, as [`crate::cpu::pso::run`] reports it.
    pub run: SwarmRun,
    /// The fitness kernel's scratch.
    pub scratch: Scratch,
    /// The GPU's name.
    pub device: String,
    /// Seconds of device time from the first launch to the last (CUDA events).
    pub kernel_seconds: f64,
    /// Profiled runs: device seconds per phase of [`SWARM_PHASES`] (an event after every launch,
    /// which slows the run a little).
    pub phase_seconds: Option<Vec<f64>>,
}

fn grid(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(THREADS).clamp(1, 65_535) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn per_swarm(swarms: usize, particles: usize, shared: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (swarms as u32, 1, 1),
        block_dim: (particles as u32, 1, 1),
        shared_mem_bytes: shared as u32,
    }
}

/// The scratch the fitness kernel uses for `particles` × `machines`, or the one forced.
fn scratch_for(particles: usize, machines: usize, forced: Option<Scratch>) -> Scratch {
    forced.unwrap_or(match Scratch::Shared.check(particles, machines) {
        Ok(()) => Scratch::Shared,
        Err(_) => Scratch::Global,
    })
}

/// Runs the swarms on GPU `device`; with `profile`, timing every phase. Where `stop` is
/// raised, no further iteration is queued and the swarms' bests so far are the answer.
pub fn run(
    etc: &Etc,
    params: &SwarmParams,
    seed: u64,
    device: usize,
    forced: Option<Scratch>,
    profile: bool,
    stop: Option<&AtomicBool>,
) -> Result<GpuSwarmRun> {
    let (t_n, m_n) = (etc.tasks(), etc.machines());
    let (s_n, p_n) = (params.swarms.max(1), params.particles.max(1));
    if p_n > MAX_PARTICLES || s_n > 65_535 || t_n > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "the GPU swarms take at most {MAX_PARTICLES} particles and 65,535 swarms, not \
             {p_n} and {s_n}"
        )));
    }
    let scratch = scratch_for(p_n, m_n, forced);
    scratch.check(p_n, m_n)?;
    let n = s_n
        .checked_mul(p_n)
        .and_then(|sp| sp.checked_mul(t_n))
        .ok_or_else(|| Error::InvalidInput("too many swarm elements".into()))?;
    let gpu = Gpu::shared(device)?;
    let [init, fill, fit_shared, fit_global, bests, update, rank, gather, scatter] = functions(
        &gpu,
        &MSPSO,
        [
            "pso_init",
            "pso_fill_random",
            "pso_fitness_shared",
            "pso_fitness_global",
            "pso_bests",
            "pso_update",
            "pso_rank",
            "pso_gather",
            "pso_scatter",
        ],
    )?;
    let stream = gpu.stream().clone();
    let alloc = |count: usize| -> Result<CudaSlice<f32>> {
        Ok(stream
            .alloc_zeros::<f32>(count.max(1))
            .map_err(GpuError::driver("cuMemAlloc"))?)
    };
    let etc32: Vec<f32> = etc.times().iter().map(|&t| t as f32).collect();
    let d_etc = stream
        .clone_htod(&etc32)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let (mut x, mut v, mut pbest) = (alloc(n)?, alloc(n)?, alloc(n)?);
    let infinity = vec![f32::INFINITY; s_n * p_n];
    let mut pbest_fit = stream
        .clone_htod(&infinity)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let mut gbest_fit = stream
        .clone_htod(&infinity[..s_n])
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let mut gbest = alloc(s_n * t_n)?;
    let mut fit = alloc(s_n * p_n)?;
    let mut global_scratch = alloc(match scratch {
        Scratch::Global => s_n * p_n * m_n,
        Scratch::Shared => 1,
    })?;
    let chunk = (RANDOM_BYTES / (12 * n)).clamp(1, params.iterations.max(1));
    let mut rands = alloc(3 * n * chunk)?;
    let exchanged = params.exchanged.min(p_n / 2);
    let exchanging = s_n > 1 && params.exchange_every > 0 && exchanged > 0;
    let mut best_idx = stream
        .alloc_zeros::<u32>((s_n * exchanged).max(1))
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let mut worst_idx = stream
        .alloc_zeros::<u32>((s_n * exchanged).max(1))
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let mut moved = alloc(3 * s_n * exchanged * t_n)?;
    let mut moved_fit = alloc(s_n * exchanged)?;
    let launch_error = GpuError::driver("cuLaunchKernel");
    let (n64, xmax) = (n as u64, (m_n - 1) as f32);
    let (t32, m32, p32, s32) = (t_n as u32, m_n as u32, p_n as u32, s_n as u32);
    let all = (s_n * p_n) as u32;
    let ex32 = exchanged as u32;
    let start = record_event(&stream)?;
    let mut marks = profile.then(Vec::new);
    {
        let mut l = stream.launch_builder(&init);
        l.arg(&mut x).arg(&mut v).arg(&n64).arg(&xmax).arg(&seed);
        // SAFETY: pso_init(x, v, n, xmax, seed) writes x[0..n) and v[0..n).
        unsafe { l.launch(grid(n)) }.map_err(launch_error)?;
    }
    mark(&stream, &mut marks, 0)?;
    let mut w = params.inertia;
    let mut filled_from = 0u64;
    for iteration in 0..params.iterations {
        // The caller's Ctrl-C (Python): the swarms' bests so far are a schedule, so stop
        // queueing iterations (the launches already queued drain before the read-back).
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            break;
        }
        let it = iteration as u64 + 1;
        if iteration % chunk == 0 {
            filled_from = it;
            let count = (chunk.min(params.iterations - iteration)) as u64;
            let mut l = stream.launch_builder(&fill);
            l.arg(&mut rands)
                .arg(&n64)
                .arg(&seed)
                .arg(&filled_from)
                .arg(&count);
            // SAFETY: pso_fill_random writes rands[0 .. 3·n·count), count <= chunk.
            unsafe { l.launch(grid(3 * n * count as usize)) }
                .map_err(GpuError::driver("cuLaunchKernel"))?;
            mark(&stream, &mut marks, 1)?;
        }
        match scratch {
            Scratch::Shared => {
                let mut l = stream.launch_builder(&fit_shared);
                l.arg(&x).arg(&d_etc).arg(&mut fit).arg(&t32).arg(&m32);
                // SAFETY: one block of P threads per swarm, P·M floats of shared scratch;
                // positions are clamped to [0, M - 1], so every rounded index is a machine.
                unsafe { l.launch(per_swarm(s_n, p_n, p_n * m_n * 4)) }
                    .map_err(GpuError::driver("cuLaunchKernel"))?;
            }
            Scratch::Global => {
                let mut l = stream.launch_builder(&fit_global);
                l.arg(&x)
                    .arg(&d_etc)
                    .arg(&mut fit)
                    .arg(&mut global_scratch)
                    .arg(&t32)
                    .arg(&m32)
                    .arg(&all);
                // SAFETY: as above, the scratch holds M floats for each of the S·P particles.
                unsafe { l.launch(per_swarm(s_n, p_n, 0)) }
                    .map_err(GpuError::driver("cuLaunchKernel"))?;
            }
        }
        mark(&stream, &mut marks, 2)?;
        {
            let mut l = stream.launch_builder(&bests);
            l.arg(&x)
                .arg(&fit)
                .arg(&mut pbest)
                .arg(&mut pbest_fit)
                .arg(&mut gbest)
                .arg(&mut gbest_fit)
                .arg(&t32);
            // SAFETY: one block of P <= MAX_PARTICLES threads per swarm over its own slices.
            unsafe { l.launch(per_swarm(s_n, p_n, 0)) }
                .map_err(GpuError::driver("cuLaunchKernel"))?;
        }
        mark(&stream, &mut marks, 3)?;
        {
            let offset = (it - filled_from) as usize * 3 * n;
            let view = rands.slice(offset..offset + 3 * n);
            let mut l = stream.launch_builder(&update);
            l.arg(&mut x)
                .arg(&mut v)
                .arg(&pbest)
                .arg(&gbest)
                .arg(&view)
                .arg(&n64)
                .arg(&s32)
                .arg(&t32)
                .arg(&p32)
                .arg(&w)
                .arg(&params.c1)
                .arg(&params.c2)
                .arg(&params.c3)
                .arg(&xmax);
            // SAFETY: pso_update touches element i < n of x, v, pbest and 3n random numbers.
            unsafe { l.launch(grid(n)) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        }
        mark(&stream, &mut marks, 4)?;
        w *= params.decay;
        if exchanging && (iteration + 1) % params.exchange_every == 0 {
            let mut l = stream.launch_builder(&rank);
            l.arg(&fit)
                .arg(&mut best_idx)
                .arg(&mut worst_idx)
                .arg(&ex32);
            // SAFETY: one block per swarm writes its n best and worst indices.
            unsafe { l.launch(per_swarm(s_n, p_n, 0)) }
                .map_err(GpuError::driver("cuLaunchKernel"))?;
            let count = s_n * exchanged * t_n;
            let mut l = stream.launch_builder(&gather);
            l.arg(&x)
                .arg(&v)
                .arg(&pbest)
                .arg(&pbest_fit)
                .arg(&best_idx)
                .arg(&mut moved)
                .arg(&mut moved_fit)
                .arg(&s32)
                .arg(&t32)
                .arg(&p32)
                .arg(&ex32);
            // SAFETY: reads particles named by best_idx (< P), writes 3·count + S·n moved values.
            unsafe { l.launch(grid(count)) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            let mut l = stream.launch_builder(&scatter);
            l.arg(&mut x)
                .arg(&mut v)
                .arg(&mut pbest)
                .arg(&mut pbest_fit)
                .arg(&worst_idx)
                .arg(&moved)
                .arg(&moved_fit)
                .arg(&s32)
                .arg(&t32)
                .arg(&p32)
                .arg(&ex32);
            // SAFETY: writes particles named by worst_idx (< P) of the next swarm.
            unsafe { l.launch(grid(count)) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            mark(&stream, &mut marks, 5)?;
        }
    }
    let end = record_event(&stream)?;
    let kernel_seconds = seconds_between(&start, &end)?;
    let phase_seconds = match marks {
        Some(marks) => {
            let mut seconds = vec![0.0; SWARM_PHASES.len()];
            let mut previous = &start;
            for (phase, event) in &marks {
                seconds[*phase] += seconds_between(previous, event)?;
                previous = event;
            }
            Some(seconds)
        }
        None => None,
    };
    let fits = stream
        .clone_dtoh(&gbest_fit)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?;
    let positions = stream
        .clone_dtoh(&gbest)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?;
    let s = first_min(&fits);
    let assignment = positions[s * t_n..(s + 1) * t_n]
        .iter()
        .map(|&x| round(x) as u32)
        .collect();
    Ok(GpuSwarmRun {
        run: SwarmRun {
            assignment,
            makespan: fits[s],
        },
        scratch,
        device: gpu.info().name.clone(),
        kernel_seconds,
        phase_seconds,
    })
}
