//! A dynamic work queue that spreads chunks of work items over several workers (devices).
//!
//! Irregular workloads make static partitioning poor: one device may draw all the expensive
//! items. Instead each worker runs on its own host thread and repeatedly claims the next chunk
//! from a shared counter, so faster or luckier workers simply take more chunks.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;

use crate::GpuError;

/// The result of one chunk of work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkOutput<R> {
    /// Index (in the `workers` slice) of the worker that processed the chunk.
    pub worker: usize,
    /// The work items of the chunk.
    pub range: Range<usize>,
    /// What the worker returned for it.
    pub value: R,
}

/// Why [`run_work_queue`] stopped without finishing.
#[derive(Debug, thiserror::Error)]
pub enum QueueError<E> {
    /// There were work items but no worker to process them.
    #[error("no workers to process {total} work items")]
    NoWorkers {
        /// The number of work items.
        total: usize,
    },
    /// A worker failed; this is the first failure, after which no new chunk was started.
    #[error("worker {worker} failed on work items {}..{}: {error}", range.start, range.end)]
    Worker {
        /// Index of the failing worker.
        worker: usize,
        /// The work items of the failing chunk.
        range: Range<usize>,
        /// The worker's error.
        error: E,
    },
}

impl From<QueueError<GpuError>> for GpuError {
    fn from(error: QueueError<GpuError>) -> GpuError {
        match error {
            QueueError::NoWorkers { total } => {
                GpuError::Unavailable(format!("no GPUs to process {total} work items"))
            }
            QueueError::Worker {
                worker,
                range,
                error,
            } => GpuError::Worker {
                worker,
                range,
                source: Box::new(error),
            },
        }
    }
}

