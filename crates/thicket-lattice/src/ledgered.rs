//! Books at scale through the run layer ([`thicket_run`]): a book cut into batches of
//! consecutive options ([`BookBatches`], a [`BatchPlan`]), each batch priced as a book of its
//! own ([`crate::price_book`], one GPU launch or the caller's CPU pool) and recorded in the
//! ledger with every option's price and Greeks. A killed run resumes with the batches the
//! ledger lacks; shards of one run (`--shard i/K`: batches i mod K) merge into the whole; the
//! priced book comes out in the book's row order, byte for byte what one uninterrupted run
//! writes. Under MPI, rank 0 owns the ledger and every rank prices batches; in one process,
//! every GPU asked for prices a batch at a time.
//!
//! The ledger stores the book itself (its CSV as read), so that `thicket status`, `verify`
//! and `merge` need only the ledger files.

use std::path::PathBuf;

use serde_json::Value;
use thicket_core::{Backend, Error, Progress, Result, StopFlag};
use thicket_run::runner::{self, Shard};
use thicket_run::{BatchPlan, BatchRecord, BatchValue, BatchWorker, Ledger, Recheck};

use crate::book_csv::{parse_book, Book};
use crate::gpu::LatticeGpu;
use crate::run::{price_book, PriceOptions};
use crate::scheme::{Precision, Priced};
use crate::strategy::Strategy;
use crate::verify::verify;

/// The options of one batch by default: enough for a GPU launch to fill an H100 (132 SMs, a
/// block per option) many times over, few enough that a killed run loses seconds.
pub const BOOK_BATCH_SIZE: usize = 16_384;

/// How many options of a batch `thicket verify` reprices (spread over the batch).
const RECHECKED_PER_BATCH: usize = 16;

/// A book cut into batches of consecutive options.
pub struct BookBatches {
    book: Book,
    batch_size: usize,
    precision: Precision,
    vega_rho: bool,
    /// FNV-1a of the book's CSV as read: a ledger made for another book is refused.
    hash: u64,
}

impl BookBatches {
    /// `book` in batches of `batch_size` options, priced in `precision`, with vega and rho
    /// where `vega_rho`. A book read with [`crate::OnError::Note`] is refused: the ledger
    /// stores the book's CSV and reads it back as a book whose every row is an option.
    pub fn new(
        book: Book,
        batch_size: usize,
        precision: Precision,
        vega_rho: bool,
    ) -> Result<BookBatches> {
        if batch_size == 0 {
            return Err(Error::InvalidInput("a batch of 0 options".into()));
        }
        if book.on_error() == crate::OnError::Note {
            return Err(Error::InvalidInput(
                "a book read with --on-error note cannot be priced through a ledger (--ledger): \
                 its rows must all read; fix the book or leave --ledger out"
                    .into(),
            ));
        }
        let hash = fnv1a(book.csv().as_bytes());
        Ok(BookBatches {
            book,
            batch_size,
            precision,
            vega_rho,
            hash,
        })
    }

    /// The plan a ledger describes: its spec (batch size, precision, Greeks) and its stored
    /// book; a ledger whose spec or book does not parse is corrupt ([`Error::Verification`]).
    pub fn from_ledger(spec: &str, input: Option<&str>) -> Result<BookBatches> {
        let corrupt = |what: &str| Error::Verification(format!("'{spec}': {what}"));
        let field = |key: &str| {
            spec.split_whitespace()
                .filter_map(|w| w.split_once('='))
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v)
                .ok_or_else(|| corrupt(&format!("no {key}")))
        };
        let batch_size = field("batch-size")?
            .parse()
            .map_err(|_| corrupt("a bad batch size"))?;
        let precision = field("precision")?
            .parse()
            .map_err(|_| corrupt("a bad precision"))?;
        let vega_rho = field("vega-rho")? == "yes";
        let text = input.ok_or_else(|| corrupt("the ledger holds no book"))?;
        let book = parse_book("the ledger's book", text)
            .map_err(|e| corrupt(&format!("its book does not read: {}", e.message())))?;
        let plan = BookBatches::new(book, batch_size, precision, vega_rho)?;
        if plan.spec() != spec {
            return Err(corrupt("its book does not match its spec"));
        }
        Ok(plan)
    }

    /// The book.
    pub fn book(&self) -> &Book {
        &self.book
    }

    /// The options of batch `id`, as positions in the book.
    fn range(&self, id: u64) -> std::ops::Range<usize> {
        let start = (id as usize)
            .saturating_mul(self.batch_size)
            .min(self.book.len());
        start..(start + self.batch_size).min(self.book.len())
    }

    /// Every option's answer from the finished batches `records` (every batch of the book,
    /// in any order), in the book's order.
    pub fn priced(&self, records: &[BatchRecord]) -> Result<Vec<Priced>> {
        let mut priced = vec![None; self.book.len()];
        for record in records {
            for (slot, answer) in priced[self.range(record.id)]
                .iter_mut()
                .zip(self.decode(record)?)
            {
                *slot = Some(answer);
            }
        }
        priced
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                p.ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "option {} of the book is in no finished batch",
                        i + 1
                    ))
                })
            })
            .collect()
    }

    /// The answers a batch's detail records, checked against the batch's size.
    fn decode(&self, record: &BatchRecord) -> Result<Vec<Priced>> {
        let corrupt = || Error::Verification(format!("batch {}: the ledger is corrupt", record.id));
        if !record.is_consistent() || record.id >= self.batches() {
            return Err(corrupt());
        }
        let detail = record.detail.as_deref().ok_or_else(corrupt)?;
        let priced: Vec<Priced> = detail
            .lines()
            .map(|line| decode_priced(line).ok_or_else(corrupt))
            .collect::<Result<_>>()?;
        if priced.len() != self.range(record.id).len() || record.count != priced.len() as u128 {
            return Err(corrupt());
        }
        Ok(priced)
    }
}

