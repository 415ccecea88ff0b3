//! Work split into batches: what a problem tells the run layer about its batches
//! ([`BatchPlan`]) and what runs them ([`BatchWorker`]).
//!
//! A plan names everything its batches depend on (its spec, which the ledger keeps), knows how
//! many batches there are, and carries a *context* from batch to batch: JSON that a batch
//! starts from and that every finished batch may improve (ATSP's incumbent tour, so that later
//! subtrees prune with the best tour found so far; nothing for N-Queens). The run layer keeps
//! the context, hands it out with the work (to local workers and over MPI), folds every
//! finished batch into it, and lets the plan recheck a finished batch with an independent
//! algorithm (`thicket verify`).

use serde_json::Value;
use thicket_core::Result;

use crate::ledger::BatchRecord;

/// What one batch yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchValue {
    /// What the batch counted (solutions, search nodes); the ledger keeps it with its check
    /// values and sums it over the run.
    pub count: u128,
    /// The problem's own record of the batch, kept beside the count (e.g. the best tour an ATSP
    /// subtree held, as JSON).
    pub detail: Option<String>,
}

/// A problem's work, cut into a fixed list of batches.
pub trait BatchPlan: Sync {
    /// Everything the batches depend on, starting with the problem's name, e.g.
    /// `queens n=18 constellations=... batch-size=64 order=canonical-v1`: a ledger made for
    /// another spec is refused.
    fn spec(&self) -> String;

    /// How many batches the whole run has.
    fn batches(&self) -> u64;

    /// What rebuilds the plan from a ledger alone (see [`crate::ledger::LedgerSpec::input`]);
    /// `None` when the spec says it all.
    fn input(&self) -> Option<String> {
        None
    }

    /// The context the first batch starts from.
    fn initial_context(&self) -> Result<Value> {
        Ok(Value::Null)
    }

    /// The context after `record` finished, from the context before it. Also checks what the
    /// record claims (a recorded tour must be a tour of that cost): a record that fails is an
    /// [`thicket_core::Error::Verification`].
    fn advance(&self, context: Value, record: &BatchRecord) -> Result<Value> {
        let _ = record;
        Ok(context)
    }

    /// Recomputes a finished batch with an algorithm other than the one that recorded it.
    fn recheck(&self, record: &BatchRecord) -> Result<Recheck>;
}

/// The verdict of [`BatchPlan::recheck`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recheck {
    /// The algorithm that rechecked the batch, e.g. `the CPU counter`.
    pub by: &'static str,
    /// What disagrees, e.g. `the ledger says 12, recomputing gives 13`; `None` when the
    /// recheck agrees with the record.
    pub mismatch: Option<String>,
}

/// Runs batches: a pool of CPU threads or open GPUs.
pub trait BatchWorker {
    /// The backend's name as the ledger records it (`cpu`, `cuda`).
    fn backend(&self) -> &'static str;

    /// Where the batches run, as the ledger records it.
    fn device(&self) -> String;

    /// Runs batch `id` from `context`.
    fn run(&mut self, id: u64, context: &Value) -> Result<BatchValue>;

    /// Runs the batches `ids` in order, from `context`; hands each finished one to `finish`
    /// (with the seconds since the previous batch finished), which records it and returns the
    /// context for the next. Workers that prepare the next batch while the current one runs
    /// override it.
    fn run_each(
        &mut self,
        ids: &[u64],
        context: Value,
        finish: &mut dyn FnMut(u64, BatchValue, f64) -> Result<Value>,
    ) -> Result<()> {
        one_by_one(self, ids, context, finish)
    }
}

/// [`BatchWorker::run_each`] without overlap: each batch from the context the one before left
/// (for workers that override `run_each` only for some of their engines).
pub fn one_by_one<W: BatchWorker + ?Sized>(
    worker: &mut W,
    ids: &[u64],
    context: Value,
    finish: &mut dyn FnMut(u64, BatchValue, f64) -> Result<Value>,
) -> Result<()> {
    let mut context = context;
    for &id in ids {
        let started = std::time::Instant::now();
        let value = worker.run(id, &context)?;
        context = finish(id, value, started.elapsed().as_secs_f64())?;
    }
    Ok(())
}
