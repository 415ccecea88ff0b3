//! `thicket lookback` and `thicket binomial`: one option from the flags, or a book of options
//! from a CSV file (`--batch`), priced on a binomial lattice.

use clap::Args;
use thicket_core::{Error, Result};
use thicket_lattice::{
    price, price_book, price_book_ledgered, read_book_with, Book, BookBatches, BookBatching,
    BookKind, Contract, LedgeredBook, Market, OnError, Payoff, Precision, PriceOptions, Priced,
    Strategy, Style, Tree, BOOK_BATCH_SIZE, EXHAUSTIVE_STEPS,
};
use thicket_run::Shard;

use super::{result_on_stdout, say, Summary};
use crate::flags::{choices, parse_shard, run_options, BackendArgs, OutputArgs, TrialArgs};
use thicket_core::is_stdout;

use crate::stdio::write_output;

/// The market, lattice and run of `thicket lookback` and `thicket binomial`.
#[derive(Debug, Args)]
pub struct LatticeArgs {
    /// Spot price of the stock.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub spot: Option<f64>,
    /// Years to maturity.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub maturity: Option<f64>,
    /// Volatility (annual, e.g. 0.3).
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub volatility: Option<f64>,
    /// Continuously compounded risk-free rate (e.g. 0.1).
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub rate: Option<f64>,
    /// Continuous dividend yield of the stock (e.g. 0.02); the risk-neutral drift is
    /// rate − dividend yield.
    #[arg(
        long,
        default_value_t = 0.0,
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub dividend_yield: f64,
    /// Time steps of the lattice.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub steps: Option<usize>,
    /// A call instead of a put.
    #[arg(long, conflicts_with = "batch")]
    pub call: bool,
    /// European (no early exercise) instead of American.
    #[arg(long, conflicts_with = "batch")]
    pub european: bool,
    /// Working precision of the lattice: f32 (as in the thesis) or f64.
    #[arg(long, default_value = "f64", value_parser = choices(&PRECISIONS, Precision::name))]
    pub precision: Precision,
    /// serial (one thread), multicore, thesis (the thesis's GPU kernel, one launch per layer),
    /// hybrid (the thesis's kernel with the last layers on the CPU) or tiles (thicket's GPU
    /// kernel). Default: tiles on a GPU, multicore on the CPU.
    #[arg(long, value_parser = choices(&Strategy::ALL, Strategy::name))]
    pub strategy: Option<Strategy>,
    /// Which sensitivities: basic, those the lattice gives at no extra lattice (delta, gamma,
    /// theta); all adds vega and rho, each by re-pricing two bumped lattices (five lattices an
    /// option instead of one). Those not asked for are null in JSON, absent from the text and
    /// empty in a book.
    #[arg(long, value_enum, default_value_t = Greeks::Basic)]
    pub greeks: Greeks,
    /// What `--greeks basic`, the default, does (kept for scripts written when vega and rho
    /// were computed unless this was given).
    #[arg(long, hide = true, conflicts_with = "greeks")]
    pub no_vega_rho: bool,
    /// Layers the hybrid strategy finishes on the CPU.
    #[arg(long, default_value_t = thicket_lattice::HYBRID_THRESHOLD)]
    pub hybrid_threshold: usize,
    /// Price a book of options from a CSV file instead (columns payoff, style, spot, strike,
    /// maturity, volatility, rate, steps, by name in any order; optional dividend_yield; any
    /// other column, e.g. an id, carried to the output); `-` reads it from stdin. The output
    /// is the book with price, delta, gamma, theta, vega and rho added; without --output it
    /// goes to stdout as CSV alone (the summary to stderr).
    #[arg(long, value_name = "FILE.csv")]
    pub batch: Option<std::path::PathBuf>,
    /// With --batch: write the prices to this file (CSV, or JSON for a .json name) and the
    /// summary to stdout; an existing file is replaced only once everything is priced. `-`:
    /// CSV on stdout, as without --output.
    // `requires` alone lets `--output` pass beside the single-option flags (clap takes their
    // conflict with --batch as excusing its absence), so it conflicts with them too.
    #[arg(
        long = "output",
        short = 'o',
        value_name = "FILE",
        requires = "batch",
        conflicts_with_all = ["spot", "maturity", "volatility", "rate", "steps", "call", "european"]
    )]
    pub output_file: Option<std::path::PathBuf>,
    /// With --batch: what a row that cannot be read (a value that is not a number, an invalid
    /// contract) does: fail refuses the whole book (exit 2, naming file, line and value);
    /// note leaves that row's results empty with a note column saying why, and prices the
    /// rest (not with --ledger).
    #[arg(
        long,
        value_name = "WHAT",
        default_value = "fail",
        requires = "batch",
        value_parser = choices(&OnError::ALL, OnError::name)
    )]
    pub on_error: OnError,
    /// With --batch: price the book in batches (--batch-size options each), recording each
    /// finished batch's prices and Greeks in this SQLite ledger and skipping those it holds: a
    /// killed run resumes where it stopped and writes the same bytes. Batches run on every
    /// GPU given by --devices (default: all visible), one batch per GPU at a time, or on the
    /// CPU's threads.
    #[arg(long, value_name = "FILE", requires = "batch")]
    pub ledger: Option<std::path::PathBuf>,
    /// With --ledger: price only shard i of K of the batches (batch numbers i mod K); join the
    /// shard ledgers into the priced book with `thicket merge`.
    #[arg(long, value_name = "i/K", requires = "ledger", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// With --ledger: run under MPI (`mpirun -n R thicket lookback --batch FILE --ledger L
    /// --mpi`): rank 0 owns the ledger and hands batches out, ranks 1.. price them on their
    /// own GPUs or cores (needs a binary built with the `mpi` feature).
    #[arg(long, requires = "ledger")]
    pub mpi: bool,
    /// With --ledger: options per batch (a ledger remembers its batch size).
    #[arg(long, default_value_t = BOOK_BATCH_SIZE, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub batch_size: usize,
    /// Where to run (--devices: the GPU's ordinal, default 0; with --ledger, the GPUs).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials and verification (against the f64 serial lattice; every path for N <= 14).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// The precisions a lattice is computed in (the library's enum lists no `ALL`).
