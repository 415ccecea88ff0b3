//! Rank 0 of an MPI run: owns the ledger and hands batches out on request.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use thicket_core::ledger::{sum_checked, BatchRecord, Ledger};
use thicket_core::{Error, Progress, Result, RunInfo};
use thicket_queens::ledgered::{self, counts_from_total, Batches, LedgerOutcome};

use super::wire;
use crate::cli::QueensArgs;
use crate::ledger::{print_outcome, split};

/// How long the master sleeps when no message is waiting: MPI's blocking receive would spin
/// a core that a worker on the same node can use, and batches take far longer than this.
const IDLE_POLL: Duration = Duration::from_millis(1);

/// Where finished batches go: the ledger, or memory for a run without one.
enum Sink {
    Ledger(Ledger),
    Memory(Vec<BatchRecord>),
}

/// Hands every batch the ledger lacks to the workers, records their results, and prints
/// the outcome.
pub fn run(
    world: &SimpleCommunicator,
    args: &QueensArgs,
    threads: usize,
    progress: &Progress,
) -> Result<()> {
    let started = Instant::now();
    let prepared = split(args).and_then(|split| {
        let (batches, sink, todo) = match &args.ledger {
            Some(path) => {
                let (batches, ledger, todo) = ledgered::open(&split, path)?;
                (batches, Sink::Ledger(ledger), todo)
            }
            None => {
                let batches = ledgered::Batches::new(split.n, split.batch_size)?;
                let todo = (0..batches.len()).collect();
                (batches, Sink::Memory(Vec::new()), todo)
            }
        };
        Ok((split, batches, sink, todo))
    });
    let (split, batches, mut sink, todo) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            dismiss(world);
            return Err(error);
        }
    };
    let owned = batches.spec(split.shard).owned().count() as u64;
    progress.set_total(owned);
    progress.inc(owned - todo.len() as u64);
    let devices = serve(world, &batches, split.shard, todo, &mut sink, progress)?;
    progress.finish();
    let outcome = match &sink {
        Sink::Ledger(ledger) => ledgered::outcome(split.n, ledger)?,
        Sink::Memory(records) => {
            LedgerOutcome::Complete(counts_from_total(split.n, sum_checked(records)?)?)
        }
    };
    let info = RunInfo {
        backend: "mpi".into(),
        threads,
        devices: devices.into_iter().collect(),
        seconds: started.elapsed().as_secs_f64(),
    };
    print_outcome(args, &split, outcome, &info);
    Ok(())
}

/// The master's loop: answers every worker's message with a batch or, when none is left or a
/// worker failed, with a stop; returns once every worker has stopped, with the devices that
/// counted, or the first failure.
fn serve(
    world: &SimpleCommunicator,
    batches: &Batches,
    shard: (u64, u64),
    todo: Vec<u64>,
    sink: &mut Sink,
    progress: &Progress,
) -> Result<BTreeSet<String>> {
    let spec = batches.spec(shard).problem;
    let mut todo = todo.into_iter();
    let mut running = world.size() - 1;
    let mut failure: Option<Error> = None;
    let mut devices = BTreeSet::new();
    while running > 0 {
        let Some(probed) = world.any_process().immediate_matched_probe() else {
            std::thread::sleep(IDLE_POLL);
            continue;
        };
        let (bytes, status) = probed.matched_receive_vec::<u8>();
        let rank = status.source_rank();
        let outcome = match status.tag() {
            wire::READY if bytes == spec.as_bytes() => Ok(()),
            wire::READY => Err(Error::InvalidInput(format!(
                "rank {rank} counts '{}', rank 0 '{spec}': give every rank the same command",
                String::from_utf8_lossy(&bytes)
            ))),
            wire::RESULT => wire::decode_result(rank, &bytes).and_then(|record| {
                devices.insert(record.device.clone());
                progress.inc(1);
                sink.add(record)
            }),
            wire::FAILED => {
                failure.get_or_insert(wire::decode_error(rank, &bytes));
                running -= 1;
                continue;
            }
            tag => Err(Error::Verification(format!(
                "rank {rank} sent an unknown message (tag {tag})"
            ))),
        };
        if let Err(error) = outcome {
            failure.get_or_insert(error);
        }
        let worker = world.process_at_rank(rank);
        match todo.next().filter(|_| failure.is_none()) {
            Some(id) => worker.send_with_tag(&[id][..], wire::WORK),
            None => {
                worker.send_with_tag(&[0u64; 0][..], wire::STOP);
                running -= 1;
            }
        }
    }
    failure.map_or(Ok(devices), Err)
}

/// Stops every worker without giving it a batch, for a master that cannot start (a refused
/// ledger, bad arguments): workers wait for an answer, and would otherwise wait forever.
fn dismiss(world: &SimpleCommunicator) {
    for _ in 1..world.size() {
        let (_, status) = world.any_process().receive_vec::<u8>();
        if status.tag() != wire::FAILED {
            let worker = world.process_at_rank(status.source_rank());
            worker.send_with_tag(&[0u64; 0][..], wire::STOP);
        }
    }
}

impl Sink {
    /// Keeps one finished batch.
    fn add(&mut self, record: BatchRecord) -> Result<()> {
        match self {
            Sink::Ledger(ledger) => ledger.record(&record),
            Sink::Memory(records) => {
                records.push(record);
                Ok(())
            }
        }
    }
}
