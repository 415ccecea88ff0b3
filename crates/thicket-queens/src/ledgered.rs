//! Ledgered counts: the canonical constellations of `n`, in their fixed order, cut into
//! batches; every finished batch's weighted total goes into a [`Ledger`], so a killed run
//! resumes where it stopped and shards of one run can be counted apart and merged. The unique
//! count of a complete run comes from Burnside's lemma (see [`crate::rotations`]), so batches
//! need only totals and any backend (the CPU counter or the GPU kernel) can count any
//! batch.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use rand::seq::index::sample;
use rand::SeedableRng;
use thicket_core::ledger::{BatchRecord, Ledger, LedgerSpec};
use thicket_core::{Error, Progress, Result};

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{validate_n, QueensCount};
use crate::cpu::search_constellations;
use crate::gpu::tasks::{gpu_plans, split};
use crate::gpu::{border_only_total, GpuCounter};
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

/// The default batch size, from the board size alone so that every backend, machine and
/// resumed run cuts the same batches: 64 constellations up to N = 21, then half as many for
/// each larger N down to 1 from N = 27 on. A batch's work grows about 8x per N while the
/// constellations grow 1.2x, so a batch stays between a fraction of a second and minutes on
/// one GPU (about 14 minutes at N = 27 with the kernel of 2026-11) and a run has enough
/// batches (1,000 to 40,000 from N = 23 on) to spread over many GPUs and to lose little when
/// killed.
pub fn default_batch_size(n: usize) -> usize {
    64 >> n.saturating_sub(21).min(6)
}

/// The batches of one board: the canonical constellations in their fixed order, cut into
/// batches of `batch_size`.
pub struct Batches {
    n: usize,
    batch_size: usize,
    constellations: Vec<CanonicalConstellation>,
}

impl Batches {
    /// The batches of `n` (1 <= n <= 32) of `batch_size` (at least 1) constellations.
    pub fn new(n: usize, batch_size: usize) -> Result<Batches> {
        validate_n(n)?;
        if batch_size == 0 {
            return Err(Error::InvalidInput(
                "--batch-size must be at least 1".into(),
            ));
        }
        Ok(Batches {
            n,
            batch_size,
            constellations: canonical_constellations(n),
        })
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// How many batches there are.
    pub fn len(&self) -> u64 {
        self.constellations.len().div_ceil(self.batch_size) as u64
    }

    /// Whether there is no batch (never: every board has a constellation).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ledger spec of these batches and `shard`, which names everything the batches
    /// depend on (and nothing else, so that any backend can resume any run).
    pub fn spec(&self, shard: (u64, u64)) -> LedgerSpec {
        LedgerSpec {
            problem: format!(
                "queens n={} constellations={} batch-size={} order=canonical-v1",
                self.n,
                self.constellations.len(),
                self.batch_size
            ),
            batches: self.len(),
            shard,
        }
    }

    /// The constellations of batch `id` (empty past the last batch).
    pub fn batch(&self, id: u64) -> &[CanonicalConstellation] {
        let start = usize::try_from(id)
            .ok()
            .and_then(|id| id.checked_mul(self.batch_size))
            .map_or(self.constellations.len(), |s| {
                s.min(self.constellations.len())
            });
        let end = start
            .saturating_add(self.batch_size)
            .min(self.constellations.len());
        &self.constellations[start..end]
    }
}

/// What counts batches: a pool of CPU threads running the CPU counter, or open GPUs.
pub enum BatchCounter {
    /// The CPU counter (the join, else the line search) on a pool of threads.
    Cpu {
        /// The pool the batches run on.
        pool: rayon::ThreadPool,
        /// Its thread count.
        threads: usize,
    },
    /// The GPU kernel on the open devices.
    Gpu(GpuCounter),
}

impl BatchCounter {
    /// A CPU counter with `threads` threads.
    pub fn cpu(threads: usize) -> Result<BatchCounter> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| Error::Unavailable(format!("cannot start {threads} CPU threads: {e}")))?;
        Ok(BatchCounter::Cpu {
            pool,
            threads: threads.max(1),
        })
    }

    /// The backend's name, as the ledger records it.
    pub fn backend(&self) -> &'static str {
        match self {
            BatchCounter::Cpu { .. } => "cpu",
            BatchCounter::Gpu(_) => "cuda",
        }
    }

    /// Where the batches run, as the ledger records it.
    pub fn device(&self) -> String {
        match self {
            BatchCounter::Cpu { threads, .. } => format!("{threads} CPU threads"),
            BatchCounter::Gpu(gpu) => gpu.device_names().join(", "),
        }
    }

    /// The weighted total of `batch`.
    pub fn count(&mut self, n: usize, batch: &[CanonicalConstellation]) -> Result<u128> {
        match self {
            BatchCounter::Cpu { pool, .. } => pool.install(|| count_batch_cpu(n, batch)),
            BatchCounter::Gpu(gpu) => gpu.count(batch),
        }
    }
}

