//! N-Queens in batches for the run layer ([`thicket_run`]): the canonical constellations of
//! `n`, in their fixed order, cut into batches ([`Batches`], a [`BatchPlan`]); every finished
//! batch's weighted total goes into the ledger, so a killed run resumes where it stopped and
//! shards of one run can be counted apart and merged. The unique count of a complete run comes
//! from Burnside's lemma (see [`crate::rotations`]), so batches need only totals and any
//! backend (the CPU counter or the GPU kernel, [`BatchCounter`]) can count any batch; `verify`
//! recounts a batch with the algorithm of the other backend.

use serde_json::Value;
use thicket_core::{with_fallback, Backend, Error, Progress, Result};
use thicket_run::{BatchPlan, BatchRecord, BatchValue, BatchWorker, Recheck};

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{validate_n, QueensCount};
use crate::cpu::search_constellations;
use crate::gpu::queens::tasks::{gpu_plans, split};
use crate::gpu::queens::{border_only_total, GpuCounter, GpuOptions};
use crate::rotations::{count_fixed, unique_from_total, Turn};

/// The default batch size, from the board size alone so that every backend, machine and
/// resumed run cuts the same batches: 64 constellations up to N = 21, then half as many for
/// each larger N down to 1 from N = 27 on. A batch's work grows about 8x per N while the
/// constellations grow 1.2x, so a batch stays between a fraction of a second and minutes on
/// one GPU (docs/long-runs.md tabulates them) and a run has enough
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
                "the batch size must be at least 1".into(),
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

    /// The batches a ledger's spec names (`queens n=.. constellations=.. batch-size=..
    /// order=..`); a spec of another problem, or of another version's batches, is refused.
    pub fn from_spec(problem: &str) -> Result<Batches> {
        let field = |key: &str| {
            problem
                .split_whitespace()
                .filter_map(|word| word.split_once('='))
                .find(|(k, _)| *k == key)
                .and_then(|(_, v)| v.parse::<usize>().ok())
        };
        let (Some(n), Some(batch_size), true) = (
            field("n"),
            field("batch-size"),
            problem.starts_with("queens "),
        ) else {
            return Err(Error::InvalidInput(format!(
                "'{problem}' is not a queens ledger"
            )));
        };
        let batches = Batches::new(n, batch_size)?;
        if batches.spec() != problem {
            return Err(Error::InvalidInput(format!(
                "'{problem}' does not describe this version's batches of N = {n}"
            )));
        }
        Ok(batches)
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

impl BatchPlan for Batches {
    /// Names everything the batches depend on (and nothing else, so that any backend can
    /// resume any run).
    fn spec(&self) -> String {
        format!(
            "queens n={} constellations={} batch-size={} order=canonical-v1",
            self.n,
            self.constellations.len(),
            self.batch_size
        )
    }

    fn batches(&self) -> u64 {
        self.len()
    }

    /// Batches the CPU counter recorded are recounted by the kernel's top-down row search (run
    /// on the CPU); batches a GPU recorded (the row search) are recounted by the CPU counter.
    fn recheck(&self, record: &BatchRecord) -> Result<Recheck> {
        let batch = self.batch(record.id);
        let (by, recomputed) = if record.backend == "cpu" {
            ("the row search", count_batch_rows(self.n, batch))
        } else {
            ("the CPU counter", count_batch_cpu(self.n, batch)?)
        };
        Ok(Recheck {
            by,
            mismatch: (recomputed != record.count).then(|| {
                format!(
                    "the ledger says {}, recomputing gives {recomputed}",
                    record.count
                )
            }),
        })
    }
}

/// What counts batches: a pool of CPU threads running the CPU counter, or open GPUs.
pub struct BatchCounter<'a> {
    batches: &'a Batches,
    engine: Engine,
    notes: Vec<String>,
}

/// The engine of a [`BatchCounter`].
enum Engine {
    /// The CPU counter (the join, else the line search) on a pool of threads.
    Cpu {
        pool: rayon::ThreadPool,
        threads: usize,
    },
    /// The GPU kernel on the open devices.
    Gpu(GpuCounter),
}

impl<'a> BatchCounter<'a> {
    /// A counter of `batches` on `backend`: with `Auto` the GPUs of `gpu` if they can be used,
    /// else `threads` CPU threads (said in [`BatchCounter::notes`], `who` prefixing the note,
    /// e.g. an MPI rank).
    pub fn open(
        batches: &'a Batches,
        backend: Backend,
        threads: usize,
        gpu: &GpuOptions,
        who: &str,
    ) -> Result<BatchCounter<'a>> {
        let mut notes = Vec::new();
        let engine = with_fallback(backend, "counting", &mut notes, |backend| match backend {
            Backend::Cuda => GpuCounter::open(batches.n, gpu).map(Engine::Gpu),
            _ => Ok(Engine::Cpu {
                pool: thicket_core::pool(threads)?,
                threads,
            }),
        })?;
        let notes = notes
            .into_iter()
            .map(|note| format!("{who}{note}"))
            .collect();
        Ok(BatchCounter {
            batches,
            engine,
            notes,
        })
    }

    /// What the caller should hear about how the counter opened (why `auto` counts on the CPU).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Names of the GPUs counting, empty on the CPU.
    pub fn device_names(&self) -> Vec<String> {
        match &self.engine {
            Engine::Cpu { .. } => Vec::new(),
            Engine::Gpu(gpu) => gpu.device_names(),
        }
    }
}

