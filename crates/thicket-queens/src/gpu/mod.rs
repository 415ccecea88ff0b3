//! The GPU backend: asymmetric constellations, split into a few million tasks on the host, are
//! counted by a persistent CUDA kernel on every chosen device, while the CPU searches the few
//! symmetric constellations (whose unique count needs each solution's canonical form).
//!
//! total  = 8 * (GPU solutions) + sum over symmetric constellations of class size * solutions
//! unique = GPU solutions + canonical solutions of the symmetric constellations

mod host;
mod launch;
pub mod tasks;

use std::time::Instant;

use serde::Serialize;
use thicket_core::{Error, Progress, Result};
use thicket_gpu::{GpuError, ModuleStats};

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{sum_contributions, validate_n, Contribution, QueensCount};
use crate::search::Plan;

pub use host::count_on_host;
pub use launch::QUEENS_KERNEL;
use tasks::{split, split_auto, stack_levels, target_tasks, Task};

/// How to run a GPU count.
#[derive(Debug, Clone, Default)]
pub struct GpuOptions {
    /// Device ordinals to use; all visible devices when `None`.
    pub devices: Option<Vec<usize>>,
    /// Inner rows filled on the host before the tasks go to the GPU; chosen from `n` when
    /// `None`.
    pub depth: Option<usize>,
    /// CPU threads for the host's share (task generation, symmetric constellations); all
    /// cores when `None`.
    pub threads: Option<usize>,
}

/// The result of a GPU count and how it was obtained.
#[derive(Debug, Clone, Serialize)]
pub struct GpuCount {
    /// The solution counts.
    pub count: QueensCount,
    /// Names of the devices used, in the order given.
    pub devices: Vec<String>,
    /// How the kernel was obtained on each device (compiled or from the cache, and how long).
    pub modules: Vec<ModuleStats>,
    /// Tasks counted on the GPUs.
    pub tasks: usize,
    /// Inner rows filled on the host.
    pub depth: usize,
    /// Seconds to open the devices and load the kernel (overlapping the task generation).
    pub setup_seconds: f64,
    /// Seconds from the first launch to the last result.
    pub kernel_seconds: f64,
}

/// Whether a constellation's search goes to the GPU: asymmetric ones, where every solution
/// counts once towards the unique total, with at least one row to fill.
pub fn goes_to_gpu(constellation: &CanonicalConstellation, plan: &Plan) -> bool {
    constellation.is_asymmetric() && plan.depth() >= 1
}

/// Counts all and fundamental solutions of `n` queens on the GPUs (and the CPU for the
/// symmetric constellations).
///
/// Fails with [`Error::Unavailable`] when no GPU can be used (no driver, no device, no NVRTC, a
/// device ordinal that does not exist) and with [`Error::Gpu`] when a device fails while
/// counting.
pub fn count_gpu(n: usize, options: &GpuOptions, progress: &Progress) -> Result<GpuCount> {
    validate_n(n)?;
    if options.devices.as_ref().is_some_and(|d| d.is_empty()) {
        return Err(Error::InvalidInput("--devices lists no device".into()));
    }
    match options.threads {
        Some(0) => Err(Error::InvalidInput("--threads must be at least 1".into())),
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Unavailable(format!("cannot start {threads} CPU threads: {e}")))?
            .install(|| count_gpu_here(n, options, progress)),
        None => count_gpu_here(n, options, progress),
    }
}

/// [`count_gpu`] with the host's share on the current rayon pool.
fn count_gpu_here(n: usize, options: &GpuOptions, progress: &Progress) -> Result<GpuCount> {
    let started = Instant::now();
    let constellations = canonical_constellations(n);
    std::thread::scope(|scope| {
        let setup = scope.spawn(|| {
            let devices = launch::open_devices(options.devices.as_deref());
            (devices, started.elapsed().as_secs_f64())
        });
        let plans: Vec<Plan> = constellations
            .iter()
            .map(|c| Plan::new(n, c.constellation))
            .collect();
        let gpu_plans: Vec<&Plan> = constellations
            .iter()
            .zip(&plans)
            .filter(|(c, p)| goes_to_gpu(c, p))
            .map(|(_, p)| p)
            .collect();
        let (tasks, depth) = match options.depth {
            Some(depth) => (split(n, &gpu_plans, depth), depth),
            None => split_auto(n, &gpu_plans, target_tasks(n)),
        };
        let words: Vec<u32> = tasks.iter().flat_map(Task::pack).collect();
        let (devices, setup_seconds) = setup.join().expect("device set-up does not panic");
        let mut devices = devices.map_err(unavailable)?;
        // Only now, with the GPUs known to work, so that a fallback to the CPU wastes nothing.
        let host = scope.spawn(|| count_on_host(n, &constellations, |c, p| !goes_to_gpu(c, p)));
        progress.set_total(tasks.len() as u64);
        let kernel_started = Instant::now();
        let chunk = chunk_size(tasks.len(), devices.len());
        let counts = launch::count_tasks(
            &mut devices,
            n,
            &words,
            stack_levels(&tasks),
            chunk,
            &|done| progress.inc(done as u64),
        )
        .map_err(|e| Error::Gpu(one_line(&e)))?;
        let kernel_seconds = kernel_started.elapsed().as_secs_f64();
        let gpu_parts = counts.into_iter().map(Contribution::asymmetric);
        let host_part = host.join().expect("the host search does not panic")?;
        let sum = sum_contributions(gpu_parts.chain(std::iter::once(host_part)))?;
        Ok(GpuCount {
            count: sum.into_count(n),
            devices: devices.iter().map(|d| d.name().to_owned()).collect(),
            modules: devices.iter().map(|d| d.stats.clone()).collect(),
            tasks: tasks.len(),
            depth,
            setup_seconds,
            kernel_seconds,
        })
    })
}

/// Tasks per queue chunk: one launch per device and a few more so that a faster device takes
/// more, but not so many that launch overhead and per-launch tails add up.
fn chunk_size(tasks: usize, devices: usize) -> usize {
    if devices <= 1 {
        tasks.max(1)
    } else {
        tasks.div_ceil(devices * 8).max(1)
    }
}

/// A GPU error that stops the backend from starting.
fn unavailable(error: GpuError) -> Error {
    match error {
        GpuError::Compile { .. } => Error::Gpu(one_line(&error)),
        other => Error::Unavailable(one_line(&other)),
    }
}

/// The error's message on one line (NVRTC logs span several).
fn one_line(error: &GpuError) -> String {
    error
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
