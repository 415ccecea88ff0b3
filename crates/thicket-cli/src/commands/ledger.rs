//! The ledger commands of every problem: `thicket status`, `verify` and `merge`. A ledger
//! names its problem in its spec; the problem's plan is rebuilt from the ledger alone.

use clap::Args;
use serde_json::json;
use thicket_atsp::Subtrees;
use thicket_core::is_stdout;
use thicket_core::{Error, Result, RunInfo};
use thicket_lattice::{merge_book, BookBatches};
use thicket_run::{inspect, runner, BatchPlan, Finished, Ledger};

use crate::stdio::write_output;

/// A ledger to read.
#[derive(Debug, Args)]
pub struct LedgerArgs {
    /// The ledger file.
    pub ledger: std::path::PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `thicket verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The ledger file.
    pub ledger: std::path::PathBuf,
    /// How many random finished batches to recompute (at least 1).
    #[arg(long, default_value_t = 8, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub sample: usize,
    /// Seed of the random sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Options of `thicket merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shard ledgers, one per shard.
    #[arg(required = true)]
    pub ledgers: Vec<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Ledgers of a book of options (`thicket lookback --batch FILE --ledger L --shard i/K`):
    /// write the priced book (CSV) to this file instead of stdout; `-`: stdout.
    #[arg(long = "output", short = 'o', value_name = "FILE")]
    pub output_file: Option<std::path::PathBuf>,
}

/// The first word of a book's ledger spec.
const BOOK_SPEC: &str = "lattice-book";

/// The plan of the problem a ledger was made for.
enum Plan {
    Queens(thicket_queens::Batches),
    Atsp(Subtrees),
    Book(Box<BookBatches>),
}

impl Plan {
    /// Rebuilds the plan from the ledger's spec (and stored input).
    fn of(ledger: &Ledger) -> Result<Plan> {
        Plan::of_spec(ledger).map_err(|e| {
            let message = format!("{}: {}", ledger.path().display(), e.message());
            Error::from_kind(e.kind(), message)
        })
    }

    /// The plan of `ledger`'s spec, in the words of the problem's own error.
    fn of_spec(ledger: &Ledger) -> Result<Plan> {
        let problem = &ledger.spec().problem;
        match problem.split_whitespace().next() {
            Some("queens") => thicket_queens::Batches::from_spec(problem).map(Plan::Queens),
            Some("atsp") => {
                let input = ledger.spec().input.as_deref().ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "'{problem}' was made by an older thicket that did not store its instance"
                    ))
                })?;
                Subtrees::from_input(input).map(Plan::Atsp)
            }
            Some(BOOK_SPEC) => BookBatches::from_ledger(problem, ledger.spec().input.as_deref())
                .map(|plan| Plan::Book(Box::new(plan))),
            _ => Err(Error::InvalidInput(format!(
                "'{problem}' is not a ledger of a problem this thicket knows"
            ))),
        }
    }

    fn as_dyn(&self) -> &dyn BatchPlan {
        match self {
            Plan::Queens(batches) => batches,
            Plan::Atsp(subtrees) => subtrees,
            Plan::Book(book) => book.as_ref(),
        }
    }

    /// Prints what a complete run (or merged shards) adds up to.
    fn print(&self, finished: &Finished, json: bool) -> Result<()> {
        match self {
            // `merge` joins a book's ledgers itself (`merge_book_ledgers`): nothing adds up.
            Plan::Book(book) => outln!("{}", book.spec()),
            Plan::Queens(batches) => {
                let count = thicket_queens::counts_from_total(batches.n(), finished.total)?;
                let info = RunInfo {
                    backend: "ledger".into(),
                    threads: 0,
                    devices: Vec::new(),
                    seconds: 0.0,
                    notes: Vec::new(),
                };
                let measured = thicket_queens::measured(count, info);
                crate::commands::queens::print_run(&measured, &[], false, json);
            }
            Plan::Atsp(subtrees) => {
                let run = thicket_atsp::run_from_ledger(subtrees, finished)?;
                let info = RunInfo {
                    backend: "ledger".into(),
                    threads: 0,
                    devices: Vec::new(),
                    seconds: 0.0,
                    notes: Vec::new(),
                };
                let measured = thicket_core::Measured {
                    output: run,
                    info,
                    trial_seconds: Vec::new(),
                    verified: None,
                };
                crate::commands::atsp::print_run(&measured, json, super::Summary::Stdout);
            }
        }
        Ok(())
    }
}

