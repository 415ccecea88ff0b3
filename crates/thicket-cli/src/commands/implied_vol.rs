//! `thicket implied-vol`: the volatility at which an option's lattice price equals a quoted
//! price (Brent's method on the f64 lattice).

use clap::Args;
use serde_json::json;
use thicket_core::is_stdout;
use thicket_core::{Error, Result};
use thicket_lattice::{
    implied_book, implied_volatility, read_book_of, BookKind, Contract, Market, Payoff, Style, Tree,
};

use super::{result_on_stdout, say, Summary};
use crate::flags::choices;
use crate::stdio::write_output;

/// Options of `thicket implied-vol`.
#[derive(Debug, Args)]
pub struct ImpliedVolArgs {
    /// The quoted price of the option: above its lower no-arbitrage bound (0, its exercise
    /// today for an American, the forward part of its payoff) and below its upper one (the
    /// stock for a call, the strike for a put); a price at or past a bound is refused.
    #[arg(
        long,
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    pub price: Option<f64>,
    /// put, call, lookback-put or lookback-call.
    #[arg(
        long,
        value_parser = ["put", "call", "lookback-put", "lookback-call"],
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    pub payoff: Option<String>,
    /// Strike price (put and call only).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "batch")]
    pub strike: Option<f64>,
    /// Spot price of the stock.
    #[arg(
        long,
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    pub spot: Option<f64>,
    /// Years to maturity.
    #[arg(
        long,
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    pub maturity: Option<f64>,
    /// Continuously compounded risk-free rate (e.g. 0.1).
    #[arg(
        long,
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    pub rate: Option<f64>,
    /// Continuous dividend yield of the stock.
    #[arg(
        long,
        default_value_t = 0.0,
        allow_hyphen_values = true,
        conflicts_with = "batch"
    )]
    pub dividend_yield: f64,
    /// Time steps of the lattice.
    #[arg(long, required_unless_present = "batch", conflicts_with = "batch")]
    pub steps: Option<usize>,
    /// European (no early exercise) instead of American.
    #[arg(long, conflicts_with = "batch")]
    pub european: bool,
    /// The tree of a put or call: crr, jarrow-rudd, tian or leisen-reimer (odd --steps).
    #[arg(long, default_value = "crr", value_parser = choices(&Tree::ALL, Tree::name), conflicts_with = "batch")]
    pub tree: Tree,
    /// A lookback-put already alive: the running maximum observed so far (default the spot).
    #[arg(
        long,
        value_name = "M",
        conflicts_with_all = ["observed_min", "batch"],
        allow_hyphen_values = true
    )]
    pub observed_max: Option<f64>,
    /// A lookback-call already alive: the running minimum observed so far (default the spot).
    #[arg(
        long,
        value_name = "M",
        allow_hyphen_values = true,
        conflicts_with = "batch"
    )]
    pub observed_min: Option<f64>,
    /// Print one JSON object (key `volatility`, with the contract) instead of the text.
    #[arg(long, conflicts_with = "batch")]
    pub json: bool,
    /// The implied volatility of every option of a CSV book instead: the columns of a book
    /// to price (`thicket lookback --batch`) without volatility, and `price`, the quote;
    /// `-` reads it from stdin. The output is the book with `volatility` (empty where the
    /// quote is unattainable) and `note` (why) added; without --output it goes to stdout as
    /// CSV alone, the summary to stderr.
    #[arg(long, value_name = "FILE.csv")]
    pub batch: Option<std::path::PathBuf>,
    /// With --batch: write the book with its volatilities to this file (replaced only once
    /// every option is done) and the summary to stdout; `-`: stdout, as without --output.
    #[arg(long = "output", short = 'o', value_name = "FILE", requires = "batch")]
    pub output_file: Option<std::path::PathBuf>,
    /// Hide the summary of a book.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `thicket implied-vol`.
