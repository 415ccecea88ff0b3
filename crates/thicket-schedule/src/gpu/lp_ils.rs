//! thicket's default on the GPU: the LP relaxation on the CPU threads while the device opens,
//! then the GPU's chains ([`super::ils`]) and CPU chains ([`crate::cpu::ils`]) searching
//! beside each other from its start, the better schedule kept.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use thicket_core::{Error, Placement, Progress, Result, StopFlag};

use super::ils;
use crate::cpu::ils as cpu_ils;
use crate::cpu::lp;
use crate::cpu::Fallback;
use crate::etc::Etc;
use crate::report::ScheduleRun;
use crate::strategy::ScheduleOptions;

/// The default on the GPU: the device and its kernels open on a thread of their own
/// (on a cold kernel cache that includes the NVRTC compile) while the relaxation runs on
/// the CPU threads and then the CPU chains search from its start on all threads but the
/// one that drives the GPU; once the device is ready the GPU's chains search too, until
/// the run's deadline less [`GPU_RELEASE`], and the better schedule is kept. A device
/// not ready by [`gpu_latest_start`] takes no part: the CPU chains' schedule is the
/// answer, and the set-up finishes on its thread for the next run (see
/// [`crate::run::finish_gpu_setup`]), so the compile never pushes a run past its limit.
pub(crate) fn run(
    etc: &Etc,
    o: &ScheduleOptions,
    label: String,
    progress: &Progress,
    fallback: &mut Option<Fallback>,
) -> Result<(ScheduleRun, Placement)> {
    ils::check_fits(etc)?;
    let pool = thicket_core::Workers::new(o.threads)?;
    let started = Instant::now();
    let finish = o.finish_by(started);
    let search_end = finish.checked_sub(GPU_RELEASE).unwrap_or(started);
    let latest_start = gpu_latest_start(o.time_limit, search_end);
    let limit_ms = o.time_limit.as_millis().max(1) as u64;
    progress.set_total(limit_ms);
    let opening = ils::open_beside(o.device);
    let caller_stop = progress.stop_flag();
    let caller_atomic = caller_stop.as_ref().map(StopFlag::as_atomic);
    let relaxation = pool.install(|| lp::start(etc, caller_atomic))?;
    let relaxed = started.elapsed().as_secs_f64();
    // Without a driver or a GPU the opening has failed by now: `auto` goes on on the CPU
    // at once, with the relaxation.
    let mut opened = opening.try_recv().ok();
    if let Some((Err(Error::Unavailable(why)), _)) = opened {
        *fallback = Some((started, relaxation));
        return Err(Error::Unavailable(why));
    }
    let stop = AtomicBool::new(false);
    // The host's other cores search beside the GPU (one is left to drive it): an
    // independent search from the same start, the better of the two kept.
    let beside = o.threads.saturating_sub(1).max(1);
    let mut trace = Vec::new();
    let mut device_seconds = f64::NAN;
    let mut device_name = None;
    let mut searching = Instant::now();
    let mut releasing = searching;
    let (gpu_run, cpu_run) = std::thread::scope(|scope| {
        let cpu = scope.spawn(|| {
            pool.install(|| {
                cpu_ils::search(
                    etc,
                    relaxation.start.clone(),
                    beside,
                    o.seed ^ BESIDE_SEED,
                    cpu_ils::Limits {
                        time: search_end.saturating_duration_since(Instant::now()),
                        epochs: None,
                        bound: relaxation.bound,
                        slack: BESIDE_SLACK,
                        stop: Some(&stop),
                    },
                    |_| {},
                )
            })
        });
        let wait = latest_start.saturating_duration_since(Instant::now());
        let gpu = match opened
            .take()
            .ok_or(())
            .or_else(|_| opening.recv_timeout(wait))
        {
            // Not ready in time (a cold kernel cache): the CPU chains alone.
            Err(_) => None,
            // Ready, but its first launch (not cut to the time left) would pass the deadline:
            // the CPU chains alone too.
            Ok((Ok(_), _)) if Instant::now() + first_launch(etc) > search_end => None,
            Ok((kernels, ready)) => {
                device_seconds = (ready - started).as_secs_f64();
                let run = kernels
                    .and_then(|kernels| ils::Device::load(kernels, etc))
                    .and_then(|device| {
                        searching = Instant::now();
                        let run = ils::search(
                            &device,
                            etc,
                            &relaxation.start,
                            o.seed,
                            search_end,
                            relaxation.bound,
                            caller_atomic,
                            |best| {
                                trace.push((started.elapsed().as_secs_f64(), best));
                                progress.set_message(format!("{label}: best makespan {best:.3}"));
                                progress.advance_to(started.elapsed().as_millis() as u64);
                            },
                        );
                        releasing = Instant::now();
                        device_name = Some(device.name().to_owned());
                        run
                    });
                // A failed GPU ends the CPU chains at once: its error decides the run. So
                // does the caller's stop request (the GPU's chains have seen it).
                if run.is_err() || caller_stop.as_ref().is_some_and(StopFlag::is_raised) {
                    stop.store(true, Ordering::Relaxed);
                }
                Some(run)
            }
        };
        let cpu = cpu.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (gpu, cpu)
    });
    let mut run = match gpu_run {
        Some(Err(Error::Unavailable(why))) => {
            // `auto` goes on on the CPU from the relaxation, started from the best
            // schedule found so far, under the same clock.
            let mut relaxation = relaxation;
            relaxation.start = cpu_run.assignment;
            *fallback = Some((started, relaxation));
            return Err(Error::Unavailable(why));
        }
        Some(other) => other?,
        None => {
            // The search stage is then the CPU chains', from the relaxation on.
            releasing = Instant::now();
            ils::GpuSearchRun {
                run: cpu_ils::SearchRun {
                    kicks: 0,
                    ..cpu_run.clone()
                },
                chains: 0,
                kernel_seconds: 0.0,
            }
        }
    };
    let gpu_took_part = device_name.is_some();
    if cpu_run.makespan < run.run.makespan || !gpu_took_part {
        run.run = cpu_ils::SearchRun {
            kicks: run.run.kicks,
            ..cpu_run.clone()
        };
    }
    run.run.kicks += cpu_run.kicks;
    if trace
        .last()
        .is_none_or(|&(_, best)| best > run.run.makespan)
    {
        trace.push((started.elapsed().as_secs_f64(), run.run.makespan));
    }
    let (loads, makespan) = crate::io::assignment::loads(etc, &run.run.assignment);
    let released = releasing.elapsed().as_secs_f64();
    progress.advance_to(limit_ms);
    let seconds = started.elapsed().as_secs_f64();
    Ok((
        ScheduleRun {
            method: o.method,
            assignment: run.run.assignment,
            reported: run.run.makespan,
            makespan,
            loads,
            lower_bound: relaxation.bound,
            seconds,
            epochs: Some(run.run.epochs),
            kicks: Some(run.run.kicks),
            swarm: None,
            scratch: None,
            kernel_seconds: gpu_took_part.then_some(run.kernel_seconds),
            phase_seconds: None,
            stage_seconds: Some([
                relaxed,
                device_seconds,
                (releasing - searching).as_secs_f64(),
                released,
            ]),
            trace,
            stopped: progress.stop_requested(),
        },
        Placement {
            threads: o.threads,
            devices: device_name.into_iter().collect(),
        },
    ))
}