pub const PRECISIONS: [Precision; 2] = [Precision::F32, Precision::F64];

/// Options of `thicket lookback`.
#[derive(Debug, Args)]
pub struct LookbackArgs {
    /// A put already alive: the running maximum of the stock observed so far (at or above
    /// the spot; default the spot). Between two states of the lattice the price is
    /// interpolated linearly in log maximum.
    #[arg(
        long,
        value_name = "M",
        conflicts_with_all = ["batch", "observed_min"],
        allow_hyphen_values = true
    )]
    pub observed_max: Option<f64>,
    /// A call (--call) already alive: the running minimum observed so far (at or below the
    /// spot; default the spot).
    #[arg(
        long,
        value_name = "M",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub observed_min: Option<f64>,
    /// The option, the lattice and the run.
    #[command(flatten)]
    pub lattice: LatticeArgs,
}

/// Options of `thicket binomial`.
#[derive(Debug, Args)]
pub struct BinomialArgs {
    /// Strike price.
    #[arg(
        long,
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    pub strike: Option<f64>,
    /// The tree: crr (Cox–Ross–Rubinstein), jarrow-rudd, tian or leisen-reimer (odd --steps
    /// only).
    #[arg(
        long,
        default_value = "crr",
        conflicts_with = "batch",
        value_parser = choices(&Tree::ALL, Tree::name)
    )]
    pub tree: Tree,
    /// The option, the lattice and the run.
    #[command(flatten)]
    pub lattice: LatticeArgs,
}

