//! The GPU backend: every canonical constellation, split into a few million tasks on the host,
//! is counted by a persistent CUDA kernel on every chosen device, through a dynamic work queue.
//!
//! total  = sum over constellations of class size * solutions (weighted in the kernel)
//! unique = by Burnside's lemma from the total and the rotation-symmetric solutions, which the
//!          CPU counts while the GPUs run (see `rotations`); the CPU backend gets it
//!          by a canonical-form check instead, so the two backends check each other.

mod launch;
pub mod tasks;

use std::sync::mpsc;
use std::time::Instant;

use serde::Serialize;
use thicket_core::{Error, Progress, Result};
use thicket_gpu::ModuleStats;

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{validate_n, QueensCount};
use crate::rotations::unique_from_total;
use crate::search::Plan;

pub use launch::Queue;
use tasks::{gpu_plans, target_tasks, GpuPlan, PackedTasks, TaskCounts, MAX_N};

/// How to run a GPU count.
#[derive(Debug, Clone, Default)]
pub struct GpuOptions {
    /// Device ordinals to use; all visible devices when `None`.
    pub devices: Option<Vec<usize>>,
    /// Inner rows filled on the host before the tasks go to the GPU; chosen from `n` when
    /// `None`.
    pub depth: Option<usize>,
    /// CPU threads for the host's share (task generation, the rotation-symmetric solutions
    /// for the unique count); all cores when `None`.
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
    /// How the tasks were spread over the GPUs.
    pub queue: Queue,
    /// Inner rows filled on the host.
    pub depth: usize,
    /// Constellations handed out last, split a row deeper than `depth` so that the launches
    /// end together.
    pub tail_plans: usize,
    /// Seconds until the last device was open with the kernel loaded (overlapping the task
    /// generation and, with peer links, the first devices' counting).
    pub setup_seconds: f64,
    /// Seconds to enumerate the constellations and split them into tasks on the host.
    pub tasks_seconds: f64,
    /// Seconds from the first launch to the last result.
    pub kernel_seconds: f64,
}

/// Solutions made of border queens alone (constellations with no row to fill), weighted.
pub fn border_only_total(n: usize, constellations: &[CanonicalConstellation]) -> u128 {
    constellations
        .iter()
        .filter(|c| Plan::new(n, c.constellation).depth() == 0)
        .map(|c| u128::from(c.class_size()))
        .sum()
}

/// Refuses what the GPU backend cannot count: a board outside 1..=32 or an empty device list
/// (invalid input), a board beyond the kernel's N = 27 ([`Error::Unavailable`], so that
/// `--backend auto` counts it on the CPU instead).
fn check_request(n: usize, options: &GpuOptions) -> Result<()> {
    validate_n(n)?;
    if n > MAX_N {
        return Err(Error::Unavailable(format!(
            "the GPU kernel counts boards up to N = {MAX_N}, not N = {n}"
        )));
    }
    if options.devices.as_ref().is_some_and(|d| d.is_empty()) {
        return Err(Error::InvalidInput("the device list is empty".into()));
    }
    Ok(())
}

/// Counts all and fundamental solutions of `n` queens (1 <= n <= 27) on the GPUs; larger
/// boards are [`Error::Unavailable`] here, so `--backend auto` falls back to the CPU.
///
/// Fails with [`Error::Unavailable`] when no GPU can be used (no driver, no device, no NVRTC, a
/// device ordinal that does not exist) and with [`Error::Gpu`] when a device fails while
/// counting.
pub fn count_gpu(n: usize, options: &GpuOptions, progress: &Progress) -> Result<GpuCount> {
    check_request(n, options)?;
    match options.threads {
        Some(0) => Err(Error::InvalidInput(
            "the thread count must be at least 1".into(),
        )),
        Some(threads) => {
            thicket_core::on_threads(threads, || count_gpu_here(n, options, progress))?
        }
        None => count_gpu_here(n, options, progress),
    }
}