/// Counts batch `id` of `batches` on `counter` and returns its record; `device` names where
/// it ran (the counter's own [`BatchCounter::device`], or more, e.g. with the MPI rank).
pub fn count_batch(
    batches: &Batches,
    counter: &mut BatchCounter,
    id: u64,
    device: &str,
) -> Result<BatchRecord> {
    let started = Instant::now();
    let total = counter.count(batches.n, batches.batch(id))?;
    Ok(BatchRecord::new(
        id,
        total,
        counter.backend(),
        device,
        started.elapsed().as_secs_f64(),
    ))
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

/// Opens (or creates) the ledger of `split` at `ledger_path` and lists the batches of its
/// shard that it does not hold yet, in order.
pub fn open(split: &Split, ledger_path: &Path) -> Result<(Batches, Ledger, Vec<u64>)> {
    let batches = Batches::new(split.n, split.batch_size)?;
    let spec = batches.spec(split.shard);
    let ledger = Ledger::open_or_create(ledger_path, &spec)?;
    let done = ledger.finished()?;
    let todo = spec.owned().filter(|id| !done.contains(id)).collect();
    Ok((batches, ledger, todo))
}

/// Counts the batches of `split` that `ledger_path` does not hold yet on `counter`, recording
/// each as it finishes, then returns the result of the whole ledger.
pub fn run(
    split: &Split,
    ledger_path: &Path,
    counter: &mut BatchCounter,
    progress: &Progress,
) -> Result<LedgerOutcome> {
    let (batches, ledger, todo) = open(split, ledger_path)?;
    let owned = ledger.spec().owned().count() as u64;
    progress.set_total(owned);
    progress.inc(owned - todo.len() as u64);
    let device = counter.device();
    let backend = counter.backend();
    match counter {
        BatchCounter::Gpu(gpu) => {
            let work = todo.iter().map(|&id| (id, batches.batch(id)));
            gpu.count_batches(work, |id, total, seconds| {
                ledger.record(&BatchRecord::new(id, total, backend, &device, seconds))?;
                progress.inc(1);
                Ok(())
            })?;
        }
        BatchCounter::Cpu { .. } => {
            for id in todo {
                ledger.record(&count_batch(&batches, counter, id, &device)?)?;
                progress.inc(1);
            }
        }
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

/// A batch's weighted total by the CPU counter (the join, else the line search).
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
    /// The algorithms the sample was recomputed with.
    pub recounted_by: BTreeSet<&'static str>,
}

/// Recomputes `sample` random finished batches of a queens ledger on the CPU with an
/// algorithm other than the one that recorded them, and compares; `seed` fixes the sample.
/// Batches the CPU counter recorded are recounted by the kernel's top-down row search (run on
/// the CPU); batches a GPU recorded (the row search) are recounted by the CPU counter.
pub fn verify(ledger: &Ledger, sample: usize, seed: u64) -> Result<Verification> {
    let n = parse_n(&ledger.spec().problem)?;
    let batch_size = parse_field(&ledger.spec().problem, "batch-size")?;
    let batches = Batches::new(n, batch_size)?;
    if batches.spec(ledger.spec().shard) != *ledger.spec() {
        return Err(Error::InvalidInput(format!(
            "'{}' does not describe this version's batches of N = {n}",
            ledger.spec().problem
        )));
    }
    let records = ledger.batches()?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let picked = sample_indices(&mut rng, records.len(), sample);
    let mut report = Verification {
        checked: Vec::new(),
        mismatches: Vec::new(),
        recounted_by: BTreeSet::new(),
    };
    for index in picked {
        let record = &records[index];
        let batch = batches.batch(record.id);
        let recomputed = if record.backend == "cpu" {
            report.recounted_by.insert("the row search");
            count_batch_rows(n, batch)
        } else {
            report.recounted_by.insert("the CPU counter");
            count_batch_cpu(n, batch)?
        };
        report.checked.push(record.id);
        if recomputed != record.count {
            report
                .mismatches
                .push((record.id, record.count, recomputed));
        }
    }
    Ok(report)
}

fn sample_indices(rng: &mut rand::rngs::StdRng, len: usize, amount: usize) -> Vec<usize> {
    let mut picked = sample(rng, len, amount.min(len)).into_vec();
    picked.sort_unstable();
    picked
}

/// The board size a queens ledger was made for; other ledgers (ATSP) are refused.
pub fn parse_n(problem: &str) -> Result<usize> {
    if !problem.starts_with("queens ") {
        return Err(Error::InvalidInput(format!(
            "'{problem}' is not a queens ledger (an ATSP ledger checks its tours against the instance whenever its run resumes)"
        )));
    }
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
        let batches = Batches::new(11, 7).unwrap();
        // A run that stopped after a few batches, recorded by a GPU: write them by hand with
        // the kernel's algorithm, then resume on the CPU.
        {
            let ledger = Ledger::open_or_create(&path, &batches.spec((0, 1))).unwrap();
            for id in [0, 3, 4] {
                let total = count_batch_rows(11, batches.batch(id));
                ledger
                    .record(&BatchRecord::new(id, total, "cuda", "test", 0.0))
                    .unwrap();
            }
        }
        let mut counter = BatchCounter::cpu(2).unwrap();
        let outcome = run(&split, &path, &mut counter, &Progress::hidden()).unwrap();
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
        let report = verify(&ledger, 100, 1).unwrap();
        assert_eq!(report.checked.len(), batches.len() as usize);
        assert!(report.mismatches.is_empty());
        // GPU batches are recounted by the CPU counter, CPU batches by the row search.
        assert_eq!(
            report.recounted_by,
            BTreeSet::from(["the CPU counter", "the row search"])
        );
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
            let mut counter = BatchCounter::cpu(1).unwrap();
            match run(&split, &path, &mut counter, &Progress::hidden()).unwrap() {
                LedgerOutcome::ShardDone { partial_total } => sum += partial_total,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(sum, known_counts(10).unwrap().0);
    }

    #[test]
    fn both_batch_algorithms_agree() {
        let batches = Batches::new(12, 40).unwrap();
        for id in 0..5 {
            let b = batches.batch(id);
            assert_eq!(
                count_batch_cpu(12, b).unwrap(),
                count_batch_rows(12, b),
                "batch {id}"
            );
        }
    }

    #[test]
    fn batches_cover_every_constellation_once() {
        let batches = Batches::new(13, 64).unwrap();
        let covered: usize = (0..batches.len()).map(|id| batches.batch(id).len()).sum();
        assert_eq!(covered, canonical_constellations(13).len());
        assert!(batches.batch(batches.len()).is_empty());
        assert!(batches.batch(u64::MAX).is_empty());
        assert!(Batches::new(13, 0).is_err());
    }

    #[test]
    fn the_default_batch_size_halves_from_n_22_on() {
        assert_eq!(default_batch_size(8), 64);
        assert_eq!(default_batch_size(21), 64);
        assert_eq!(default_batch_size(22), 32);
        assert_eq!(default_batch_size(26), 2);
        assert_eq!(default_batch_size(27), 1);
        assert_eq!(default_batch_size(32), 1);
    }

    #[test]
    fn shards_are_parsed() {
        assert_eq!(parse_shard("2/5").unwrap(), (2, 5));
        assert!(parse_shard("5/5").is_err());
        assert!(parse_shard("x").is_err());
    }
}
