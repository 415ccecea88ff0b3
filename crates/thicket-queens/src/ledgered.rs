//! Ledgered counts: the canonical constellations of `n`, in their fixed order, cut into
//! batches; every finished batch's weighted total goes into a [`Ledger`], so a killed run
//! resumes where it stopped and shards of one run can be counted apart and merged. The unique
//! count of a complete run comes from Burnside's lemma (see [`crate::rotations`]), so batches
//! need only totals and any backend can count any batch.

use std::path::Path;
use std::time::Instant;

use rand::seq::index::sample;
use rand::SeedableRng;
use thicket_core::ledger::{BatchRecord, Ledger, LedgerSpec};
use thicket_core::{Error, Progress, Result};

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{validate_n, QueensCount};
use crate::cpu::search_constellations;
use crate::gpu::border_only_total;
use crate::gpu::tasks::{gpu_plans, split};
use crate::rotations::{count_fixed, unique_from_total, Turn};

/// How a ledgered run cuts its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Board size.
    pub n: usize,
    /// Constellations per batch.
    pub batch_size: usize,
    /// The shard `(index, count)` to count.
    pub shard: (u64, u64),
}

impl Split {
    /// The ledger spec of this split, which names everything the batches depend on.
    fn spec(&self, constellations: usize) -> LedgerSpec {
        LedgerSpec {
            problem: format!(
                "queens n={} constellations={constellations} batch-size={} order=canonical-v1",
                self.n, self.batch_size
            ),
            batches: constellations.div_ceil(self.batch_size) as u64,
            shard: self.shard,
        }
    }
}

/// Parses a shard `i/K` (0 <= i < K).
pub fn parse_shard(text: &str) -> Result<(u64, u64)> {
    let bad = || {
        Error::InvalidInput(format!(
            "shard '{text}' is not of the form i/K with 0 <= i < K"
        ))
    };
    let (i, k) = text.split_once('/').ok_or_else(bad)?;
    let (i, k): (u64, u64) = (
        i.trim().parse().map_err(|_| bad())?,
        k.trim().parse().map_err(|_| bad())?,
    );
    if i < k {
        Ok((i, k))
    } else {
        Err(bad())
    }
}

/// The outcome of a ledgered run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerOutcome {
    /// Every batch of an unsharded run is recorded: the counts.
    Complete(QueensCount),
    /// A shard is complete: its part of the total (merge the shards for the counts).
    ShardDone {
        /// The sum of the shard's batches.
        partial_total: u128,
    },
}

/// Counts the batches of `split` that `ledger_path` does not hold yet on the CPU, recording
/// each as it finishes, then returns the result of the whole ledger.
pub fn run_cpu(
    split: &Split,
    ledger_path: &Path,
    threads: usize,
    progress: &Progress,
) -> Result<LedgerOutcome> {
    validate_n(split.n)?;
    if split.batch_size == 0 {
        return Err(Error::InvalidInput(
            "--batch-size must be at least 1".into(),
        ));
    }
    let constellations = canonical_constellations(split.n);
    let spec = split.spec(constellations.len());
    let ledger = Ledger::open_or_create(ledger_path, &spec)?;
    let done = ledger.finished()?;
    let todo: Vec<u64> = spec.owned().filter(|id| !done.contains(id)).collect();
    progress.set_total(spec.owned().count() as u64);
    progress.inc(done.len() as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::Unavailable(format!("cannot start {threads} CPU threads: {e}")))?;
    let device = format!("{threads} CPU threads");
    for id in todo {
        let started = Instant::now();
        let batch = batch(&constellations, split.batch_size, id);
        let total = pool.install(|| count_batch_cpu(split.n, batch))?;
        ledger.record(&BatchRecord::new(
            id,
            total,
            "cpu",
            &device,
            started.elapsed().as_secs_f64(),
        ))?;
        progress.inc(1);
    }
    outcome(split.n, &ledger)
}

/// The result a ledger holds: the counts when it is a complete unsharded run, the shard's sum
/// when it is a complete shard.
pub fn outcome(n: usize, ledger: &Ledger) -> Result<LedgerOutcome> {
    let total = ledger.checked_total()?;
    if ledger.spec().shard.1 > 1 {
        return Ok(LedgerOutcome::ShardDone {
            partial_total: total,
        });
    }
    Ok(LedgerOutcome::Complete(counts_from_total(n, total)?))
}

/// The counts of `n` queens from a total: the unique count by Burnside's lemma.
pub fn counts_from_total(n: usize, total: u128) -> Result<QueensCount> {
    let (half, quarter) = (count_fixed(n, Turn::Half), count_fixed(n, Turn::Quarter));
    Ok(QueensCount {
        n,
        total,
        unique: unique_from_total(n, total, half, quarter)?,
    })
}

/// The constellations of batch `id`.
fn batch(
    constellations: &[CanonicalConstellation],
    batch_size: usize,
    id: u64,
) -> &[CanonicalConstellation] {
    let start = (id as usize * batch_size).min(constellations.len());
    let end = (start + batch_size).min(constellations.len());
    &constellations[start..end]
}