/// Processes work items `0..total` in chunks of `chunk` items (the last may be shorter; a
/// `chunk` of 0 counts as 1), with one host thread per worker.
///
/// Each thread repeatedly claims the next unclaimed chunk and calls `f(worker, range)` on it,
/// until all chunks are claimed. The returned outputs are ordered by `range.start`, cover every
/// item exactly once, and record which worker produced each.
///
/// The first error stops the queue: no thread starts another chunk, chunks already running
/// finish, and that error is returned. A panic in `f` is propagated to the caller once all
/// threads have stopped. With GPU workers, `W` is typically a [`crate::Gpu`] plus its buffers.
pub fn run_work_queue<W, R, E, F>(
    workers: &mut [W],
    total: usize,
    chunk: usize,
    f: F,
) -> Result<Vec<ChunkOutput<R>>, QueueError<E>>
where
    W: Send,
    R: Send,
    E: Send,
    F: Fn(&mut W, Range<usize>) -> Result<R, E> + Sync,
{
    if total == 0 {
        return Ok(Vec::new());
    }
    if workers.is_empty() {
        return Err(QueueError::NoWorkers { total });
    }
    let chunk = chunk.max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let first_error = Mutex::new(None);

    // Claims the next chunk; the counter never passes `total`, so it cannot overflow.
    let claim = || {
        next.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |start| {
            (start < total).then(|| start.saturating_add(chunk).min(total))
        })
        .ok()
        .map(|start| start..start.saturating_add(chunk).min(total))
    };

    let per_worker: Vec<Vec<ChunkOutput<R>>> = thread::scope(|scope| {
        let threads: Vec<_> = workers
            .iter_mut()
            .enumerate()
            .map(|(index, worker)| {
                let (f, claim, stop, first_error) = (&f, &claim, &stop, &first_error);
                scope.spawn(move || {
                    let mut outputs = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let Some(range) = claim() else { break };
                        match f(worker, range.clone()) {
                            Ok(value) => outputs.push(ChunkOutput {
                                worker: index,
                                range,
                                value,
                            }),
                            Err(error) => {
                                stop.store(true, Ordering::Relaxed);
                                first_error
                                    .lock()
                                    .unwrap_or_else(PoisonError::into_inner)
                                    .get_or_insert(QueueError::Worker {
                                        worker: index,
                                        range,
                                        error,
                                    });
                                break;
                            }
                        }
                    }
                    outputs
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });

    if let Some(error) = first_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(error);
    }
    let mut outputs: Vec<ChunkOutput<R>> = per_worker.into_iter().flatten().collect();
    outputs.sort_by_key(|output| output.range.start);
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A CPU stand-in for a device: counts how often it saw each item.
    #[derive(Debug)]
    struct FakeDevice {
        seen: Vec<u32>,
        chunks: usize,
    }

    fn fake_devices(count: usize, total: usize) -> Vec<FakeDevice> {
        (0..count)
            .map(|_| FakeDevice {
                seen: vec![0; total],
                chunks: 0,
            })
            .collect()
    }

    #[test]
    fn work_queue_covers_every_item_exactly_once() {
        for workers in [1, 2, 3, 8] {
            for total in [1, 7, 100, 1000] {
                for chunk in [0, 1, 3, 64, 5000] {
                    let mut devices = fake_devices(workers, total);
                    let outputs = run_work_queue(&mut devices, total, chunk, |dev, range| {
                        for item in range.clone() {
                            dev.seen[item] += 1;
                        }
                        dev.chunks += 1;
                        Ok::<_, String>(range.map(|i| i as u64).sum::<u64>())
                    })
                    .unwrap();

                    let mut counts = vec![0; total];
                    for dev in &devices {
                        for (count, seen) in counts.iter_mut().zip(&dev.seen) {
                            *count += seen;
                        }
                    }
                    assert!(counts.iter().all(|&c| c == 1), "{workers}/{total}/{chunk}");

                    let size = chunk.max(1);
                    assert_eq!(outputs.len(), total.div_ceil(size));
                    let mut expected_start = 0;
                    for output in &outputs {
                        assert_eq!(output.range.start, expected_start);
                        assert!(output.range.len() <= size);
                        assert!(output.worker < workers);
                        expected_start = output.range.end;
                    }
                    assert_eq!(expected_start, total);
                    let sum: u64 = outputs.iter().map(|o| o.value).sum();
                    assert_eq!(sum, (0..total as u64).sum::<u64>());
                    assert_eq!(
                        devices.iter().map(|d| d.chunks).sum::<usize>(),
                        outputs.len()
                    );
                }
            }
        }
    }

    #[test]
    fn work_queue_balances_towards_faster_workers() {
        let mut delays = [Duration::from_millis(0), Duration::from_millis(20)];
        let outputs = run_work_queue(&mut delays, 40, 1, |delay, range| {
            thread::sleep(*delay);
            Ok::<_, ()>(range.len())
        })
        .unwrap();
        let fast = outputs.iter().filter(|o| o.worker == 0).count();
        assert!(
            fast > 20,
            "the fast worker should take most chunks, took {fast}"
        );
    }

    #[test]
    fn work_queue_stops_at_the_first_error() {
        let mut workers = [0usize; 4];
        let result = run_work_queue(&mut workers, 10_000, 10, |done, range| {
            if range.contains(&500) {
                return Err(format!("bad item in {range:?}"));
            }
            *done += 1;
            thread::sleep(Duration::from_micros(50));
            Ok(())
        });
        match result {
            Err(QueueError::Worker { range, error, .. }) => {
                assert_eq!(range, 500..510);
                assert_eq!(error, "bad item in 500..510");
            }
            other => panic!("expected a worker error, got {other:?}"),
        }
        let done: usize = workers.iter().sum();
        assert!(
            done < 900,
            "the queue must stop early, but ran {done} chunks"
        );
    }

    #[test]
    fn work_queue_edge_cases() {
        let mut none: [(); 0] = [];
        let f = |_: &mut (), _: Range<usize>| Ok::<_, ()>(());
        assert!(run_work_queue(&mut none, 0, 1, f).unwrap().is_empty());
        assert!(matches!(
            run_work_queue(&mut none, 5, 1, f),
            Err(QueueError::NoWorkers { total: 5 })
        ));
        let mut one = [()];
        assert!(run_work_queue(&mut one, 0, 1, f).unwrap().is_empty());
        let outputs = run_work_queue(&mut one, usize::MAX, usize::MAX, f).unwrap();
        assert_eq!(outputs.len(), 1);
        assert_eq!(outputs[0].range, 0..usize::MAX);
    }

    #[test]
    fn gpu_errors_from_the_queue_keep_their_context() {
        let error: GpuError = QueueError::Worker {
            worker: 1,
            range: 8..16,
            error: GpuError::InvalidArgument("boom".to_owned()),
        }
        .into();
        assert_eq!(
            error.to_string(),
            "worker 1 failed on work items 8..16: invalid argument: boom"
        );
        let error: GpuError = QueueError::<GpuError>::NoWorkers { total: 3 }.into();
        assert!(matches!(error, GpuError::Unavailable(_)));
    }
}
