//! `thicket queens N`: count, list and draw N-Queens solutions.

use serde_json::json;
use thicket_core::{Backend, Error, Measured, Result, RunInfo};
use thicket_queens::{
    draw_board, first_solutions, format_solution, known_counts, Batching, CountOptions, Counted,
    QueensCount, QueensRun, Strategy,
};

use crate::cli::QueensArgs;
use crate::flags::run_options;

/// Runs `thicket queens` with its parsed arguments.
pub fn run(args: &QueensArgs) -> Result<()> {
    let n = args.n as usize;
    check_strategy(args)?;
    let batched = (args.ledger.is_some() || args.mpi).then(|| Batching {
        ledger: args.ledger.clone(),
        shard: args.shard.unwrap_or_default(),
        batch_size: args.batch_size,
        mpi: args.mpi,
    });
    let options = CountOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        threads: args.backend.thread_count(),
        devices: args.backend.devices.clone(),
        depth: args.depth.map(|d| d as usize),
        strategy: args.strategy,
        paper: args.paper.params(None),
        batched,
    };
    match thicket_queens::count(n, &options)? {
        Counted::Whole(measured) => {
            super::say_notes(&measured.info, args.output.quiet);
            let solutions = args
                .solutions
                .map(|k| first_solutions(n, k))
                .unwrap_or_default();
            print_run(&measured, &solutions, args.board, args.output.json);
        }
        Counted::Shard {
            n,
            shard,
            partial_total,
        } => {
            if args.output.json {
                let value =
                    json!({ "n": n, "shard": shard.label(), "partial_total": partial_total });
                println!("{value}");
            } else {
                println!(
                    "shard {} of N = {n} complete: partial total {partial_total}; combine the shards with `thicket merge`",
                    shard.label()
                );
            }
        }
        Counted::Worker { notes } => {
            if !args.output.quiet {
                for note in notes {
                    eprintln!("thicket: {note}");
                }
            }
        }
    }
    Ok(())
}

/// Refuses what the papers' kernels cannot do, naming the flags.
fn check_strategy(args: &QueensArgs) -> Result<()> {
    let strategy = args.strategy;
    if strategy == Strategy::Constellation {
        return Ok(());
    }
    if args.mpi || args.ledger.is_some() {
        return Err(Error::InvalidInput(
            "--strategy runs the papers' kernels in one process: leave out --ledger and --mpi"
                .into(),
        ));
    }
    if args.backend.backend == Backend::Cpu {
        return Err(Error::InvalidInput(format!(
            "--strategy {} is a GPU kernel; use --backend cuda",
            strategy.name()
        )));
    }
    if args.solutions.is_some() {
        return Err(Error::InvalidInput(format!(
            "--strategy {} only counts: it takes no --ledger or --solutions",
            strategy.name()
        )));
    }
    if args.backend.devices.as_ref().is_some_and(|d| d.len() > 1) {
        return Err(Error::InvalidInput(format!(
            "--strategy {} runs on one GPU: give --devices one ordinal",
            strategy.name()
        )));
    }
    Ok(())
}

/// Prints a count as text or JSON, with the solutions listed.
pub fn print_run(measured: &Measured<QueensRun>, solutions: &[Vec<u8>], board: bool, json: bool) {
    if json {
        let mut value = measured.json(measured.output.stats());
        if !solutions.is_empty() {
            value["solutions"] = json!(solutions);
        }
        println!("{value}");
        return;
    }
    print_summary(&measured.output.count, &measured.info, solutions, board);
    if let Some((strategy, run)) = &measured.output.strategy {
        let refused = if run.refused_launches == 0 {
            String::new()
        } else {
            format!(
                ", {} child launches refused by the device runtime and counted by their parents",
                run.refused_launches
            )
        };
        println!(
            "  strategy   {} ({}): {} host jobs of {} rows, kernel {:.3} s{refused}",
            strategy.name(),
            strategy.source(),
            run.jobs,
            run.depth,
            run.kernel_seconds,
        );
    }
    if let Some(verified) = measured.verified {
        println!(
            "  verified   {}",
            if verified { "against OEIS" } else { "NO" }
        );
    }
}

/// `match`, `MISMATCH` or `not published` against the OEIS value for this size.
fn oeis_verdict(n: usize, pick: impl Fn((u128, u128)) -> u128, value: u128) -> &'static str {
    match known_counts(n) {
        Some(known) if pick(known) == value => "match",
        Some(_) => "MISMATCH",
        None => "not published",
    }
}

/// The text summary of a count.
fn print_summary(count: &QueensCount, info: &RunInfo, solutions: &[Vec<u8>], board: bool) {
    for solution in solutions {
        println!("{}", format_solution(solution));
        if board {
            println!("{}", draw_board(solution));
        }
    }
    let n = count.n;
    let where_ran = if info.devices.is_empty() {
        format!("{}, {} threads", info.backend, info.threads)
    } else {
        format!("{} on {}", info.backend, info.devices.join(", "))
    };
    println!("N-Queens, N = {n}");
    println!(
        "  total      {:>20}   OEIS A000170: {}",
        count.total,
        oeis_verdict(n, |k| k.0, count.total)
    );
    println!(
        "  unique     {:>20}   OEIS A002562: {}",
        count.unique,
        oeis_verdict(n, |k| k.1, count.unique)
    );
    println!("  wall time  {:>18.3} s", info.seconds);
    println!("  backend    {where_ran}");
}