impl BatchPlan for BookBatches {
    /// The book's size and hash, the batch size, the precision and whether vega and rho are
    /// priced.
    fn spec(&self) -> String {
        format!(
            "lattice-book options={} book-fnv1a={:016x} batch-size={} precision={} vega-rho={}",
            self.book.len(),
            self.hash,
            self.batch_size,
            self.precision,
            if self.vega_rho { "yes" } else { "no" }
        )
    }

    fn batches(&self) -> u64 {
        self.book.len().div_ceil(self.batch_size) as u64
    }

    /// The book's CSV as read.
    fn input(&self) -> Option<String> {
        Some(self.book.csv())
    }

    /// Checks the batch's record (an answer per option); the context stays empty.
    fn advance(&self, context: Value, record: &BatchRecord) -> Result<Value> {
        self.decode(record)?;
        Ok(context)
    }

    /// Reprices up to 16 options of the batch, spread over it, on the
    /// f64 serial lattice (every path of the tree for small ones).
    fn recheck(&self, record: &BatchRecord) -> Result<Recheck> {
        let priced = self.decode(record)?;
        let range = self.range(record.id);
        let stride = range.len().div_ceil(RECHECKED_PER_BATCH).max(1);
        let mut mismatch = None;
        for k in (0..range.len()).step_by(stride) {
            let contract = &self.book.contracts()[range.start + k];
            if verify(contract, &priced[k], self.precision)? != Some(true) {
                mismatch = Some(format!(
                    "option {} (line {}): the ledger says {}, the serial lattice disagrees",
                    range.start + k + 1,
                    self.book.lines()[range.start + k],
                    priced[k].price
                ));
                break;
            }
        }
        Ok(Recheck {
            by: "the f64 serial lattice",
            mismatch,
        })
    }
}

/// One option's answer as a line of a batch's detail: price, delta, gamma, theta, vega, rho
/// (the last two empty where not computed), each in the shortest form that reads back.
fn encode_priced(p: &Priced) -> String {
    let optional = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
    format!(
        "{},{},{},{},{},{}",
        p.price,
        p.delta,
        p.gamma,
        p.theta,
        optional(p.vega),
        optional(p.rho)
    )
}

fn decode_priced(line: &str) -> Option<Priced> {
    let mut fields = line.split(',');
    let mut number = || fields.next()?.parse::<f64>().ok();
    let (price, delta, gamma, theta) = (number()?, number()?, number()?, number()?);
    let mut optional = || match fields.next()? {
        "" => Some(None),
        text => text.parse().ok().map(Some),
    };
    let (vega, rho) = (optional()?, optional()?);
    Some(Priced {
        price,
        delta,
        gamma,
        theta,
        vega,
        rho,
    })
}

/// Prices batches of a book: on the CPU (the caller's pool) or on each GPU asked for, one
/// batch per GPU at a time.
pub struct BookPricer<'a> {
    plan: &'a BookBatches,
    options: PriceOptions,
    /// The GPUs' ordinals; empty on the CPU.
    devices: Vec<usize>,
    names: Vec<String>,
    stop: Option<StopFlag>,
}