/// `thicket lookback`.
pub fn lookback(args: &LookbackArgs) -> Result<()> {
    let payoff = match args.lattice.call {
        true => Payoff::LookbackCall,
        false => Payoff::LookbackPut,
    };
    let observed_extreme = match (args.lattice.call, args.observed_max, args.observed_min) {
        (true, Some(max), _) => {
            return Err(Error::InvalidInput(format!(
            "--observed-max {} is a put's running maximum; a call (--call) takes --observed-min",
            thicket_core::number(max)
        )))
        }
        (false, _, Some(min)) => {
            return Err(Error::InvalidInput(format!(
                "--observed-min {} is a call's running minimum; a put takes --observed-max",
                thicket_core::number(min)
            )))
        }
        (_, max, min) => max.or(min),
    };
    run(&args.lattice, payoff, observed_extreme, Tree::Crr)
}

/// `thicket binomial`.
pub fn binomial(args: &BinomialArgs) -> Result<()> {
    let strike = args.strike.unwrap_or(f64::NAN);
    let payoff = match args.lattice.call {
        true => Payoff::Call { strike },
        false => Payoff::Put { strike },
    };
    run(&args.lattice, payoff, None, args.tree)
}

fn options(args: &LatticeArgs) -> PriceOptions {
    PriceOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy: args.strategy,
        precision: args.precision,
        device: args.backend.first_device(),
        hybrid_threshold: args.hybrid_threshold,
        vega_rho: vega_rho(args),
    }
}

/// Whether vega and rho are priced: `--greeks all` (clap keeps the old `--no-vega-rho` away
/// from it, so that flag only confirms the default).
fn vega_rho(args: &LatticeArgs) -> bool {
    args.greeks == Greeks::All && !args.no_vega_rho
}

/// The sensitivities `--greeks` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Greeks {
    /// Price, delta, gamma and theta: one lattice an option.
    Basic,
    /// Vega and rho too: five lattices an option.
    All,
}

fn run(
    args: &LatticeArgs,
    payoff: Payoff,
    observed_extreme: Option<f64>,
    tree: Tree,
) -> Result<()> {
    if let Some(path) = &args.batch {
        return book(args, path);
    }
    if let Some(out) = &args.output_file {
        return Err(Error::InvalidInput(format!(
            "--output {}: only a book (--batch) is written to a file; a single option's price \
             is printed",
            out.display()
        )));
    }
    let missing = |name: &str| Error::InvalidInput(format!("--{name} is required without --batch"));
    let contract = Contract {
        payoff,
        style: if args.european {
            Style::European
        } else {
            Style::American
        },
        market: Market {
            spot: args.spot.ok_or_else(|| missing("spot"))?,
            maturity: args.maturity.ok_or_else(|| missing("maturity"))?,
            volatility: args.volatility.ok_or_else(|| missing("volatility"))?,
            rate: args.rate.ok_or_else(|| missing("rate"))?,
            dividend_yield: args.dividend_yield,
        },
        steps: args.steps.ok_or_else(|| missing("steps"))?,
        observed_extreme,
        tree,
    };
    // `multicore` runs on the pool it is called in: one of --threads threads.
    let options = options(args);
    let pool = thicket_core::pool(args.backend.thread_count())?;
    let measured = pool.install(|| price(&contract, &options))?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if args.output.json {
        outln!("{}", measured.json(run.stats()));
        return Ok(());
    }
    outln!(
        "{} ({}), {} steps, {}",
        payoff.name(),
        contract.style.name(),
        contract.steps,
        run.precision
    );
    if tree != Tree::Crr {
        outln!("  tree       {tree}");
    }
    if let Some(extreme) = observed_extreme {
        let which = if args.call { "minimum" } else { "maximum" };
        outln!("  observed   {which} {}", thicket_core::number(extreme));
    }
    outln!("  price      {:.10}", run.priced.price);
    outln!("  delta      {:.10}", run.priced.delta);
    outln!("  gamma      {:.10}", run.priced.gamma);
    outln!("  theta      {:.10}", run.priced.theta);
    if let (Some(vega), Some(rho)) = (run.priced.vega, run.priced.rho) {
        outln!("  vega       {vega:.10}");
        outln!("  rho        {rho:.10}");
    }
    match (&run.kernel_seconds, measured.info.devices.first()) {
        (Some(kernel), Some(device)) => outln!(
            "  strategy   {} on {device}, {:.3} ms of kernels in {} launch(es)",
            run.strategy,
            kernel * 1e3,
            run.launches.unwrap_or(0)
        ),
        _ => outln!(
            "  strategy   {}, {} thread(s)",
            run.strategy,
            measured.info.threads
        ),
    }
    outln!("  wall time  {:.3} s", measured.info.seconds);
    if let Some(verified) = measured.verified {
        // The reference the library checks against (`--verify` in the help).
        let reference = if contract.steps <= EXHAUSTIVE_STEPS {
            "against every path of the tree"
        } else {
            "against the f64 serial lattice"
        };
        outln!("  verified   {}", if verified { reference } else { "NO" });
    }
    Ok(())
}