/// `thicket status FILE`: progress, rate and ETA of a ledger, every batch checked against its
/// check values and digest; a ledger with a batch that fails is reported, then fails as a wrong
/// answer (exit code 3) naming the first such batch.
pub fn status(args: &LedgerArgs) -> Result<()> {
    let ledger = Ledger::open_existing(&args.ledger)?;
    let status = inspect::status(&ledger)?;
    print_status(&status, args.json);
    match status.fault {
        Some(fault) => Err(Error::Verification(fault)),
        None => Ok(()),
    }
}

/// The report of `thicket status`, as text or one JSON object.
fn print_status(status: &inspect::Status, json: bool) {
    if json {
        let value = json!({
            "problem": status.problem,
            "shard": status.shard,
            "batches": status.batches,
            "done": status.done,
            "batches_per_second": status.batches_per_second,
            "eta_seconds": status.eta_seconds,
            "corrupt": status.corrupt,
            "digests": status.digests,
        });
        outln!("{value}");
        return;
    }
    outln!("{}", status.problem);
    outln!("  shard      {}", status.shard);
    outln!(
        "  done       {} of {} batches ({:.1}%)",
        status.done,
        status.batches,
        100.0 * status.done as f64 / status.batches.max(1) as f64
    );
    outln!(
        "  rate       {:.3} batches/s of compute time",
        status.batches_per_second
    );
    match status.eta_seconds {
        Some(eta) => outln!("  ETA        {eta:.1} s of compute at that rate"),
        None => outln!("  ETA        unknown (no batch finished yet)"),
    }
    if !status.digests {
        outln!(
            "  digests    none (an older thicket's ledger: `merge` needs its command run again)"
        );
    }
    if status.corrupt > 0 {
        outln!(
            "  CORRUPT    {} batches fail their check values or digests",
            status.corrupt
        );
    }
}

/// `thicket verify FILE --sample K`.
pub fn verify(args: &VerifyArgs) -> Result<()> {
    let ledger = Ledger::open_existing(&args.ledger)?;
    let plan = Plan::of(&ledger)?;
    let report = inspect::verify(plan.as_dyn(), &ledger, args.sample, args.seed)?;
    outln!(
        "verified {} batches ({}) with {}: all match",
        report.checked.len(),
        report
            .checked
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        report.recounted_by.join(" and ")
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
    if ledgers[0].spec().problem.split_whitespace().next() == Some(BOOK_SPEC) {
        return merge_book_ledgers(&ledgers, args);
    }
    if let Some(out) = &args.output_file {
        return Err(Error::InvalidInput(format!(
            "--output {}: only the ledgers of a book of options merge into a file",
            out.display()
        )));
    }
    let plan = Plan::of(&ledgers[0])?;
    let finished = runner::merge(plan.as_dyn(), &ledgers)?;
    plan.print(&finished, args.json)
}

/// `thicket merge` of a book's shard ledgers: the priced book, in the book's row order, as
/// CSV on stdout or to `--output` (with `--json`, a summary instead of the CSV on stdout).
fn merge_book_ledgers(ledgers: &[Ledger], args: &MergeArgs) -> Result<()> {
    let (plan, priced) = merge_book(ledgers)?;
    let text = plan.book().priced_csv(&priced);
    let to_file = args.output_file.as_deref().filter(|out| !is_stdout(out));
    if let Some(out) = to_file {
        write_output(out, &text)?;
    }
    if args.json {
        let value = json!({
            "problem": BOOK_SPEC,
            "options": priced.len(),
            "ledgers": ledgers.len(),
            "output": to_file.map(|p| p.display().to_string()),
        });
        outln!("{value}");
    } else if to_file.is_none() {
        out!("{text}");
    } else {
        outln!("{} options from {} ledgers", priced.len(), ledgers.len());
    }
    Ok(())
}