pub fn run(args: &ImpliedVolArgs) -> Result<()> {
    if let Some(path) = &args.batch {
        return book(args, path);
    }
    let missing = |name: &str| Error::InvalidInput(format!("--{name} is required without --batch"));
    let given = args.payoff.as_deref().ok_or_else(|| missing("payoff"))?;
    let (price, spot, maturity, rate, steps) = (
        args.price.ok_or_else(|| missing("price"))?,
        args.spot.ok_or_else(|| missing("spot"))?,
        args.maturity.ok_or_else(|| missing("maturity"))?,
        args.rate.ok_or_else(|| missing("rate"))?,
        args.steps.ok_or_else(|| missing("steps"))?,
    );
    let strike = || {
        args.strike
            .ok_or_else(|| Error::InvalidInput(format!("--strike is required for a {given}")))
    };
    let payoff = match given {
        "put" => Payoff::Put { strike: strike()? },
        "call" => Payoff::Call { strike: strike()? },
        lookback => {
            if let Some(k) = args.strike {
                return Err(Error::InvalidInput(format!(
                    "--strike {} given for a {lookback}, whose strike floats",
                    thicket_core::number(k)
                )));
            }
            match lookback {
                "lookback-put" => Payoff::LookbackPut,
                _ => Payoff::LookbackCall,
            }
        }
    };
    let observed_extreme = match (payoff, args.observed_max, args.observed_min) {
        (Payoff::LookbackPut, max, None) => max,
        (Payoff::LookbackCall, None, min) => min,
        (_, None, None) => None,
        (_, max, min) => {
            let (flag, value) = match max {
                Some(max) => ("--observed-max", max),
                None => ("--observed-min", min.unwrap_or(f64::NAN)),
            };
            return Err(Error::InvalidInput(format!(
                "{flag} {} does not fit a {}: --observed-max is a lookback-put's, --observed-min a lookback-call's",
                thicket_core::number(value),
                payoff.name()
            )));
        }
    };
    let contract = Contract {
        payoff,
        style: if args.european {
            Style::European
        } else {
            Style::American
        },
        market: Market {
            spot,
            maturity,
            // Ignored: the search checks the contract's other values at a volatility of its
            // own, so that a bad one names itself, and then searches the valid ones.
            volatility: 0.2,
            rate,
            dividend_yield: args.dividend_yield,
        },
        steps,
        observed_extreme,
        tree: args.tree,
    };
    let volatility = implied_volatility(&contract, price)?;
    if args.json {
        outln!(
            "{}",
            json!({
                "volatility": volatility,
                "price": price,
                "payoff": payoff.name(),
                "style": contract.style.name(),
                "spot": spot,
                "strike": payoff.strike(),
                "maturity": maturity,
                "rate": rate,
                "dividend_yield": args.dividend_yield,
                "observed_extreme": payoff
                    .strike()
                    .is_none()
                    .then(|| observed_extreme.unwrap_or(spot)),
                "tree": args.tree.name(),
                "steps": steps,
            })
        );
    } else {
        outln!("{volatility:.12}");
    }
    Ok(())
}

/// The implied volatility of every option of a quotes book: CSV to `--output` or stdout, the
/// summary beside it. An unattainable quote is a row with an empty volatility and a note, not
/// a refusal (exit 0); a bad value of the file is a refusal (exit 2).
fn book(args: &ImpliedVolArgs, path: &std::path::Path) -> Result<()> {
    let csv_on_stdout = match args.output_file.as_deref() {
        None => true,
        out => result_on_stdout(false, &[("--output", out)])?,
    };
    let started = std::time::Instant::now();
    let book = read_book_of(path, BookKind::Quotes)?;
    let implied = implied_book(&book).volatilities;
    let text = book.implied_csv(&implied);
    match args.output_file.as_deref() {
        Some(out) if !is_stdout(out) => write_output(out, &text)?,
        _ => out!("{text}"),
    }
    let summary = Summary::beside(csv_on_stdout, args.quiet);
    let found = implied.iter().filter(|v| v.is_ok()).count();
    say!(
        summary,
        "{} options: {found} implied volatilities, {} unattainable quotes (see the note column)",
        implied.len(),
        implied.len() - found
    );
    say!(
        summary,
        "  wall time  {:.3} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