/// Prices every row of a CSV book; writes CSV (or JSON for a `.json` name) to `--output`, or
/// CSV alone to stdout, the summary then going to stderr (nowhere with `--quiet`).
fn book(args: &LatticeArgs, path: &std::path::Path) -> Result<()> {
    let csv_on_stdout = match args.output_file.as_deref() {
        // Without --output the priced book is the result on stdout, as with `--output -`:
        // JSON beside it would mix two answers there (docs/cli.md, "Clean output"). A shard
        // of a ledgered book writes no book.
        None if args.output.json && args.shard.is_none_or(|s| s.count == 1) => {
            return Err(Error::InvalidInput(
                "--json and the priced book (--batch without --output) both write to stdout: \
                 give --output a file (a .json name writes the book's JSON there)"
                    .into(),
            ))
        }
        None => true,
        out => result_on_stdout(args.output.json, &[("--output", out)])?,
    };
    if args.ledger.is_some() && args.on_error == OnError::Note {
        return Err(Error::InvalidInput(
            "--on-error note with --ledger: a ledgered book's rows must all read (its ledger \
             reads the book back whole); fix the noted rows, or price the book without --ledger"
                .into(),
        ));
    }
    let book = read_book_with(path, BookKind::Prices, args.on_error)?;
    let options = options(args);
    if let Some(ledger) = &args.ledger {
        let run = |plan: &BookBatches, batching: &BookBatching, notes: &mut Vec<String>| {
            let pool = thicket_core::pool(args.backend.thread_count())?;
            pool.install(|| price_book_ledgered(plan, &options, batching, notes))
        };
        return ledgered_book(args, book, ledger, run, csv_on_stdout);
    }
    let pool = thicket_core::pool(args.backend.thread_count())?;
    let measured = pool.install(|| price_book(book.contracts(), &options))?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(out) = args.output_file.as_deref().filter(|out| !is_stdout(out)) {
        let text = match is_json(out) {
            true => book_json(&book, &run.priced, measured.json(run.stats())).to_string(),
            false => book.priced_csv(&run.priced),
        };
        write_output(out, &text)?;
    }
    if args.output.json {
        outln!("{}", measured.json(run.stats()));
        return Ok(());
    }
    if csv_on_stdout {
        out!("{}", book.priced_csv(&run.priced));
    }
    let summary = Summary::beside(csv_on_stdout, args.output.quiet);
    let seconds = measured.info.seconds;
    say!(
        summary,
        "{} options, {} lattice nodes, {}",
        run.priced.len(),
        run.nodes,
        run.precision
    );
    if book.on_error() == OnError::Note {
        say!(
            summary,
            "  noted      {} row(s) not priced (see the note column)",
            book.notes().len()
        );
    }
    say!(summary, "  strategy   {}, {} s", run.strategy, seconds);
    say!(
        summary,
        "  options/s  {:.3e}",
        run.priced.len() as f64 / seconds.max(1e-9)
    );
    say!(
        summary,
        "  nodes/s    {:.3e}",
        run.nodes as f64 / seconds.max(1e-9)
    );
    if let Some(kernel) = run.kernel_seconds {
        say!(
            summary,
            "  kernels    {:.3} ms ({:.3e} nodes/s)",
            kernel * 1e3,
            run.nodes as f64 / kernel.max(1e-12)
        );
    }
    if let Some(verified) = measured.verified {
        say!(
            summary,
            "  verified   {}",
            if verified { "every option" } else { "NO" }
        );
    }
    Ok(())
}

