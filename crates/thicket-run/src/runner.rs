//! Resumable runs: the batches of a plan that its ledger does not hold yet, run on a worker,
//! each recorded as it finishes; and what a ledger (or a set of shard ledgers) adds up to.

use std::path::{Path, PathBuf};

use serde_json::Value;
use thicket_core::{Error, Progress, Result};

use crate::batched::{BatchPlan, BatchWorker};
use crate::ledger::{check_shards, sum_checked, BatchRecord, Ledger, LedgerSpec};

/// Where a run's batches and shard come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard's index, `0..count`.
    pub index: u64,
    /// How many shards the run is cut into (1: unsharded).
    pub count: u64,
}

impl Default for Shard {
    /// The whole run.
    fn default() -> Shard {
        Shard::WHOLE
    }
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses a shard `i/K` (0 <= i < K).
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = || {
            Error::InvalidInput(format!(
                "shard '{text}' is not of the form i/K with 0 <= i < K"
            ))
        };
        let (i, k) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            i.trim().parse().map_err(|_| bad())?,
            k.trim().parse().map_err(|_| bad())?,
        );
        if index < count {
            Ok(Shard { index, count })
        } else {
            Err(bad())
        }
    }

    /// `i/K`.
    pub fn label(self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// How a batched run runs: the one vocabulary of every problem whose run is cut into
/// batches (N-Queens' constellations, the ATSP's root subtrees).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batching {
    /// The ledger that records every finished batch (a run resumes from it); a run without
    /// one keeps them in memory.
    pub ledger: Option<PathBuf>,
    /// The shard of the batches to run.
    pub shard: Shard,
    /// Work items per batch where the problem chooses its batches (N-Queens: canonical
    /// constellations); `None`: the problem's default. A problem whose batches are fixed
    /// (the ATSP's subtrees) refuses a size.
    pub batch_size: Option<usize>,
    /// Spread the batches over MPI ranks.
    pub mpi: bool,
}

/// What a ledger, or the shards of one run merged, add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The sum of the batches' counts, each checked against its check values.
    pub total: u128,
    /// The context after every batch (e.g. ATSP's best tour).
    pub context: Value,
    /// The shard these batches are (`Shard::WHOLE` for a complete run or merged shards).
    pub shard: Shard,
    /// The devices that ran the batches.
    pub devices: Vec<String>,
}

impl Finished {
    /// Whether this is the whole run, not one shard of it.
    pub fn is_whole(&self) -> bool {
        self.shard.count == 1
    }
}

/// The ledger spec of `plan` and `shard`.
pub fn ledger_spec(plan: &dyn BatchPlan, shard: Shard) -> LedgerSpec {
    LedgerSpec {
        problem: plan.spec(),
        batches: plan.batches(),
        shard: (shard.index, shard.count),
        input: plan.input(),
    }
}

/// Runs the batches of `shard` of `plan` that the ledger at `path` does not hold yet on
/// `worker`, recording each as it finishes, then returns what the whole ledger adds up to.
pub fn run_ledgered(
    plan: &dyn BatchPlan,
    worker: &mut dyn BatchWorker,
    path: &Path,
    shard: Shard,
    progress: &Progress,
) -> Result<Finished> {
    let ledger = Ledger::open_or_create(path, &ledger_spec(plan, shard))?;
    let done = ledger.batches()?;
    let context = fold(plan, &done).map_err(naming(path))?;
    let todo = todo(ledger.spec(), &done);
    let owned = ledger.spec().owned().count() as u64;
    progress.set_total(owned);
    progress.inc(owned - todo.len() as u64);
    let (backend, device) = (worker.backend(), worker.device());
    let mut latest = context.clone();
    worker.run_each(&todo, context, &mut |id, value, seconds| {
        let record =
            BatchRecord::new(id, value.count, backend, &device, seconds).with_detail(value.detail);
        latest = plan.advance(std::mem::take(&mut latest), &record)?;
        ledger.record(&record)?;
        progress.inc(1);
        Ok(latest.clone())
    })?;
    finished(plan, &ledger)
}

