//! Ledgered runs: `thicket queens N --ledger FILE`, `status`, `verify` and `merge`.

use std::path::Path;
use std::time::Instant;

use serde_json::json;
use thicket_core::ledger::{merge as merge_ledgers, Ledger};
use thicket_core::{Backend, Error, Progress, Result, RunInfo};
use thicket_queens::gpu::GpuCounter;
use thicket_queens::ledgered::{
    self, counts_from_total, default_batch_size, parse_shard, BatchCounter, LedgerOutcome, Split,
};

use crate::cli::{LedgerArgs, MergeArgs, QueensArgs, VerifyArgs};
use crate::queens::{gpu_options, print_json, print_summary};

/// `thicket queens N --ledger FILE`: counts the batches the ledger lacks on the chosen
/// backend.
pub fn run_queens(
    args: &QueensArgs,
    path: &Path,
    threads: usize,
    progress: &Progress,
) -> Result<()> {
    let started = Instant::now();
    let split = split(args)?;
    let mut counter = open_counter(args, threads, "")?;
    let outcome = ledgered::run(&split, path, &mut counter, progress)?;
    progress.finish();
    let info = RunInfo {
        seconds: started.elapsed().as_secs_f64(),
        ..counter_info(&counter, threads)
    };
    print_outcome(args, &split, outcome, &info);
    Ok(())
}

/// The batches and shard the arguments ask for.
pub fn split(args: &QueensArgs) -> Result<Split> {
    let n = args.n as usize;
    Ok(Split {
        n,
        batch_size: args.batch_size.unwrap_or_else(|| default_batch_size(n)),
        shard: args
            .shard
            .as_deref()
            .map(parse_shard)
            .transpose()?
            .unwrap_or((0, 1)),
    })
}

/// The batch counter of `--backend`: with `auto` and no usable GPU, the CPU, said on stderr
/// (`who` prefixes that line, e.g. with an MPI rank).
pub fn open_counter(args: &QueensArgs, threads: usize, who: &str) -> Result<BatchCounter> {
    let n = args.n as usize;
    let gpu = || GpuCounter::open(n, &gpu_options(args, threads)).map(BatchCounter::Gpu);
    match args.backend {
        Backend::Cpu => BatchCounter::cpu(threads),
        Backend::Cuda => gpu(),
        Backend::Auto => match gpu() {
            Err(Error::Unavailable(why)) => {
                eprintln!("thicket: {who}no usable GPU ({why}); counting on the CPU");
                BatchCounter::cpu(threads)
            }
            other => other,
        },
    }
}

/// Where a counter runs (its time is filled in by the caller).
pub fn counter_info(counter: &BatchCounter, threads: usize) -> RunInfo {
    RunInfo {
        backend: counter.backend().into(),
        threads,
        devices: match counter {
            BatchCounter::Cpu { .. } => Vec::new(),
            BatchCounter::Gpu(gpu) => gpu.device_names(),
        },
        seconds: 0.0,
    }
}

/// Prints the counts of a complete run, or the partial total of a complete shard.
pub fn print_outcome(args: &QueensArgs, split: &Split, outcome: LedgerOutcome, info: &RunInfo) {
    let shard = split.shard;
    match outcome {
        LedgerOutcome::Complete(count) if args.json => print_json(&count, info, None, &[]),
        LedgerOutcome::Complete(count) => print_summary(&count, info, &[], false),
        LedgerOutcome::ShardDone { partial_total } => {
            if args.json {
                println!(
                    "{}",
                    json!({ "n": split.n, "shard": format!("{}/{}", shard.0, shard.1), "partial_total": partial_total })
                );
            } else {
                println!(
                    "shard {}/{} of N = {} complete: partial total {partial_total}; combine the shards with `thicket merge`",
                    shard.0, shard.1, split.n
                );
            }
        }
    }
}

/// `thicket status FILE`: progress, rate and ETA of a ledger.
pub fn status(args: &LedgerArgs) -> Result<()> {
    let ledger = Ledger::open_existing(&args.ledger)?;
    let spec = ledger.spec().clone();
    let batches = ledger.batches()?;
    let owned = spec.owned().count();
    let busy: f64 = batches.iter().map(|b| b.seconds).sum();
    let rate = if busy > 0.0 {
        batches.len() as f64 / busy
    } else {
        0.0
    };
    let left = owned - batches.len();
    let eta = if rate > 0.0 {
        Some(left as f64 / rate)
    } else {
        None
    };
    let corrupt = batches.iter().filter(|b| !b.is_consistent()).count();
    if args.json {
        let value = json!({
            "problem": spec.problem,
            "shard": format!("{}/{}", spec.shard.0, spec.shard.1),
            "batches": owned,
            "done": batches.len(),
            "batches_per_second": rate,
            "eta_seconds": eta,
            "corrupt": corrupt,
        });
        println!("{value}");
    } else {
        println!("{}", spec.problem);
        println!("  shard      {}/{}", spec.shard.0, spec.shard.1);
        println!(
            "  done       {} of {} batches ({:.1}%)",
            batches.len(),
            owned,
            100.0 * batches.len() as f64 / owned.max(1) as f64
        );
        println!("  rate       {rate:.3} batches/s of compute time");
        match eta {
            Some(eta) => println!("  ETA        {eta:.1} s of compute at that rate"),
            None => println!("  ETA        unknown (no batch finished yet)"),
        }
        if corrupt > 0 {
            println!("  CORRUPT    {corrupt} batches fail their check values");
        }
    }
    Ok(())
}

/// `thicket verify FILE --sample K`.
pub fn verify(args: &VerifyArgs) -> Result<()> {
    let ledger = Ledger::open_existing(&args.ledger)?;
    thicket_core::ledger::sum_checked(&ledger.batches()?)?;
    let report = ledgered::verify(&ledger, args.sample, args.seed)?;
    if let Some((id, stored, recomputed)) = report.mismatches.first() {
        return Err(Error::Verification(format!(
            "batch {id}: the ledger says {stored}, recomputing gives {recomputed} ({} of {} sampled batches differ)",
            report.mismatches.len(),
            report.checked.len()
        )));
    }
    println!(
        "verified {} batches ({}) with {}: all match",
        report.checked.len(),
        report
            .checked
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        report
            .recounted_by
            .iter()
            .copied()
            .collect::<Vec<_>>()
            .join(" and ")
    );
    Ok(())
}

/// `thicket merge A B ...`.
pub fn merge(args: &MergeArgs) -> Result<()> {
    let ledgers = args
        .ledgers
        .iter()
        .map(|p| Ledger::open_existing(p))
        .collect::<Result<Vec<_>>>()?;
    let total = merge_ledgers(&ledgers)?;
    let n = ledgered::parse_n(&ledgers[0].spec().problem)?;
    let count = counts_from_total(n, total)?;
    let info = RunInfo {
        backend: "ledger".into(),
        threads: 0,
        devices: Vec::new(),
        seconds: 0.0,
    };
    if args.json {
        print_json(&count, &info, None, &[]);
    } else {
        print_summary(&count, &info, &[], false);
    }
    Ok(())
}