/// Whether `--output` names a JSON file (a `.json` name).
fn is_json(out: &std::path::Path) -> bool {
    out.extension().is_some_and(|e| e == "json")
}

/// The run's JSON with its `priced` list replaced by the book's rows, each with the book's
/// own columns as read beside its results ([`Book::priced_json`]), and `noted`, how many rows
/// were noted, for a book read with `--on-error note`.
fn book_json(book: &Book, priced: &[Priced], run: serde_json::Value) -> serde_json::Value {
    let mut run = run;
    if let Some(object) = run.as_object_mut() {
        object.insert("priced".into(), book.priced_json(priced));
        if book.on_error() == OnError::Note {
            object.insert("noted".into(), book.notes().len().into());
        }
    }
    run
}

/// Prices a book in batches recorded in `ledger` (`run` prices them on the pool of --threads):
/// the priced book as [`book`] writes it once every batch is in the ledger, or a line saying
/// which shard is done.
fn ledgered_book(
    args: &LatticeArgs,
    book: Book,
    ledger: &std::path::Path,
    run: impl FnOnce(&BookBatches, &BookBatching, &mut Vec<String>) -> Result<LedgeredBook>,
    csv_on_stdout: bool,
) -> Result<()> {
    if args.trials.verify || args.trials.trials > 1 {
        return Err(Error::InvalidInput(
            "--verify and --trials with --ledger: a ledgered book prices each batch once; check \
             its batches with `thicket verify LEDGER`"
                .into(),
        ));
    }
    let started = std::time::Instant::now();
    let plan = BookBatches::new(book, args.batch_size, args.precision, vega_rho(args))?;
    let batching = BookBatching {
        ledger: ledger.to_path_buf(),
        shard: args.shard.unwrap_or_default(),
        mpi: args.mpi,
        batch_size: args.batch_size,
        devices: args.backend.devices.clone(),
    };
    let mut notes = Vec::new();
    let outcome = run(&plan, &batching, &mut notes);
    if !args.output.quiet {
        for note in &notes {
            errln!("note: {note}");
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let options_count = plan.book().len();
    let summary = Summary::beside(csv_on_stdout, args.output.quiet);
    match outcome? {
        LedgeredBook::Worker => Ok(()),
        LedgeredBook::Shard(shard) => {
            say!(
                Summary::beside(false, args.output.quiet),
                "shard {} of the book of {options_count} options is priced into {}; join the shards with `thicket merge`",
                shard.label(),
                ledger.display()
            );
            Ok(())
        }
        LedgeredBook::Whole(priced) => {
            let text = plan.book().priced_csv(&priced);
            if let Some(out) = args.output_file.as_deref().filter(|out| !is_stdout(out)) {
                match is_json(out) {
                    true => {
                        let value = serde_json::json!({
                            "options": options_count,
                            "precision": args.precision,
                            "ledger": ledger.display().to_string(),
                            "priced": plan.book().priced_json(&priced),
                        });
                        write_output(out, &value.to_string())?;
                    }
                    false => write_output(out, &text)?,
                }
            }
            if args.output.json {
                let value = serde_json::json!({
                    "options": options_count,
                    "ledger": ledger.display().to_string(),
                    "seconds": seconds,
                    "notes": notes,
                });
                outln!("{value}");
                return Ok(());
            }
            if csv_on_stdout {
                out!("{text}");
            }
            say!(
                summary,
                "{options_count} options, {}, ledger {}",
                args.precision,
                ledger.display()
            );
            say!(
                summary,
                "  wall time  {seconds:.3} s (this run: the batches the ledger lacked)"
            );
            say!(
                summary,
                "  options/s  {:.3e}",
                options_count as f64 / seconds.max(1e-9)
            );
            Ok(())
        }
    }
}
