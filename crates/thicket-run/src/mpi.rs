//! Runs spread over processes and nodes through MPI (`mpirun -n R thicket ... --mpi`).
//!
//! Rank 0 is the master: it alone opens the ledger (or keeps the results in memory), keeps the
//! batches still to run and hands them out one at a time, with the current context (ATSP's
//! incumbent), to whichever worker asks, so fast and slow nodes finish together. Ranks 1.. are
//! workers: each opens its own worker (its GPUs, or its cores) and runs the batches it is
//! given. With a single rank there is no worker and rank 0 runs every batch itself, as without
//! `--mpi`. The batches are those of a ledgered run, so an MPI run gives the same results and
//! the same ledger as a single process, and either can resume the other's ledger.

#[cfg(feature = "mpi")]
#[path = "master.rs"]
mod master;
#[cfg(feature = "mpi")]
#[path = "wire.rs"]
mod wire;
#[cfg(feature = "mpi")]
#[path = "worker.rs"]
mod worker;

use std::path::Path;

use thicket_core::{Progress, Result};

use crate::batched::{BatchPlan, BatchWorker};
use crate::runner::{Finished, Shard};

/// Opens a worker rank's worker; its argument prefixes a fallback note, e.g. `rank 2: `.
pub type OpenWorker<'a> = dyn FnMut(&str) -> Result<Box<dyn BatchWorker + 'a>> + 'a;

/// What this rank ends with.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// Rank 0: what the run adds up to.
    Master(Finished),
    /// The only rank: nothing ran; the caller runs the batches in this process, as without
    /// MPI.
    Alone,
    /// A worker rank: nothing to report (the master reports the run and its failures).
    Worker,
}

/// Runs this process's part of an MPI run of `plan`: the master's on rank 0 (with the ledger
/// at `ledger` if given, else in memory), a worker's elsewhere; a lone rank runs nothing and
/// says so ([`Role::Alone`]).
#[cfg(feature = "mpi")]
pub fn run(
    plan: &dyn BatchPlan,
    ledger: Option<&Path>,
    shard: Shard,
    open: &mut OpenWorker<'_>,
    progress: &Progress,
) -> Result<Role> {
    use ::mpi::traits::Communicator;
    use thicket_core::Error;

    let universe = ::mpi::initialize()
        .ok_or_else(|| Error::Unavailable("MPI is already initialised in this process".into()))?;
    let world = universe.world();
    if world.size() == 1 {
        return Ok(Role::Alone);
    }
    if world.rank() == 0 {
        master::run(&world, plan, ledger, shard, progress).map(Role::Master)
    } else {
        worker::run(&world, plan, open).map(|()| Role::Worker)
    }
}

/// Without the `mpi` feature `--mpi` cannot run: a one-line error (exit code 2).
#[cfg(not(feature = "mpi"))]
pub fn run(
    _plan: &dyn BatchPlan,
    _ledger: Option<&Path>,
    _shard: Shard,
    _open: &mut OpenWorker<'_>,
    _progress: &Progress,
) -> Result<Role> {
    Err(thicket_core::Error::InvalidInput(
        "this thicket binary was built without MPI (build it with `cargo build --release -p thicket --features mpi`)".into(),
    ))
}
