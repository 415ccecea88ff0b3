//! `thicket queens N --mpi`: one count spread over processes and nodes through MPI.
//!
//! Rank 0 is the master: it alone opens the ledger, keeps the batches still to count and
//! hands them out one at a time to whichever worker asks, so fast and slow nodes finish
//! together. Ranks 1.. are workers: each opens its own counter (its GPUs, or its cores) and
//! counts the batches it is given. With a single rank there is no worker and rank 0 counts
//! every batch itself, as without `--mpi`. The batches are those of a ledgered run (see
//! [`thicket_queens::ledgered`]), so an MPI run gives the same counts and the same ledger as
//! a single process, and either can resume the other's ledger.

#[cfg(feature = "mpi")]
mod master;
#[cfg(feature = "mpi")]
mod wire;
#[cfg(feature = "mpi")]
mod worker;

use thicket_core::{Progress, Result};

use crate::cli::QueensArgs;

/// Runs this process's part of an MPI count: the master's on rank 0, a worker's elsewhere.
#[cfg(feature = "mpi")]
pub fn run_queens(args: &QueensArgs, threads: usize, progress: &Progress) -> Result<()> {
    use ::mpi::traits::Communicator;
    use thicket_core::Error;

    let universe = ::mpi::initialize()
        .ok_or_else(|| Error::Unavailable("MPI is already initialised in this process".into()))?;
    let world = universe.world();
    if world.size() == 1 {
        return crate::queens::run_local(args, threads, progress);
    }
    if world.rank() == 0 {
        master::run(&world, args, threads, progress)
    } else {
        worker::run(&world, args, threads)
    }
}

/// Without the `mpi` feature `--mpi` cannot run: a one-line error (exit code 2).
#[cfg(not(feature = "mpi"))]
pub fn run_queens(_args: &QueensArgs, _threads: usize, _progress: &Progress) -> Result<()> {
    Err(thicket_core::Error::InvalidInput(
        "--mpi: this thicket binary was built without MPI (build it with `cargo build --release -p thicket --features mpi`)".into(),
    ))
}