impl BatchWorker for BatchCounter<'_> {
    fn backend(&self) -> &'static str {
        match self.engine {
            Engine::Cpu { .. } => "cpu",
            Engine::Gpu(_) => "cuda",
        }
    }

    fn device(&self) -> String {
        match &self.engine {
            Engine::Cpu { threads, .. } => format!("{threads} CPU threads"),
            Engine::Gpu(gpu) => gpu.device_names().join(", "),
        }
    }

    fn run(&mut self, id: u64, _context: &Value) -> Result<BatchValue> {
        let (n, batch) = (self.batches.n, self.batches.batch(id));
        let count = match &mut self.engine {
            Engine::Cpu { pool, .. } => pool.install(|| count_batch_cpu(n, batch))?,
            Engine::Gpu(gpu) => gpu.count(batch)?,
        };
        Ok(BatchValue {
            count,
            detail: None,
        })
    }

    /// On the GPUs, the next batch is split into tasks on the host while the devices count
    /// the current one.
    fn run_each(
        &mut self,
        ids: &[u64],
        context: Value,
        finish: &mut dyn FnMut(u64, BatchValue, f64) -> Result<Value>,
    ) -> Result<()> {
        let batches = self.batches;
        let Engine::Gpu(gpu) = &mut self.engine else {
            return thicket_run::batched::one_by_one(self, ids, context, finish);
        };
        let work = ids.iter().map(|&id| (id, batches.batch(id)));
        gpu.count_batches(work, |id, count, seconds| {
            let value = BatchValue {
                count,
                detail: None,
            };
            finish(id, value, seconds).map(drop)
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::known_counts;
    use thicket_run::runner::{self, ledger_spec, run_ledgered};
    use thicket_run::{inspect, Ledger, Shard};

    fn cpu_counter(batches: &Batches, threads: usize) -> BatchCounter<'_> {
        BatchCounter::open(batches, Backend::Cpu, threads, &GpuOptions::default(), "").unwrap()
    }

    #[test]
    fn a_resumed_run_gives_the_oeis_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q11.db");
        let batches = Batches::new(11, 7).unwrap();
        // A run that stopped after a few batches, recorded by a GPU: write them by hand with
        // the kernel's algorithm, then resume on the CPU.
        {
            let ledger =
                Ledger::open_or_create(&path, &ledger_spec(&batches, Shard::WHOLE)).unwrap();
            for id in [0, 3, 4] {
                let total = count_batch_rows(11, batches.batch(id));
                ledger
                    .record(&BatchRecord::new(id, total, "cuda", "test", 0.0))
                    .unwrap();
            }
        }
        let mut counter = cpu_counter(&batches, 2);
        let finished = run_ledgered(
            &batches,
            &mut counter,
            &path,
            Shard::WHOLE,
            &Progress::hidden(),
        )
        .unwrap();
        let (total, unique) = known_counts(11).unwrap();
        assert!(finished.is_whole());
        assert_eq!(
            counts_from_total(11, finished.total).unwrap(),
            QueensCount {
                n: 11,
                total,
                unique
            }
        );
        let ledger = Ledger::open_existing(&path).unwrap();
        let report = inspect::verify(&batches, &ledger, 100, 1).unwrap();
        assert_eq!(report.checked.len(), batches.len() as usize);
        // GPU batches are recounted by the CPU counter, CPU batches by the row search.
        assert_eq!(report.recounted_by, ["the CPU counter", "the row search"]);
    }

    /// A wrong count that a faulty device recorded (its check values and digest computed by
    /// thicket, so the merge cannot tell) is caught by `verify`'s recount. (Counts edited on
    /// disk are refused by the merge through their digests: `tests/ledger.rs` of the CLI.)
    #[test]
    fn a_faulty_devices_count_is_caught_by_the_recount() {
        let dir = tempfile::tempdir().unwrap();
        let batches = Batches::new(10, 8).unwrap();
        let path = dir.path().join("q10.db");
        let spec = ledger_spec(&batches, Shard::WHOLE);
        {
            let ledger = Ledger::open_or_create(&path, &spec).unwrap();
            for id in 0..batches.len() {
                let mut count = count_batch_cpu(10, batches.batch(id)).unwrap();
                if id == 2 {
                    count += 195;
                }
                let record = BatchRecord::new(id, count, "cpu", "test", 0.0);
                ledger.record(&record).unwrap();
            }
        }
        let ledger = Ledger::open_existing(&path).unwrap();
        let merged = runner::merge(&batches, std::slice::from_ref(&ledger)).unwrap();
        assert_eq!(merged.total, known_counts(10).unwrap().0 + 195);
        let caught = inspect::verify(&batches, &ledger, 100, 1).err().unwrap();
        assert_eq!(caught.exit_code(), 3);
        assert!(
            caught.to_string().contains("batch 2: the ledger says"),
            "{caught}"
        );
    }

    #[test]
    fn shards_add_up_to_the_total() {
        let dir = tempfile::tempdir().unwrap();
        let batches = Batches::new(10, 5).unwrap();
        let mut sum = 0;
        for index in 0..3 {
            let path = dir.path().join(format!("s{index}.db"));
            let mut counter = cpu_counter(&batches, 1);
            let shard = Shard { index, count: 3 };
            let part =
                run_ledgered(&batches, &mut counter, &path, shard, &Progress::hidden()).unwrap();
            assert!(!part.is_whole());
            sum += part.total;
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
    fn batches_are_rebuilt_from_their_spec_alone() {
        let batches = Batches::new(12, 9).unwrap();
        let again = Batches::from_spec(&batches.spec()).unwrap();
        assert_eq!((again.n(), again.len()), (12, batches.len()));
        assert!(Batches::from_spec("atsp name=x n=5").is_err());
        assert!(Batches::from_spec("queens n=12 constellations=1 batch-size=9").is_err());
    }
}
