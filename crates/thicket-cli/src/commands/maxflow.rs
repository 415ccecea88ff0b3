//! `thicket maxflow`: read or generate a network, find a maximum flow, check its certificate,
//! print the summary (or JSON) and, on request, the flow and the cut.

use std::fmt::Write as _;

use clap::Args;
use thicket_core::{Error, Result};
use thicket_flow::{dimacs, maxflow, FlowAnswer, MaxflowOptions, Network};

use super::{result_on_stdout, say, Summary};
use crate::flags::{choices, run_options, BackendArgs, OutputArgs, TrialArgs};
use crate::stdio::write_output;

/// Options of `thicket maxflow`.
#[derive(Debug, Args)]
pub struct MaxflowArgs {
    /// The network: a DIMACS max-flow file (`p max`, `n <id> s`, `n <id> t`, `a u v cap`);
    /// `-` reads it from stdin.
    #[arg(required_unless_present = "generate", conflicts_with = "generate")]
    pub network: Option<std::path::PathBuf>,
    /// Instead: generate the network, genrmf:A:B:C1:C2:SEED (Goldfarb-Grigoriadis),
    /// rlg:ROWS:COLS:MAXCAP:SEED (Washington random level graph) or
    /// random:VERTICES:DEGREE:MAXCAP:SEED (the thesis's random graphs).
    #[arg(long, value_name = "SPEC")]
    pub generate: Option<thicket_flow::generate::Spec>,
    /// Write the network (read or generated) to this .max file (`-`: stdout).
    #[arg(long, alias = "write", value_name = "FILE")]
    pub write_network: Option<std::path::PathBuf>,
    /// mpm-serial (the thesis's MPM, with residual arcs), push-relabel (highest label, global
    /// and gap relabelling; the CPU default), mpm (the thesis's GPU MPM), mpm-active (its
    /// active-vertices variant in one cooperative launch), mpm-scan (that variant as the
    /// thesis wrote it: scans and host loops) or push-relabel-gpu (lock-free push-relabel with global relabelling; the
    /// GPU default).
    #[arg(long, value_parser = choices(&thicket_flow::Strategy::ALL, thicket_flow::Strategy::name))]
    pub strategy: Option<thicket_flow::Strategy>,
    /// Write the flow in DIMACS solution form (`s <value>`, `f <tail> <head> <flow>` per arc)
    /// with the minimum cut's arcs as `c cut <tail> <head>` lines (`-`: stdout, the summary
    /// then on stderr).
    #[arg(long = "output", short = 'o', value_name = "FILE")]
    pub output_file: Option<std::path::PathBuf>,
    /// Where to run (--devices: the GPU's ordinal, default 0).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials (every flow is checked by its certificate; --verify only makes that explicit).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// `thicket maxflow`.
pub fn run(args: &MaxflowArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let (network, name) = match (&args.network, &args.generate) {
        (_, Some(spec)) => (spec.generate()?, spec.to_string()),
        (Some(path), None) => (dimacs::read(path)?, thicket_core::input_name(path)),
        (None, None) => {
            return Err(Error::InvalidInput(
                "a network file or --generate is needed".into(),
            ))
        }
    };
    // Reading or generating the network, outside the front door's `seconds`.
    let read_seconds = started.elapsed().as_secs_f64();
    let result_on_stdout = result_on_stdout(
        args.output.json,
        &[
            ("--write-network", args.write_network.as_deref()),
            ("--output", args.output_file.as_deref()),
        ],
    )?;
    let options = MaxflowOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        strategy: args.strategy,
        device: args.backend.first_device(),
    };
    // A network too large to solve here is named by its file (or --generate spec), as a
    // reader's errors are: the library sees only its vertices and arcs.
    let measured = maxflow(&network, &options).map_err(|e| match e {
        Error::TooLarge(m) => Error::TooLarge(format!("{name}: {m}")),
        other => other,
    })?;
    super::say_notes(&measured.info, args.output.quiet);
    let (answer, stats) = (&measured.output.answer, &measured.output.stats);
    // Outputs only once the flow is found and checked: a failed run changes no file.
    if let Some(path) = &args.write_network {
        write_output(path, &dimacs::write(&network))?;
    }
    if let Some(path) = &args.output_file {
        write_output(path, &solution(&network, answer))?;
    }
    if args.output.json {
        let mut stats = measured.output.json();
        stats.insert("read_seconds".into(), serde_json::json!(read_seconds));
        outln!("{}", measured.json(stats));
        return Ok(());
    }
    let summary = Summary::beside(result_on_stdout, args.output.quiet);
    say!(
        summary,
        "maximum flow of {name} ({} vertices, {} arcs), strategy {}",
        stats.vertices,
        stats.arcs,
        stats.strategy
    );
    say!(summary, "  flow         {}", answer.value);
    say!(
        summary,
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
        say!(summary, "  phases       {}", phases.join(", "));
    }
    say!(
        summary,
        "  verified     {}",
        if measured.verified == Some(true) {
            "yes (capacities, conservation, min-cut certificate)"
        } else {
            "NO"
        }
    );
    say!(summary, "  seconds      {:.6}", measured.info.seconds);
    say!(summary, "  backend      {}", measured.info.backend);
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