/// [`count_gpu`] with the host's share on the current rayon pool.
fn count_gpu_here(n: usize, options: &GpuOptions, progress: &Progress) -> Result<GpuCount> {
    let started = Instant::now();
    std::thread::scope(|scope| {
        // The driver starts up while the host splits the work.
        let probe = scope.spawn(|| launch::Opening::start(options.devices.as_deref(), started));
        let constellations = canonical_constellations(n);
        let work = Work::new(n, &constellations, options.depth);
        let tasks_seconds = started.elapsed().as_secs_f64();
        let opening = probe
            .join()
            .expect("the driver probe does not panic")
            .map_err(Error::from)?;
        let fixed = scope.spawn(|| {
            use crate::rotations::{count_fixed, Turn};
            (count_fixed(n, Turn::Half), count_fixed(n, Turn::Quarter))
        });
        progress.set_total(work.counts.work());
        let kernel_started = Instant::now();
        let (total, queue, devices) = work.count_opening(opening, progress)?;
        // The watchers report tasks handed out; now every one is also finished.
        progress.advance_to(work.counts.work());
        let kernel_seconds = kernel_started.elapsed().as_secs_f64();
        let (half, quarter) = fixed.join().expect("the rotation search does not panic");
        let unique = unique_from_total(n, total, half, quarter)?;
        let count = GpuCount {
            count: QueensCount { n, total, unique },
            devices: devices.iter().map(|d| d.name().to_owned()).collect(),
            modules: devices.iter().map(|d| d.stats.clone()).collect(),
            tasks: work.counts.total(),
            queue,
            depth: work.counts.depth(),
            tail_plans: work.counts.deeper_plans(),
            setup_seconds: devices.iter().map(|d| d.ready_seconds).fold(0.0, f64::max),
            tasks_seconds,
            kernel_seconds,
        };
        Ok(count)
    })
}

/// Canonical constellations split into packed GPU tasks, ready to count on any devices.
struct Work {
    n: usize,
    plan_words: Vec<u32>,
    task_words: Vec<u32>,
    levels: usize,
    counts: TaskCounts,
    border_only: u128,
}

impl Work {
    /// Splits `constellations` of `n` `depth` rows deep, or (when `None`) at a depth chosen from
    /// `n` with the tail handed out last a row deeper.
    fn new(n: usize, constellations: &[CanonicalConstellation], depth: Option<usize>) -> Work {
        let plans = gpu_plans(n, &hand_out_order(n, constellations.to_vec()));
        let counts = match depth {
            Some(depth) => TaskCounts::at(n, &plans, depth),
            None => TaskCounts::auto(n, &plans, target_tasks(n)),
        };
        let PackedTasks { words, levels } = PackedTasks::new(n, &plans, &counts);
        Work {
            n,
            plan_words: plans.iter().flat_map(GpuPlan::pack).collect(),
            task_words: words,
            levels,
            counts,
            border_only: border_only_total(n, constellations),
        }
    }

    /// The weighted total of every constellation, counted on the devices of `opening`, each
    /// starting as soon as it is ready where they share peer links; how the tasks were spread,
    /// and the devices.
    fn count_opening(
        &self,
        opening: launch::Opening,
        progress: &Progress,
    ) -> Result<(u128, Queue, Vec<launch::Device>)> {
        if self.counts.total() == 0 || !opening.peer() {
            let mut devices = opening.all().map_err(Error::from)?;
            let (total, queue) = self.count(&mut devices, progress)?;
            return Ok((total, queue, devices));
        }
        let (devices, counts) = launch::count_streamed(
            opening,
            self.n,
            &self.plan_words,
            &self.task_words,
            self.levels,
            &|handed_out| progress.advance_to(self.counts.work_done(handed_out)),
        )
        .map_err(Error::from)?;
        Ok((self.weighted_total(counts)?, Queue::PeerCounter, devices))
    }

    /// The weighted total of every constellation, counted on `devices`, and how the tasks
    /// were spread over them.
    fn count(&self, devices: &mut [launch::Device], progress: &Progress) -> Result<(u128, Queue)> {
        if self.counts.total() == 0 {
            return Ok((self.border_only, Queue::Single));
        }
        let chunk = chunk_size(self.counts.total(), devices.len());
        let (counts, queue) = launch::count_tasks(
            devices,
            self.n,
            &self.plan_words,
            &self.task_words,
            self.levels,
            chunk,
            &|reached| progress.advance_to(self.counts.work_done(reached)),
        )
        .map_err(Error::from)?;
        Ok((self.weighted_total(counts)?, queue))
    }

    /// The border-only solutions plus the launches' weighted `counts`.
    fn weighted_total(&self, counts: Vec<u64>) -> Result<u128> {
        counts
            .into_iter()
            .map(u128::from)
            .try_fold(self.border_only, u128::checked_add)
            .ok_or_else(|| Error::Overflow("the solution count exceeds 128 bits".into()))
    }
}

/// Open GPUs with the kernel loaded, counting any list of canonical constellations of one
/// board: the engine of ledgered GPU runs, which count batch after batch on the same devices.
pub struct GpuCounter {
    n: usize,
    depth: Option<usize>,
    devices: Vec<launch::Device>,
}

