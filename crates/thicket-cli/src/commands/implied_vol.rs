//! `thicket implied-vol`: the volatility at which an option's lattice price equals a quoted
//! price (Brent's method on the f64 lattice).

use clap::Args;
use serde_json::json;
use thicket_core::{Error, Result};
use thicket_lattice::{implied_volatility, Contract, Market, Payoff, Style, Tree};

use crate::flags::choices;

/// Options of `thicket implied-vol`.
#[derive(Debug, Args)]
pub struct ImpliedVolArgs {
    /// The quoted price of the option.
    #[arg(long, allow_hyphen_values = true)]
    pub price: f64,
    /// put, call, lookback-put or lookback-call.
    #[arg(long, value_parser = ["put", "call", "lookback-put", "lookback-call"])]
    pub payoff: String,
    /// Strike price (put and call only).
    #[arg(long, allow_hyphen_values = true)]
    pub strike: Option<f64>,
    /// Spot price of the stock.
    #[arg(long, allow_hyphen_values = true)]
    pub spot: f64,
    /// Years to maturity.
    #[arg(long, allow_hyphen_values = true)]
    pub maturity: f64,
    /// Continuously compounded risk-free rate (e.g. 0.1).
    #[arg(long, allow_hyphen_values = true)]
    pub rate: f64,
    /// Continuous dividend yield of the stock.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub dividend_yield: f64,
    /// Time steps of the lattice.
    #[arg(long)]
    pub steps: usize,
    /// European (no early exercise) instead of American.
    #[arg(long)]
    pub european: bool,
    /// The tree of a put or call: crr, jarrow-rudd, tian or leisen-reimer (odd --steps).
    #[arg(long, default_value = "crr", value_parser = choices(&Tree::ALL, Tree::name))]
    pub tree: Tree,
    /// A lookback-put already alive: the running maximum observed so far (default the spot).
    #[arg(
        long,
        value_name = "M",
        conflicts_with = "observed_min",
        allow_hyphen_values = true
    )]
    pub observed_max: Option<f64>,
    /// A lookback-call already alive: the running minimum observed so far (default the spot).
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    pub observed_min: Option<f64>,
    /// Print one JSON object (key `volatility`, with the contract) instead of the text.
    #[arg(long)]
    pub json: bool,
}

/// `thicket implied-vol`.
pub fn run(args: &ImpliedVolArgs) -> Result<()> {
    let strike = || {
        args.strike.ok_or_else(|| {
            Error::InvalidInput(format!("--strike is required for a {}", args.payoff))
        })
    };
    let payoff = match args.payoff.as_str() {
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
            spot: args.spot,
            maturity: args.maturity,
            // Checked with a typical volatility first, so that a bad input names itself.
            volatility: 0.2,
            rate: args.rate,
            dividend_yield: args.dividend_yield,
        },
        steps: args.steps,
        observed_extreme,
        tree: args.tree,
    };
    if let Err(e) = contract.validate() {
        // A bad rate or steps can also show as p outside [0, 1] at 20%: only the plain
        // checks are reported here; the search reports the rest.
        if !e.message().starts_with("the up probability") {
            return Err(e);
        }
    }
    let volatility = implied_volatility(&contract, args.price)?;
    if args.json {
        outln!(
            "{}",
            json!({
                "volatility": volatility,
                "price": args.price,
                "payoff": payoff.name(),
                "style": contract.style.name(),
                "spot": args.spot,
                "strike": payoff.strike(),
                "maturity": args.maturity,
                "rate": args.rate,
                "dividend_yield": args.dividend_yield,
                "observed_extreme": payoff
                    .strike()
                    .is_none()
                    .then(|| observed_extreme.unwrap_or(args.spot)),
                "tree": args.tree.name(),
                "steps": args.steps,
            })
        );
    } else {
        outln!("{volatility:.12}");
    }
    Ok(())
}
