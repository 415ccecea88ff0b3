//! thicket's run layer: what turns a solver into a long run that survives a crash.
//!
//! A problem cuts its work into a fixed list of batches and describes them with a
//! [`BatchPlan`]; a [`BatchWorker`] (a CPU pool, open GPUs) runs them. On that contract this
//! crate builds, once for every problem: the SQLite [`ledger`] that records each finished
//! batch, resumable runs and shards ([`runner`]), `status` and `verify` ([`inspect`]), `merge`,
//! and MPI runs over many nodes ([`mpi`], feature `mpi`).

pub mod batched;
mod digest;
pub mod inspect;
pub mod ledger;
pub mod mpi;
pub mod runner;
mod sqlite;

pub use batched::{BatchPlan, BatchValue, BatchWorker, Recheck};
pub use ledger::{BatchRecord, Ledger};
pub use runner::{Batching, Finished, Shard};
