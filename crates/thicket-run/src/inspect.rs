//! Reading a ledger without running it: progress, rate and ETA with every batch's check
//! values and digest checked (`thicket status`), and a recheck of random finished batches by
//! an independent algorithm (`thicket verify`).

use rand::seq::index::sample;
use rand::SeedableRng;
use serde::Serialize;
use thicket_core::{Error, Result};

use crate::batched::BatchPlan;
use crate::ledger::Ledger;

/// A ledger's progress.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    /// The problem the ledger was made for.
    pub problem: String,
    /// The shard it holds, `i/K`.
    pub shard: String,
    /// Batches of the shard.
    pub batches: usize,
    /// Batches recorded.
    pub done: usize,
    /// Batches per second of compute time.
    pub batches_per_second: f64,
    /// Seconds of compute left at that rate; `None` before the first batch.
    pub eta_seconds: Option<f64>,
    /// Batches whose check values disagree with their count or whose row does not match its
    /// digest.
    pub corrupt: usize,
    /// The first of them, naming the ledger and the batch (`FILE: batch 4: ...`).
    pub fault: Option<String>,
    /// Whether the batches carry digests (false for a ledger of schema 1, which `merge`
    /// refuses until a run of its command adds them).
    pub digests: bool,
}

/// The progress of the ledger.
pub fn status(ledger: &Ledger) -> Result<Status> {
    let spec = ledger.spec();
    let audited = ledger.audited_batches()?;
    let faults: Vec<&String> = audited.iter().filter_map(|(_, f)| f.as_ref()).collect();
    let batches: Vec<_> = audited.iter().map(|(record, _)| record).collect();
    let owned = spec.owned().count();
    let busy: f64 = batches.iter().map(|b| b.seconds).sum();
    let rate = if busy > 0.0 {
        batches.len() as f64 / busy
    } else {
        0.0
    };
    let left = owned.saturating_sub(batches.len());
    Ok(Status {
        problem: spec.problem.clone(),
        shard: format!("{}/{}", spec.shard.0, spec.shard.1),
        batches: owned,
        done: batches.len(),
        batches_per_second: rate,
        eta_seconds: (rate > 0.0).then(|| left as f64 / rate),
        corrupt: faults.len(),
        fault: faults
            .first()
            .map(|fault| format!("{}: {fault}", ledger.path().display())),
        digests: ledger.has_digests(),
    })
}

/// The result of [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Batches rechecked, in order.
    pub checked: Vec<u64>,
    /// The algorithms that rechecked them.
    pub recounted_by: Vec<&'static str>,
}

/// Checks every batch's check values and digest, then rechecks `sample` random finished
/// batches of the ledger (chosen by `seed`) with `plan`'s independent algorithm. A corrupt,
/// altered or disagreeing batch is an [`Error::Verification`] naming the first one.
pub fn verify(
    plan: &dyn BatchPlan,
    ledger: &Ledger,
    sample_size: usize,
    seed: u64,
) -> Result<Verification> {
    if sample_size == 0 {
        return Err(Error::InvalidInput(format!(
            "{}: a sample of 0 batches checks nothing; ask for at least 1",
            ledger.path().display()
        )));
    }
    if ledger.spec().problem != plan.spec() {
        return Err(Error::InvalidInput(format!(
            "{}: '{}' does not describe this version's batches ('{}')",
            ledger.path().display(),
            ledger.spec().problem,
            plan.spec()
        )));
    }
    let records = ledger.batches()?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut picked = sample(&mut rng, records.len(), sample_size.min(records.len())).into_vec();
    picked.sort_unstable();
    let mut report = Verification {
        checked: Vec::new(),
        recounted_by: Vec::new(),
    };
    let mut mismatches = Vec::new();
    for index in picked {
        let record = &records[index];
        let recheck = plan.recheck(record)?;
        if !report.recounted_by.contains(&recheck.by) {
            report.recounted_by.push(recheck.by);
        }
        report.checked.push(record.id);
        if let Some(mismatch) = recheck.mismatch {
            mismatches.push((record.id, mismatch));
        }
    }
    report.recounted_by.sort_unstable();
    match mismatches.first() {
        Some((id, what)) => Err(Error::Verification(format!(
            "{}: batch {id}: {what} ({} of {} sampled batches differ)",
            ledger.path().display(),
            mismatches.len(),
            report.checked.len()
        ))),
        None => Ok(report),
    }
}
