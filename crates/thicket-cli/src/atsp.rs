//! `thicket atsp`: exact asymmetric TSP.

use std::time::Instant;

use serde_json::json;
use thicket_core::{Progress, Result};
use thicket_perm::atsp::{
    generate, parse_generator_spec, read_tsplib, solve, solve_ledgered, AtspOptions, Bound,
    Instance,
};
use thicket_perm::reference::known_optimum;

use clap::ValueEnum;

use crate::cli::{AtspArgs, AtspBound};

/// Runs `thicket atsp` with its parsed arguments.
pub fn run(args: &AtspArgs) -> Result<()> {
    let instance = load(args)?;
    let threads = args.search.thread_count();
    let bound = match args.bound {
        AtspBound::Partial => Bound::Partial,
        AtspBound::Assignment => Bound::Assignment,
        AtspBound::HeldKarp => Bound::HeldKarp,
    };
    let mut options = AtspOptions {
        bound,
        upper_bound: args.upper_bound,
        threads,
        node_limit: None,
    };
    let bound_name = args
        .bound
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string());
    let started = Instant::now();
    if args.optimal_ub {
        options.upper_bound = match known_optimum(&instance.name) {
            Some(optimum) => Some(optimum),
            None => Some(solve(&instance, &options, &Progress::hidden())?.cost),
        };
    }
    let progress = Progress::new(0, &format!("atsp {}", instance.name), args.quiet);
    let solution = match &args.ledger {
        Some(path) => solve_ledgered(&instance, &options, path, &progress)?,
        None => solve(&instance, &options, &progress)?,
    };
    progress.finish();
    let seconds = started.elapsed().as_secs_f64();
    let known = known_optimum(&instance.name);
    if args.json {
        let value = json!({
            "name": instance.name,
            "n": instance.n,
            "cost": solution.cost,
            "tour": solution.tour,
            "nodes": solution.nodes,
            "proven_optimal": solution.proven_optimal,
            "known_optimum": known,
            "bound": bound_name,
            "strategy": args.search.strategy.name(),
            "threads": threads,
            "seconds": seconds,
        });
        println!("{value}");
    } else {
        let tour: Vec<String> = solution.tour.iter().map(usize::to_string).collect();
        println!("ATSP {} ({} cities)", instance.name, instance.n);
        println!(
            "  cost       {:>12}{}",
            solution.cost,
            verdict(known, solution.cost)
        );
        println!("  tour       {}", tour.join(" "));
        println!("  nodes      {:>12}", solution.nodes);
        println!(
            "  optimal    {}",
            if solution.proven_optimal {
                "proven"
            } else {
                "not proven"
            }
        );
        println!("  wall time  {seconds:>10.3} s");
        println!(
            "  search     {bound_name} bound, {}, {threads} threads",
            args.search.strategy.name()
        );
    }
    Ok(())
}

fn load(args: &AtspArgs) -> Result<Instance> {
    match (&args.file, &args.generate) {
        (Some(path), _) => read_tsplib(path),
        (None, Some(spec)) => {
            let spec = parse_generator_spec(spec)?;
            generate(spec.class, spec.n, spec.seed)
        }
        (None, None) => Err(thicket_core::Error::InvalidInput(
            "give a TSPLIB file or --generate CLASS:N:SEED".into(),
        )),
    }
}

fn verdict(known: Option<i64>, cost: i64) -> String {
    match known {
        Some(optimum) if optimum == cost => format!("   TSPLIB optimum {optimum}: match"),
        Some(optimum) => format!("   TSPLIB optimum {optimum}: MISMATCH"),
        None => String::new(),
    }
}