impl<'a> BookPricer<'a> {
    /// A pricer of `plan`'s batches as `options` ask (strategy, backend, precision), on the
    /// GPUs `devices` (where the backend is a GPU; `None`: every visible one); with `auto`
    /// and no usable GPU, on the CPU with a note in `notes`. It stops before its next batch
    /// once `stop` is raised.
    pub fn open(
        plan: &'a BookBatches,
        options: &PriceOptions,
        devices: Option<&[usize]>,
        stop: Option<StopFlag>,
        notes: &mut Vec<String>,
    ) -> Result<BookPricer<'a>> {
        if let Some(s @ (Strategy::Thesis | Strategy::Hybrid)) = options.strategy {
            return Err(Error::InvalidInput(format!(
                "strategy {s} prices one option at a time; a book takes serial, multicore or tiles"
            )));
        }
        let backend =
            thicket_core::backend_for(options.strategy, Strategy::is_gpu, options.run.backend)?;
        let (mut names, mut ordinals) = (Vec::new(), Vec::new());
        let backend = thicket_core::with_fallback(backend, "pricing", notes, |backend| {
            names.clear();
            if backend == Backend::Cuda {
                ordinals = match devices {
                    Some(devices) => devices.to_vec(),
                    None => (0..thicket_gpu::probe()?.len()).collect(),
                };
                for &device in &ordinals {
                    names.push(LatticeGpu::shared(device)?.name());
                }
            }
            Ok(backend)
        })?;
        let on_gpu = backend == Backend::Cuda;
        let options = PriceOptions {
            // Each batch priced once, silently: the run's progress counts batches.
            run: thicket_core::RunOptions {
                backend,
                trials: 1,
                quiet: true,
                verify: false,
            },
            strategy: Some(match (on_gpu, options.strategy) {
                (true, _) => Strategy::Tiles,
                (false, Some(Strategy::Serial)) => Strategy::Serial,
                (false, _) => Strategy::Multicore,
            }),
            precision: plan.precision,
            vega_rho: plan.vega_rho,
            ..*options
        };
        Ok(BookPricer {
            plan,
            options,
            devices: if on_gpu { ordinals } else { Vec::new() },
            names,
            stop,
        })
    }

    /// Prices batch `id` on the GPU `device` (`None`: the CPU) into its record's value.
    fn price(&self, id: u64, device: Option<usize>) -> Result<BatchValue> {
        if self.stop.as_ref().is_some_and(StopFlag::is_raised) {
            return Err(Error::Interrupted(
                "the run was stopped by its caller".into(),
            ));
        }
        let contracts = &self.plan.book.contracts()[self.plan.range(id)];
        let options = PriceOptions {
            device: device.unwrap_or(self.options.device),
            ..self.options
        };
        let book = price_book(contracts, &options)?.output;
        // A batch its caller stopped is not one: the ledger records whole batches only.
        if book.stopped {
            return Err(Error::Interrupted(
                "the run was stopped by its caller".into(),
            ));
        }
        let priced = book.priced;
        let mut detail = String::with_capacity(priced.len() * 100);
        for p in &priced {
            detail += &encode_priced(p);
            detail.push('\n');
        }
        Ok(BatchValue {
            count: priced.len() as u128,
            detail: Some(detail),
        })
    }
}

impl BatchWorker for BookPricer<'_> {
    fn backend(&self) -> &'static str {
        self.options.run.backend.name()
    }

    fn device(&self) -> String {
        match self.names.is_empty() {
            true => format!("{} CPU threads", rayon::current_num_threads()),
            false => self.names.join(" + "),
        }
    }

    fn run(&mut self, id: u64, _context: &Value) -> Result<BatchValue> {
        self.price(id, self.devices.first().copied())
    }

    /// One batch per GPU at a time, recorded in order; on the CPU one after the other.
    fn run_each(
        &mut self,
        ids: &[u64],
        context: Value,
        finish: &mut dyn FnMut(u64, BatchValue, f64) -> Result<Value>,
    ) -> Result<()> {
        if self.devices.len() < 2 {
            return thicket_run::batched::one_by_one(self, ids, context, finish);
        }
        let this = &*self;
        for group in ids.chunks(this.devices.len()) {
            let started = std::time::Instant::now();
            let values: Vec<Result<BatchValue>> = std::thread::scope(|scope| {
                let running: Vec<_> = group
                    .iter()
                    .zip(&this.devices)
                    .map(|(&id, &device)| scope.spawn(move || this.price(id, Some(device))))
                    .collect();
                running
                    .into_iter()
                    .map(|r| {
                        r.join()
                            .unwrap_or_else(|_| Err(Error::Gpu("a GPU's thread panicked".into())))
                    })
                    .collect()
            });
            let seconds = started.elapsed().as_secs_f64() / group.len() as f64;
            for (&id, value) in group.iter().zip(values) {
                finish(id, value?, seconds)?;
            }
        }
        Ok(())
    }
}