impl GpuCounter {
    /// Opens the devices of `options` for boards of `n` (1 <= n <= 27); fails like
    /// [`count_gpu`] when no GPU can be used.
    pub fn open(n: usize, options: &GpuOptions) -> Result<GpuCounter> {
        check_request(n, options)?;
        let devices = launch::open_devices(options.devices.as_deref()).map_err(Error::from)?;
        Ok(GpuCounter {
            n,
            depth: options.depth,
            devices,
        })
    }

    /// Names of the open devices.
    pub fn device_names(&self) -> Vec<String> {
        self.devices.iter().map(|d| d.name().to_owned()).collect()
    }

    /// Counts `batches` (canonical constellations of this counter's board, each with an id) one
    /// after the other, the next one split into tasks on the host while the devices count the
    /// current one, and calls `done(id, total, seconds)` as each finishes: `total` is its
    /// weighted total, `seconds` the wall time since the one before finished (so they add up
    /// to the run's). An error from `done` or from a device ends the run with that error.
    ///
    /// Splitting and uploading a batch cost about half as long as counting a default batch at
    /// N = 20-21, during which the GPUs waited (docs/long-runs.md).
    pub fn count_batches<'a>(
        &mut self,
        batches: impl Iterator<Item = (u64, &'a [CanonicalConstellation])> + Send,
        mut done: impl FnMut(u64, u128, f64) -> Result<()>,
    ) -> Result<()> {
        let (n, depth) = (self.n, self.depth);
        std::thread::scope(|scope| {
            // One batch split ahead. Leaving early drops `ready`, which ends the splitter.
            let (prepared, ready) = mpsc::sync_channel(1);
            scope.spawn(move || {
                for (id, batch) in batches {
                    if prepared.send((id, Work::new(n, batch, depth))).is_err() {
                        break;
                    }
                }
            });
            let mut last = Instant::now();
            for (id, work) in ready {
                let (total, _) = work.count(&mut self.devices, &Progress::hidden())?;
                done(id, total, last.elapsed().as_secs_f64())?;
                last = Instant::now();
            }
            Ok(())
        })
    }

    /// The weighted total (class size times solutions, summed) of `constellations`, which
    /// must be canonical constellations of this counter's board.
    pub fn count(&mut self, constellations: &[CanonicalConstellation]) -> Result<u128> {
        Work::new(self.n, constellations, self.depth)
            .count(&mut self.devices, &Progress::hidden())
            .map(|(total, _)| total)
    }
}

/// Tasks per queue chunk, for devices that cannot share one task counter (no peer atomics).
/// Every launch ends with a tail about as long as its largest task, so there are few chunks:
/// 2 a device from the dynamic queue, so that a faster device takes more (the alternatives
/// measured: docs/benchmarks.md).
fn chunk_size(tasks: usize, devices: usize) -> usize {
    let chunks = if devices <= 1 { 1 } else { devices * 2 };
    tasks.div_ceil(chunks).max(1)
}

/// The constellations in the order their tasks are handed out: those with the most rows to
/// fill first, so that the tasks left when the queue runs dry are small and the threads finish
/// together (docs/benchmarks.md). Within the same
/// number of rows, a fixed pseudo-random order spreads the costs, so that the chunks of a
/// host-side queue cost about the same. A plan's own tasks stay together, so the lanes of a
/// warp mostly share a plan record.
fn hand_out_order(
    n: usize,
    mut constellations: Vec<CanonicalConstellation>,
) -> Vec<CanonicalConstellation> {
    let scramble = |c: &CanonicalConstellation| {
        let k = &c.constellation;
        let key = u64::from_le_bytes([k.top, k.bottom, k.left, k.right, 0, 0, 0, 0]);
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    };
    let rows = |c: &CanonicalConstellation| Plan::new(n, c.constellation).depth();
    // Cached: building a constellation's plan is worth doing once, not once a comparison.
    constellations.sort_by_cached_key(|c| (std::cmp::Reverse(rows(c)), scramble(c)));
    constellations
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constellations with the most rows to fill go out first, every one exactly once.
    #[test]
    fn hand_out_order_puts_the_deepest_searches_first() {
        for n in [8, 12, 16] {
            let constellations = canonical_constellations(n);
            let ordered = hand_out_order(n, constellations.clone());
            assert_eq!(ordered.len(), constellations.len());
            let rows: Vec<usize> = ordered
                .iter()
                .map(|c| Plan::new(n, c.constellation).depth())
                .collect();
            assert!(rows.windows(2).all(|w| w[0] >= w[1]), "n={n}");
            let mut sorted = ordered.iter().map(|c| c.constellation).collect::<Vec<_>>();
            sorted.sort();
            let mut expected = constellations
                .iter()
                .map(|c| c.constellation)
                .collect::<Vec<_>>();
            expected.sort();
            assert_eq!(sorted, expected, "n={n}");
        }
    }
}