/// Runs every batch of `plan` on `worker` without a ledger, and returns what they add up to.
pub fn run_in_memory(
    plan: &dyn BatchPlan,
    worker: &mut dyn BatchWorker,
    progress: &Progress,
) -> Result<Finished> {
    let ids: Vec<u64> = (0..plan.batches()).collect();
    progress.set_total(ids.len() as u64);
    let (backend, device) = (worker.backend(), worker.device());
    let mut records = Vec::with_capacity(ids.len());
    let mut latest = plan.initial_context()?;
    worker.run_each(&ids, latest.clone(), &mut |id, value, seconds| {
        let record =
            BatchRecord::new(id, value.count, backend, &device, seconds).with_detail(value.detail);
        latest = plan.advance(std::mem::take(&mut latest), &record)?;
        records.push(record);
        progress.inc(1);
        Ok(latest.clone())
    })?;
    finished_records(plan, &records)
}

/// The batches of `spec`'s shard that `done` lacks, in order.
pub fn todo(spec: &LedgerSpec, done: &[BatchRecord]) -> Vec<u64> {
    let finished: std::collections::BTreeSet<u64> = done.iter().map(|b| b.id).collect();
    spec.owned().filter(|id| !finished.contains(id)).collect()
}

/// The context after `records`, from the plan's initial one.
pub fn fold(plan: &dyn BatchPlan, records: &[BatchRecord]) -> Result<Value> {
    records
        .iter()
        .try_fold(plan.initial_context()?, |context, record| {
            plan.advance(context, record)
        })
}

/// `error`, a plan's about one of the batches of the ledger at `path`, naming the ledger first.
pub(crate) fn naming(path: &Path) -> impl Fn(Error) -> Error + '_ {
    move |error| {
        Error::from_kind(
            error.kind(),
            format!("{}: {}", path.display(), error.message()),
        )
    }
}

/// What a complete ledger adds up to: the checked sum and the context after every batch.
pub fn finished(plan: &dyn BatchPlan, ledger: &Ledger) -> Result<Finished> {
    let total = ledger.checked_total()?;
    let records = ledger.batches()?;
    let (index, count) = ledger.spec().shard;
    Ok(Finished {
        total,
        context: fold(plan, &records).map_err(naming(ledger.path()))?,
        shard: Shard { index, count },
        devices: devices(&records),
    })
}

/// What `records`, every batch of a run, add up to.
pub fn finished_records(plan: &dyn BatchPlan, records: &[BatchRecord]) -> Result<Finished> {
    Ok(Finished {
        total: sum_checked(records)?,
        context: fold(plan, records)?,
        shard: Shard::WHOLE,
        devices: devices(records),
    })
}

/// Merges the shard ledgers of one run made for `plan`: every shard once, each complete, every
/// batch checked (its check values and its digest, then the plan's own check of its record,
/// [`BatchPlan::advance`]). A ledger whose batches carry no digests (schema 1) is refused:
/// nothing could tell an edited answer in it from a computed one.
pub fn merge(plan: &dyn BatchPlan, ledgers: &[Ledger]) -> Result<Finished> {
    if let Some(old) = ledgers.iter().find(|ledger| !ledger.has_digests()) {
        return Err(Error::InvalidInput(format!(
            "{} was made by an older thicket: its batches carry no digests for merge to check; \
             run the command that made it once more with this thicket (it recomputes nothing \
             and adds them), then merge",
            old.path().display()
        )));
    }
    let total = check_shards(ledgers)?;
    let mut records = Vec::new();
    for ledger in ledgers {
        if ledger.spec().problem != plan.spec() {
            return Err(Error::InvalidInput(format!(
                "{}: '{}' is not a ledger of '{}'",
                ledger.path().display(),
                ledger.spec().problem,
                plan.spec()
            )));
        }
        let path = ledger.path();
        records.extend(ledger.batches()?.into_iter().map(|record| (record, path)));
    }
    records.sort_by_key(|(record, _)| record.id);
    // Folded batch by batch so that a record the plan refuses names its ledger.
    let mut context = plan.initial_context()?;
    for (record, path) in &records {
        context = plan.advance(context, record).map_err(naming(path))?;
    }
    let records: Vec<BatchRecord> = records.into_iter().map(|(record, _)| record).collect();
    Ok(Finished {
        total,
        context,
        shard: Shard::WHOLE,
        devices: devices(&records),
    })
}

