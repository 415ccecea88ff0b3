//! `thicket maxflow`: read or generate a network, find a maximum flow, check its certificate,
//! print the summary (or JSON) and, on request, the flow and the cut.

use std::fmt::Write as _;

use thicket_core::{write_atomically, Error, Result};
use thicket_flow::{dimacs, maxflow, FlowAnswer, MaxflowOptions, Network};

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
    let (answer, stats) = (&measured.output.answer, &measured.output.stats);
    if let Some(path) = &args.output_file {
        write_atomically(path, &solution(&network, answer))?;
    }
    if args.output.json {
        println!("{}", measured.json(measured.output.json()));
        return Ok(());
    }
    println!(
        "maximum flow of {name} ({} vertices, {} arcs), strategy {}",
        stats.vertices, stats.arcs, stats.strategy
    );
    println!("  flow         {}", answer.value);
    println!(
        "  minimum cut  {} arcs, {} vertices on the source side",
        answer.cut_arcs.len(),
        answer.source_side.iter().filter(|&&x| x).count()
    );
    if let Some(g) = &stats.phases {
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
fn solution(network: &Network, answer: &FlowAnswer) -> String {
    let mut text = dimacs::write_solution(network, answer.value, &answer.flows);
    for &i in &answer.cut_arcs {
        let a = network.arcs[i];
        // Infallible: writing to a String.
        let _ = writeln!(text, "c cut {} {}", a.tail + 1, a.head + 1);
    }
    text
}