/// The latest moment the GPU may join a run that searches until `search_end`: a device
/// ready later (on a cold kernel cache, the compile) would search for less than
/// [`GPU_MIN_SHARE`] of the limit, and its first launch (one kick per chain, not cut to the
/// time left) could pass the deadline.
fn gpu_latest_start(limit: Duration, search_end: Instant) -> Instant {
    search_end
        .checked_sub(limit.mul_f64(GPU_MIN_SHARE))
        .unwrap_or(search_end)
}

/// How long the GPU's first launch is expected to take on `etc`: every chain descends from
/// the start and makes one kick in it, and nothing cuts it short, so the GPU joins a run only
/// where that fits before the search's end. The descent's work grows with tasks^2 x machines;
/// [`FIRST_LAUNCH_SECONDS`] is set from an H200 (docs/schedule.md, "Against the published
/// record"), generously, since a slower GPU should sit out rather than overrun.
fn first_launch(etc: &Etc) -> Duration {
    let (tasks, machines) = (etc.tasks() as f64, etc.machines() as f64);
    Duration::from_secs_f64(FIRST_LAUNCH_SECONDS * tasks * tasks * machines)
}

/// Seconds of the GPU's first launch per task^2 x machine ([`first_launch`]): 2,048 x 64
/// gives 1.7 s, 1,024 x 32 0.2 s, 512 x 16 27 ms.
const FIRST_LAUNCH_SECONDS: f64 = 6.5e-9;

/// Of a GPU run's limit, the least search time the GPU must have left to join it.
const GPU_MIN_SHARE: f64 = 0.1;

/// Mixed into the seed of the CPU chains that search beside the GPU's, so that the two
/// searches differ.
const BESIDE_SEED: u64 = 0x5bd1_e995_9e37_79b9;

/// The CPU chains beside the GPU's keep a kick's result up to 0.05% worse than their record
/// (record-to-record travel), so that they explore where the GPU's chains, which keep only
/// results no worse, intensify: with the same acceptance both searches often ended in the same
/// schedule. The slacks tried are in docs/schedule.md ("The CPU chains' slack").
const BESIDE_SLACK: f64 = 0.0005;

/// Of a GPU run, the time kept after its search for the best schedule's copy and loads and
/// the matrix's device memory freed (set when a run also destroyed its context; the shared
/// device now stays open, so this margin is generous).
const GPU_RELEASE: Duration = Duration::from_millis(45);