/// The distinct devices that ran `records`, in order of first appearance.
fn devices(records: &[BatchRecord]) -> Vec<String> {
    let mut seen = Vec::new();
    for record in records {
        if !seen.contains(&record.device) {
            seen.push(record.device.clone());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batched::{BatchValue, Recheck};

    /// Batches `0..10`, each counting its own number; the context keeps the largest count.
    struct Numbers;

    impl BatchPlan for Numbers {
        fn spec(&self) -> String {
            "numbers v1".into()
        }
        fn batches(&self) -> u64 {
            10
        }
        fn initial_context(&self) -> Result<Value> {
            Ok(Value::from(0))
        }
        fn advance(&self, context: Value, record: &BatchRecord) -> Result<Value> {
            Ok(Value::from(
                context.as_u64().unwrap().max(record.count as u64),
            ))
        }
        fn recheck(&self, record: &BatchRecord) -> Result<Recheck> {
            Ok(Recheck {
                by: "identity",
                mismatch: (record.count != u128::from(record.id)).then(|| "wrong".into()),
            })
        }
    }

    struct Counter;

    impl BatchWorker for Counter {
        fn backend(&self) -> &'static str {
            "cpu"
        }
        fn device(&self) -> String {
            "test".into()
        }
        fn run(&mut self, id: u64, _context: &Value) -> Result<BatchValue> {
            Ok(BatchValue {
                count: u128::from(id),
                detail: None,
            })
        }
    }

    #[test]
    fn shards_run_apart_and_merge_to_the_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for index in 0..3 {
            let path = dir.path().join(format!("s{index}.db"));
            let shard = Shard { index, count: 3 };
            let part =
                run_ledgered(&Numbers, &mut Counter, &path, shard, &Progress::hidden()).unwrap();
            assert!(!part.is_whole());
            paths.push(path);
        }
        let ledgers: Vec<Ledger> = paths
            .iter()
            .map(|p| Ledger::open_existing(p).unwrap())
            .collect();
        let merged = merge(&Numbers, &ledgers).unwrap();
        assert_eq!((merged.total, merged.context.as_u64()), (45, Some(9)));
        assert!(merged.is_whole());
    }

    /// A ledger written before digests (schema 1) is refused by the merge, naming it, until a
    /// run of its command adds them.
    #[test]
    fn a_ledger_without_digests_merges_only_after_a_run_adds_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        run_ledgered(
            &Numbers,
            &mut Counter,
            &path,
            Shard::WHOLE,
            &Progress::hidden(),
        )
        .unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch("ALTER TABLE batches DROP COLUMN digest; PRAGMA user_version = 1;")
            .unwrap();
        let old = [Ledger::open_existing(&path).unwrap()];
        let refused = merge(&Numbers, &old).err().unwrap();
        assert_eq!(refused.exit_code(), 2);
        assert!(refused
            .to_string()
            .contains("old.db was made by an older thicket"));
        drop(old);
        let again = run_ledgered(
            &Numbers,
            &mut Counter,
            &path,
            Shard::WHOLE,
            &Progress::hidden(),
        );
        assert_eq!(again.unwrap().total, 45);
        let merged = merge(&Numbers, &[Ledger::open_existing(&path).unwrap()]).unwrap();
        assert_eq!(merged.total, 45);
    }

    #[test]
    fn shards_are_parsed() {
        assert_eq!(Shard::parse("2/5").unwrap(), Shard { index: 2, count: 5 });
        assert!(Shard::parse("5/5").is_err());
        assert!(Shard::parse("x").is_err());
    }
}
