//! `thicket lookback` and `thicket binomial`: one option from the flags, or a book of options
//! from a CSV file (`--batch`), priced on a binomial lattice.

use thicket_core::{write_atomically, Error, Result};
use thicket_lattice::{
    price, price_book, read_book, write_book_csv, Contract, Market, Payoff, PriceOptions, Style,
    EXHAUSTIVE_STEPS,
};

use crate::cli::{BinomialArgs, LatticeArgs, LookbackArgs};
use crate::flags::run_options;

/// `thicket lookback`.
pub fn lookback(args: &LookbackArgs) -> Result<()> {
    let payoff = match args.lattice.call {
        true => Payoff::LookbackCall,
        false => Payoff::LookbackPut,
    };
    run(&args.lattice, payoff)
}

/// `thicket binomial`.
pub fn binomial(args: &BinomialArgs) -> Result<()> {
    let strike = args.strike.unwrap_or(f64::NAN);
    let payoff = match args.lattice.call {
        true => Payoff::Call { strike },
        false => Payoff::Put { strike },
    };
    run(&args.lattice, payoff)
}

fn options(args: &LatticeArgs) -> PriceOptions {
    PriceOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy: args.strategy,
        precision: args.precision,
        device: args.backend.first_device(),
        hybrid_threshold: args.hybrid_threshold,
    }
}

fn run(args: &LatticeArgs, payoff: Payoff) -> Result<()> {
    if let Some(path) = &args.batch {
        return book(args, path);
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
        },
        steps: args.steps.ok_or_else(|| missing("steps"))?,
    };
    // `multicore` runs on the pool it is called in: one of --threads threads.
    let options = options(args);
    let pool = thicket_core::pool(args.backend.thread_count())?;
    let measured = pool.install(|| price(&contract, &options))?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if args.output.json {
        println!("{}", measured.json(run.stats()));
        return Ok(());
    }
    println!(
        "{} ({}), {} steps, {}",
        payoff.name(),
        contract.style.name(),
        contract.steps,
        run.precision
    );
    println!("  price      {:.10}", run.priced.price);
    println!("  delta      {:.10}", run.priced.delta);
    println!("  gamma      {:.10}", run.priced.gamma);
    match (&run.kernel_seconds, measured.info.devices.first()) {
        (Some(kernel), Some(device)) => println!(
            "  strategy   {} on {device}, {:.3} ms of kernels in {} launch(es)",
            run.strategy,
            kernel * 1e3,
            run.launches.unwrap_or(0)
        ),
        _ => println!(
            "  strategy   {}, {} thread(s)",
            run.strategy, measured.info.threads
        ),
    }
    println!("  wall time  {:.3} s", measured.info.seconds);
    if let Some(verified) = measured.verified {
        // The reference the library checks against (`--verify` in the help).
        let reference = if contract.steps <= EXHAUSTIVE_STEPS {
            "against every path of the tree"
        } else {
            "against the f64 serial lattice"
        };
        println!("  verified   {}", if verified { reference } else { "NO" });
    }
    Ok(())
}

/// Prices every row of a CSV book; writes CSV (or JSON for a `.json` name) to `--output`.
fn book(args: &LatticeArgs, path: &std::path::Path) -> Result<()> {
    let contracts = read_book(path)?;
    let options = options(args);
    let pool = thicket_core::pool(args.backend.thread_count())?;
    let measured = pool.install(|| price_book(&contracts, &options))?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(out) = &args.output_file {
        let text = match out.extension().is_some_and(|e| e == "json") {
            true => measured.json(run.stats()).to_string(),
            false => write_book_csv(&contracts, &run.priced),
        };
        write_atomically(out, &text)?;
    }
    if args.output.json {
        println!("{}", measured.json(run.stats()));
        return Ok(());
    }
    let seconds = measured.info.seconds;
    println!(
        "{} options, {} lattice nodes, {}",
        run.priced.len(),
        run.nodes,
        run.precision
    );
    println!("  strategy   {}, {} s", run.strategy, seconds);
    println!(
        "  options/s  {:.3e}",
        run.priced.len() as f64 / seconds.max(1e-9)
    );
    println!("  nodes/s    {:.3e}", run.nodes as f64 / seconds.max(1e-9));
    if let Some(kernel) = run.kernel_seconds {
        println!(
            "  kernels    {:.3} ms ({:.3e} nodes/s)",
            kernel * 1e3,
            run.nodes as f64 / kernel.max(1e-12)
        );
    }
    if args.output_file.is_none() {
        print!("{}", write_book_csv(&contracts, &run.priced));
    }
    if let Some(verified) = measured.verified {
        println!(
            "  verified   {}",
            if verified { "every option" } else { "NO" }
        );
    }
    Ok(())
}
