//! `thicket maxflow`: read or generate a network, find a maximum flow, check its certificate,
//! print the summary (or JSON) and, on request, the flow and the cut.

use std::fmt::Write as _;

use thicket_core::{write_atomically, Error, Result};
use thicket_flow::network::Network;
use thicket_flow::{dimacs, maxflow, FlowRun, MaxflowOptions};

use crate::cli::MaxflowArgs;
use crate::flags::run_options;

/// `thicket maxflow`.
pub fn run(args: &MaxflowArgs) -> Result<()> {
    let (network, name) = match (&args.network, &args.generate) {
        (_, Some(spec)) => (spec.generate()?, spec.to_string()),
        (Some(path), None) => (dimacs::read(path)?, path.display().to_string()),
        (None, None) => {
            return Err(Error::InvalidInput(
                "a network file or --generate is needed".into(),
            ))
        }
    };
    if let Some(path) = &args.write {
        write_atomically(path, &dimacs::write(&network))?;
    }
    let options = MaxflowOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy: args.strategy,
        device: args.backend.first_device(),
    };
    let measured = maxflow(&network, &options)?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(path) = &args.output_file {
        write_atomically(path, &solution(&network, run))?;
    }
    if args.output.json {
        println!("{}", measured.json(run.stats()));
        return Ok(());
    }
    let stats = run.stats();
    println!(
        "maximum flow of {name} ({} vertices, {} arcs), strategy {}",
        run.vertices, run.arcs, run.strategy
    );
    println!("  flow         {}", run.value);
    println!(
        "  minimum cut  {} arcs, {} vertices on the source side",
        stats["cut_arcs"], stats["source_side"]
    );
    if let Some(g) = &run.gpu {
        let phases: Vec<String> = g
            .seconds
            .iter()
            .map(|(name, s)| format!("{name} {s:.6} s"))
            .collect();
        println!("  phases       {}", phases.join(", "));
    }
    println!(
        "  verified     {}",
        if measured.verified == Some(true) {
            "yes (capacities, conservation, min-cut certificate)"
        } else {
            "NO"
        }
    );
    println!("  seconds      {:.6}", measured.info.seconds);
    println!("  backend      {}", measured.info.backend);
    Ok(())
}

/// The DIMACS solution with the cut's arcs as comments.
fn solution(network: &Network, run: &FlowRun) -> String {
    let mut text = dimacs::write_solution(network, run.value, &run.flows);
    if let Some(c) = &run.certificate {
        for &i in &c.cut_arcs {
            let a = network.arcs[i];
            // Infallible: writing to a String.
            let _ = writeln!(text, "c cut {} {}", a.tail + 1, a.head + 1);
        }
    }
    text
}
