//! `thicket atsp`: exact asymmetric TSP.

use std::time::Instant;

use serde_json::json;
use thicket_core::{Error, Progress, Result};
use thicket_perm::atsp::{
    generate, parse_generator_spec, read_tsplib, solve, solve_ledgered, AtspOptions, Bound,
    Instance,
};
use thicket_perm::gpu::atsp::solve_gpu;
use thicket_perm::reference::known_optimum;

use clap::ValueEnum;

use crate::cli::{AtspArgs, AtspBound};

/// Runs `thicket atsp` with its parsed arguments.
pub fn run(args: &AtspArgs) -> Result<()> {
    let instance = load(args)?;
    let strategy = args.search.strategy;
    let threads = args.search.thread_count();
    let bound = match (args.bound, strategy.is_gpu()) {
        (Some(AtspBound::Assignment | AtspBound::HeldKarp), true) => {
            return Err(Error::InvalidInput(format!(
                "--strategy {} runs the thesis's partial bound only: use --bound partial",
                strategy.name()
            )))
        }
        (Some(AtspBound::Partial), _) | (None, true) => Bound::Partial,
        (Some(AtspBound::Assignment), false) => Bound::Assignment,
        (Some(AtspBound::HeldKarp), false) | (None, false) => Bound::HeldKarp,
    };
    let mut options = AtspOptions {
        bound,
        upper_bound: args.upper_bound,
        threads,
        node_limit: None,
    };
    let bound_name = match bound {
        Bound::Partial => AtspBound::Partial,
        Bound::Assignment => AtspBound::Assignment,
        Bound::HeldKarp => AtspBound::HeldKarp,
    }
    .to_possible_value()
    .map_or_else(String::new, |v| v.get_name().to_string());
    if args.ledger.is_some() && strategy.is_gpu() {
        return Err(Error::InvalidInput(format!(
            "--ledger runs the CPU strategies (serial, multicore), not --strategy {}",
            strategy.name()
        )));
    }
    let params = args.search.gpu_params();
    let solve_with = |options: &AtspOptions, progress: &Progress| {
        if strategy.is_gpu() {
            solve_gpu(&instance, options.upper_bound, strategy, &params, progress)
                .map(|(solution, run)| (solution, Some(run)))
        } else {
            solve(&instance, options, progress).map(|solution| (solution, None))
        }
    };
    let started = Instant::now();
    if args.optimal_ub {
        options.upper_bound = match known_optimum(&instance.name) {
            Some(optimum) => Some(optimum),
            None => Some(solve_with(&options, &Progress::hidden())?.0.cost),
        };
    }
    let progress = Progress::new(0, &format!("atsp {}", instance.name), args.quiet);
    let (solution, gpu) = match &args.ledger {
        Some(path) => (solve_ledgered(&instance, &options, path, &progress)?, None),
        None => solve_with(&options, &progress)?,
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
            "strategy": strategy.name(),
            "threads": threads,
            "seconds": seconds,
            "gpu": gpu,
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
        match &gpu {
            Some(run) => println!(
                "  search     {bound_name} bound, {} on {}, d_cpu {}, d_gpu {}, {} roots",
                strategy.name(),
                run.device,
                run.depths.d_cpu,
                run.depths.d_gpu,
                run.roots
            ),
            None => println!(
                "  search     {bound_name} bound, {}, {threads} threads",
                strategy.name()
            ),
        }
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
        (None, None) => Err(Error::InvalidInput(
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

/// Prints a tour found from a ledger (a merged run): text or JSON (keys name, n, cost, tour,
/// nodes, proven_optimal, known_optimum).
pub fn print_solution(
    instance: &Instance,
    solution: &thicket_perm::atsp::AtspSolution,
    json: bool,
) {
    let known = known_optimum(&instance.name);
    if json {
        let value = json!({
            "name": instance.name,
            "n": instance.n,
            "cost": solution.cost,
            "tour": solution.tour,
            "nodes": solution.nodes,
            "proven_optimal": solution.proven_optimal,
            "known_optimum": known,
        });
        println!("{value}");
        return;
    }
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
}
