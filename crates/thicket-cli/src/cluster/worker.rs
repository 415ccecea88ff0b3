//! Ranks 1.. of an MPI run: count the batches the master hands out.

use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use thicket_core::Result;
use thicket_queens::ledgered::{count_batch, Batches};

use super::wire;
use crate::cli::QueensArgs;
use crate::ledger::{open_counter, split};

/// Opens this rank's counter, then counts batches until the master says stop. Failures go
/// to the master, which reports them and stops the run; the worker itself exits quietly.
pub fn run(world: &SimpleCommunicator, args: &QueensArgs, threads: usize) -> Result<()> {
    let master = world.process_at_rank(0);
    let rank = world.rank();
    let prepared = split(args).and_then(|split| {
        let batches = Batches::new(split.n, split.batch_size)?;
        let spec = batches.spec(split.shard).problem;
        let counter = open_counter(args, threads, &format!("rank {rank}: "))?;
        Ok((batches, spec, counter))
    });
    let (batches, spec, mut counter) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            master.send_with_tag(&wire::encode_error(&error)[..], wire::FAILED);
            return Ok(());
        }
    };
    let host = mpi::environment::processor_name().unwrap_or_else(|_| "?".into());
    let device = format!("rank {rank} on {host}: {}", counter.device());
    master.send_with_tag(spec.as_bytes(), wire::READY);
    loop {
        let (id, status) = master.receive_vec::<u64>();
        if status.tag() != wire::WORK {
            return Ok(());
        }
        match id
            .first()
            .ok_or_else(|| thicket_core::Error::Verification("an empty batch message".into()))
            .and_then(|&id| count_batch(&batches, &mut counter, id, &device))
        {
            Ok(record) => master.send_with_tag(&wire::encode_result(&record)[..], wire::RESULT),
            Err(error) => {
                master.send_with_tag(&wire::encode_error(&error)[..], wire::FAILED);
                return Ok(());
            }
        }
    }
}
