//! Rank 0 of an MPI run: owns the ledger and hands batches out, with the current context, on
//! request.

use std::path::Path;
use std::time::Duration;

use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use serde_json::Value;
use thicket_core::{Error, Progress, Result};

use super::wire;
use crate::batched::BatchPlan;
use crate::ledger::{BatchRecord, Ledger};
use crate::runner::{finished, finished_records, fold, ledger_spec, naming, todo, Finished, Shard};

/// How long the master sleeps when no message is waiting: MPI's blocking receive would spin
/// a core that a worker on the same node can use, and batches take far longer than this.
const IDLE_POLL: Duration = Duration::from_millis(1);

/// Where finished batches go: the ledger (boxed: it is ten times the size of the other), or
/// memory for a run without one.
enum Sink {
    Ledger(Box<Ledger>),
    Memory(Vec<BatchRecord>),
}

/// Hands every batch the ledger lacks to the workers, records their results, and returns what
/// the run adds up to.
pub fn run(
    world: &SimpleCommunicator,
    plan: &dyn BatchPlan,
    ledger: Option<&Path>,
    shard: Shard,
    progress: &Progress,
) -> Result<Finished> {
    let prepared = (|| {
        let spec = ledger_spec(plan, shard);
        let (sink, todo, context) = match ledger {
            Some(path) => {
                let ledger = Ledger::open_or_create(path, &spec)?;
                let done = ledger.batches()?;
                let context = fold(plan, &done).map_err(naming(path))?;
                (Sink::Ledger(Box::new(ledger)), todo(&spec, &done), context)
            }
            None => (
                Sink::Memory(Vec::new()),
                spec.owned().collect(),
                plan.initial_context()?,
            ),
        };
        Ok((spec, sink, todo, context))
    })();
    let (spec, mut sink, todo, context) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            dismiss(world);
            return Err(error);
        }
    };
    let owned = spec.owned().count() as u64;
    progress.set_total(owned);
    progress.inc(owned - todo.len() as u64);
    let mut served = Served {
        plan,
        spec: spec.problem,
        context,
        sink: &mut sink,
        progress,
    };
    served.serve(world, todo)?;
    progress.finish();
    match &sink {
        Sink::Ledger(ledger) => finished(plan, ledger),
        Sink::Memory(records) => finished_records(plan, records),
    }
}

/// The master's state while it serves the workers.
struct Served<'a> {
    plan: &'a dyn BatchPlan,
    spec: String,
    context: Value,
    sink: &'a mut Sink,
    progress: &'a Progress,
}

impl Served<'_> {
    /// Answers every worker's message with a batch or, when none is left or a worker failed,
    /// with a stop; returns once every worker has stopped, or the first failure.
    fn serve(&mut self, world: &SimpleCommunicator, todo: Vec<u64>) -> Result<()> {
        let mut todo = todo.into_iter();
        let mut running = world.size() - 1;
        let mut failure: Option<Error> = None;
        while running > 0 {
            let Some(probed) = world.any_process().immediate_matched_probe() else {
                std::thread::sleep(IDLE_POLL);
                continue;
            };
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            let rank = status.source_rank();
            let outcome = match status.tag() {
                wire::READY if bytes == self.spec.as_bytes() => Ok(()),
                wire::READY => Err(Error::InvalidInput(format!(
                    "rank {rank} runs '{}', rank 0 '{}': give every rank the same command",
                    String::from_utf8_lossy(&bytes),
                    self.spec
                ))),
                wire::RESULT => wire::decode_result(rank, &bytes).and_then(|r| self.keep(r)),
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
                Some(id) => {
                    worker.send_with_tag(&wire::encode_work(id, &self.context)[..], wire::WORK)
                }
                None => {
                    worker.send_with_tag(&[0u8; 0][..], wire::STOP);
                    running -= 1;
                }
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// Keeps one finished batch and moves the context on.
    fn keep(&mut self, record: BatchRecord) -> Result<()> {
        self.context = self
            .plan
            .advance(std::mem::take(&mut self.context), &record)?;
        self.progress.inc(1);
        match self.sink {
            Sink::Ledger(ledger) => ledger.record(&record),
            Sink::Memory(records) => {
                records.push(record);
                Ok(())
            }
        }
    }
}

/// Stops every worker without giving it a batch, for a master that cannot start (a refused
/// ledger, bad arguments): workers wait for an answer, and would otherwise wait forever.
fn dismiss(world: &SimpleCommunicator) {
    for _ in 1..world.size() {
        let (_, status) = world.any_process().receive_vec::<u8>();
        if status.tag() != wire::FAILED {
            let worker = world.process_at_rank(status.source_rank());
            worker.send_with_tag(&[0u8; 0][..], wire::STOP);
        }
    }
}
