//! `thicket atsp FILE`: an asymmetric TSP instance solved to proven optimality.

use serde_json::json;
use thicket_atsp::{
    generate, parse_generator_spec, read_tsplib, AtspRun, Batching, Bound, Instance, SolveOptions,
    Solved,
};
use thicket_core::{Error, Measured, Result};
use thicket_perm::strategy::Strategy;

use crate::cli::{AtspArgs, AtspBound};
use crate::flags::run_options;

/// Runs `thicket atsp` with its parsed arguments.
pub fn run(args: &AtspArgs) -> Result<()> {
    let instance = load(args)?;
    let bound = args.bound.map(|b| match b {
        AtspBound::Partial => Bound::Partial,
        AtspBound::Assignment => Bound::Assignment,
        AtspBound::HeldKarp => Bound::HeldKarp,
    });
    let strategy = args.search.strategy;
    if let (Some(s), Some(Bound::Assignment | Bound::HeldKarp)) = (strategy, bound) {
        if s.is_gpu() {
            return Err(Error::InvalidInput(format!(
                "--strategy {} runs the thesis's partial bound only: use --bound partial",
                s.name()
            )));
        }
    }
    if (args.ledger.is_some() || args.mpi) && strategy.is_some_and(Strategy::is_gpu) {
        return Err(Error::InvalidInput(format!(
            "--ledger and --mpi run the CPU strategies (serial, multicore), not --strategy {}",
            strategy.map_or("", Strategy::name)
        )));
    }
    let batched = (args.ledger.is_some() || args.mpi).then(|| Batching {
        ledger: args.ledger.clone(),
        shard: args.shard.unwrap_or_default(),
        mpi: args.mpi,
    });
    let options = SolveOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy,
        bound,
        upper_bound: args.upper_bound,
        optimal_upper_bound: args.optimal_ub,
        threads: args.backend.thread_count(),
        gpu: args.search.gpu_params(&args.backend)?,
        batched,
    };
    match thicket_atsp::solve(&instance, &options)? {
        Solved::Whole(measured) => {
            super::say_notes(&measured.info, args.output.quiet);
            print_run(&measured, args.output.json)
        }
        Solved::Shard { shard, run } => {
            if args.output.json {
                let mut value = serde_json::Value::Object(run.stats());
                value["shard"] = json!(shard.label());
                println!("{value}");
            } else {
                println!(
                    "shard {} of {} complete: best tour of its subtrees {} ({} nodes); combine the shards with `thicket merge`",
                    shard.label(),
                    run.name,
                    run.solution.cost,
                    run.solution.nodes
                );
            }
        }
        Solved::Worker => {}
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

/// Prints a solve as text or JSON.
pub fn print_run(measured: &Measured<AtspRun>, json: bool) {
    let run = &measured.output;
    if json {
        println!("{}", measured.json(run.stats()));
        return;
    }
    let solution = &run.solution;
    let known = thicket_atsp::known_optimum(&run.name);
    let tour: Vec<String> = solution.tour.iter().map(usize::to_string).collect();
    println!("ATSP {} ({} cities)", run.name, run.n);
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
    println!("  wall time  {:>10.3} s", measured.info.seconds);
    let bound = thicket_atsp::bound_name(run.bound);
    match &run.gpu {
        Some(gpu) => println!(
            "  search     {bound} bound, {} on {}, d_cpu {}, d_gpu {}, {} roots",
            run.strategy.name(),
            gpu.device,
            gpu.depths.d_cpu,
            gpu.depths.d_gpu,
            gpu.roots
        ),
        None => println!(
            "  search     {bound} bound, {}, {} threads",
            run.strategy.name(),
            run.threads
        ),
    }
    if let Some(verified) = measured.verified {
        println!(
            "  verified   {}",
            if verified {
                "against the TSPLIB optimum"
            } else {
                "NO"
            }
        );
    }
}

fn verdict(known: Option<i64>, cost: i64) -> String {
    match known {
        Some(optimum) if optimum == cost => format!("   TSPLIB optimum {optimum}: match"),
        Some(optimum) => format!("   TSPLIB optimum {optimum}: MISMATCH"),
        None => String::new(),
    }
}
