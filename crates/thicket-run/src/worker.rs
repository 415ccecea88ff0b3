//! Ranks 1.. of an MPI run: run the batches the master hands out.

use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use thicket_core::Result;

use super::{wire, OpenWorker};
use crate::batched::BatchPlan;
use crate::ledger::BatchRecord;

/// Opens this rank's worker, then runs batches until the master says stop. Failures go to the
/// master, which reports them and stops the run; the worker itself ends quietly.
pub fn run(
    world: &SimpleCommunicator,
    plan: &dyn BatchPlan,
    open: &mut OpenWorker<'_>,
) -> Result<()> {
    let master = world.process_at_rank(0);
    let rank = world.rank();
    let mut worker = match open(&format!("rank {rank}: ")) {
        Ok(worker) => worker,
        Err(error) => {
            master.send_with_tag(&wire::encode_error(&error)[..], wire::FAILED);
            return Ok(());
        }
    };
    let host = mpi::environment::processor_name().unwrap_or_else(|_| "?".into());
    let device = format!("rank {rank} on {host}: {}", worker.device());
    master.send_with_tag(plan.spec().as_bytes(), wire::READY);
    loop {
        let (bytes, status) = master.receive_vec::<u8>();
        if status.tag() != wire::WORK {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let outcome = wire::decode_work(&bytes).and_then(|(id, context)| {
            let value = worker.run(id, &context)?;
            let seconds = started.elapsed().as_secs_f64();
            Ok(
                BatchRecord::new(id, value.count, worker.backend(), &device, seconds)
                    .with_detail(value.detail),
            )
        });
        match outcome {
            Ok(record) => master.send_with_tag(&wire::encode_result(&record)[..], wire::RESULT),
            Err(error) => {
                master.send_with_tag(&wire::encode_error(&error)[..], wire::FAILED);
                return Ok(());
            }
        }
    }
}