/// How a book runs through the run layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookBatching {
    /// The ledger that records every finished batch (a run resumes from it).
    pub ledger: PathBuf,
    /// The shard of the batches to price.
    pub shard: Shard,
    /// Under MPI (`mpirun ... --mpi`): rank 0 owns the ledger, every other rank prices.
    pub mpi: bool,
    /// Options per batch.
    pub batch_size: usize,
    /// The GPUs to price on, one batch each at a time (`None`: every visible one).
    pub devices: Option<Vec<usize>>,
}

/// What a ledgered book run ends with.
#[derive(Debug, Clone, PartialEq)]
pub enum LedgeredBook {
    /// Every batch is in the ledger: every option's answer, in the book's order.
    Whole(Vec<Priced>),
    /// Every batch of this shard is in its ledger (`thicket merge` joins the shards).
    Shard(Shard),
    /// An MPI worker rank: rank 0 reports.
    Worker,
}

/// Prices `plan`'s book batch by batch as `options` ask, recording each batch in the ledger
/// of `batching` and skipping those it holds; progress (batches, with an ETA) goes to the
/// installed observer unless `options.run.quiet`, and a [`StopFlag`] raised around the call
/// ([`thicket_core::stoppable`]) stops it before the next batch ([`Error::Interrupted`]; the
/// ledger keeps every finished batch). Notes (a GPU that was not usable) go to `notes`.
pub fn price_book_ledgered(
    plan: &BookBatches,
    options: &PriceOptions,
    batching: &BookBatching,
    notes: &mut Vec<String>,
) -> Result<LedgeredBook> {
    let label = format!("{} options", plan.book.len());
    let progress = Progress::new(plan.batches(), &label, options.run.quiet);
    let stop = progress.stop_flag();
    let ledger = batching.ledger.as_path();
    let finished = if batching.mpi {
        // A worker rank's fallback note stays on that rank: rank 0 reports the run, and the
        // ledger records each batch's device.
        let mut open = |_: &str| -> Result<Box<dyn BatchWorker + '_>> {
            let devices = batching.devices.as_deref();
            let pricer = BookPricer::open(plan, options, devices, None, &mut Vec::new())?;
            Ok(Box::new(pricer))
        };
        match thicket_run::mpi::run(plan, Some(ledger), batching.shard, &mut open, &progress)? {
            thicket_run::mpi::Role::Worker => return Ok(LedgeredBook::Worker),
            thicket_run::mpi::Role::Master(finished) => finished,
            thicket_run::mpi::Role::Alone => {
                run_here(plan, options, batching, stop, notes, &progress)?
            }
        }
    } else {
        run_here(plan, options, batching, stop, notes, &progress)?
    };
    progress.finish();
    if !finished.is_whole() {
        return Ok(LedgeredBook::Shard(finished.shard));
    }
    let records = Ledger::open_existing(ledger)?.batches()?;
    plan.priced(&records).map(LedgeredBook::Whole)
}

fn run_here(
    plan: &BookBatches,
    options: &PriceOptions,
    batching: &BookBatching,
    stop: Option<StopFlag>,
    notes: &mut Vec<String>,
    progress: &Progress,
) -> Result<runner::Finished> {
    let mut pricer = BookPricer::open(plan, options, batching.devices.as_deref(), stop, notes)?;
    runner::run_ledgered(
        plan,
        &mut pricer,
        &batching.ledger,
        batching.shard,
        progress,
    )
}

/// Every option's answer from the shard ledgers of one book run, merged (every shard once,
/// each complete, every batch checked against its digest), in the book's order, with the plan
/// they were made for. Every error names a ledger.
pub fn merge_book(ledgers: &[Ledger]) -> Result<(BookBatches, Vec<Priced>)> {
    let first = ledgers
        .first()
        .ok_or_else(|| Error::InvalidInput("no ledger to merge".into()))?;
    let spec = first.spec();
    let plan = BookBatches::from_ledger(&spec.problem, spec.input.as_deref()).map_err(|e| {
        let message = format!("{}: {}", first.path().display(), e.message());
        Error::from_kind(e.kind(), message)
    })?;
    runner::merge(&plan, ledgers)?;
    let mut records = Vec::new();
    for ledger in ledgers {
        records.extend(ledger.batches()?);
    }
    let priced = plan.priced(&records)?;
    Ok((plan, priced))
}

/// FNV-1a of `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