/// A batch's weighted total by the CPU line search.
fn count_batch_cpu(n: usize, batch: &[CanonicalConstellation]) -> Result<u128> {
    let refs: Vec<&CanonicalConstellation> = batch.iter().collect();
    Ok(search_constellations(n, &refs, &Progress::hidden())?.weighted_total)
}

/// A batch's weighted total by a second, independent algorithm: the GPU kernel's top-down row
/// search run on the CPU.
fn count_batch_rows(n: usize, batch: &[CanonicalConstellation]) -> u128 {
    let plans = gpu_plans(n, batch);
    let searched: u128 = split(n, &plans, 0)
        .iter()
        .map(|t| u128::from(t.count(&plans, n)))
        .sum();
    searched + border_only_total(n, batch)
}

/// The result of `thicket verify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Batches recomputed.
    pub checked: Vec<u64>,
    /// Batches whose recomputed count differs from the ledger: `(id, ledger, recomputed)`.
    pub mismatches: Vec<(u64, u128, u128)>,
}

/// Recomputes `sample` random finished batches of a queens ledger with the other CPU
/// algorithm (the kernel's row search) and compares; `seed` fixes the sample.
pub fn verify(ledger: &Ledger, sample: usize, seed: u64) -> Result<Verification> {
    let n = parse_n(&ledger.spec().problem)?;
    let batch_size = parse_field(&ledger.spec().problem, "batch-size")?;
    let constellations = canonical_constellations(n);
    let records = ledger.batches()?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let picked = sample_indices(&mut rng, records.len(), sample);
    let mut mismatches = Vec::new();
    let mut checked = Vec::new();
    for index in picked {
        let record = &records[index];
        let recomputed = count_batch_rows(n, batch(&constellations, batch_size, record.id));
        checked.push(record.id);
        if recomputed != record.count {
            mismatches.push((record.id, record.count, recomputed));
        }
    }
    Ok(Verification {
        checked,
        mismatches,
    })
}

fn sample_indices(rng: &mut rand::rngs::StdRng, len: usize, amount: usize) -> Vec<usize> {
    let mut picked = sample(rng, len, amount.min(len)).into_vec();
    picked.sort_unstable();
    picked
}

/// The board size a queens ledger was made for.
pub fn parse_n(problem: &str) -> Result<usize> {
    parse_field(problem, "n")
}

fn parse_field(problem: &str, key: &str) -> Result<usize> {
    problem
        .split_whitespace()
        .filter_map(|word| word.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
        .ok_or_else(|| Error::InvalidInput(format!("'{problem}' is not a queens ledger")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::known_counts;

    #[test]
    fn a_resumed_run_gives_the_oeis_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q11.db");
        let split = Split {
            n: 11,
            batch_size: 7,
            shard: (0, 1),
        };
        let constellations = canonical_constellations(11);
        // A run that stopped after a few batches: record them by hand, then resume.
        {
            let ledger = Ledger::open_or_create(&path, &split.spec(constellations.len())).unwrap();
            for id in [0, 3, 4] {
                let total = count_batch_cpu(11, batch(&constellations, 7, id)).unwrap();
                ledger
                    .record(&BatchRecord::new(id, total, "cpu", "test", 0.0))
                    .unwrap();
            }
        }
        let outcome = run_cpu(&split, &path, 2, &Progress::hidden()).unwrap();
        let (total, unique) = known_counts(11).unwrap();
        assert_eq!(
            outcome,
            LedgerOutcome::Complete(QueensCount {
                n: 11,
                total,
                unique
            })
        );
        let ledger = Ledger::open_existing(&path).unwrap();
        let report = verify(&ledger, 5, 1).unwrap();
        assert_eq!(report.checked.len(), 5);
        assert!(report.mismatches.is_empty());
    }

    #[test]
    fn shards_add_up_to_the_total() {
        let dir = tempfile::tempdir().unwrap();
        let mut sum = 0;
        for i in 0..3 {
            let split = Split {
                n: 10,
                batch_size: 5,
                shard: (i, 3),
            };
            let path = dir.path().join(format!("s{i}.db"));
            match run_cpu(&split, &path, 1, &Progress::hidden()).unwrap() {
                LedgerOutcome::ShardDone { partial_total } => sum += partial_total,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(sum, known_counts(10).unwrap().0);
    }

    #[test]
    fn both_batch_algorithms_agree() {
        let constellations = canonical_constellations(12);
        for id in 0..5 {
            let b = batch(&constellations, 40, id);
            assert_eq!(
                count_batch_cpu(12, b).unwrap(),
                count_batch_rows(12, b),
                "batch {id}"
            );
        }
    }

    #[test]
    fn shards_are_parsed() {
        assert_eq!(parse_shard("2/5").unwrap(), (2, 5));
        assert!(parse_shard("5/5").is_err());
        assert!(parse_shard("x").is_err());
    }
}
