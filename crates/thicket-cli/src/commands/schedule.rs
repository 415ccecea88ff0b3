//! `thicket schedule`: one matching method on an ETC matrix from a file or a generator.

use std::time::Duration;

use thicket_core::{write_atomically, Error, Result};
use thicket_schedule::{assignment, schedule, Etc, Method, ScheduleOptions, Scratch, SwarmParams};

use crate::cli::{ScheduleArgs, ScratchArg};
use crate::flags::run_options;

/// `thicket schedule`.
pub fn run(args: &ScheduleArgs) -> Result<()> {
    let etc = match (&args.file, args.generate) {
        (Some(path), _) => Etc::read(path)?,
        (None, Some(generator)) => generator.generate(args.seed)?,
        (None, None) => return Err(Error::InvalidInput("no ETC file or --generate".into())),
    };
    if let Some(out) = &args.write_etc {
        return write_atomically(out, &etc.to_text());
    }
    if !(args.time_limit.is_finite() && args.time_limit > 0.0 && args.time_limit <= 1e6) {
        return Err(Error::InvalidInput(format!(
            "time limit {} is not a number of seconds in (0, 1e6]",
            args.time_limit
        )));
    }
    let swarm = match args.method {
        Method::Pso | Method::Mspso => {
            let base = match args.method {
                Method::Pso => SwarmParams::SINGLE,
                _ => SwarmParams::THESIS,
            };
            Some(SwarmParams {
                swarms: args.swarms.map_or(base.swarms, |s| s as usize),
                particles: args.particles.map_or(base.particles, |p| p as usize),
                iterations: args.iterations.map_or(base.iterations, |i| i as usize),
                ..base
            })
        }
        _ => None,
    };
    let options = ScheduleOptions {
        run: run_options(&args.backend, &args.output, &args.trials),
        method: args.method,
        seed: args.seed,
        time_limit: Duration::from_secs_f64(args.time_limit),
        epochs: args.epochs.map(|e| e as usize),
        swarm,
        threads: args.backend.thread_count(),
        device: args.backend.first_device(),
        scratch: args.scratch.map(|s| match s {
            ScratchArg::Shared => Scratch::Shared,
            ScratchArg::Global => Scratch::Global,
        }),
        profile: args.profile,
    };
    let measured = schedule(&etc, &options)?;
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(out) = &args.assignment {
        write_atomically(out, &assignment::to_text(&run.assignment))?;
    }
    if args.output.json {
        println!("{}", measured.json(run.stats(&etc)));
        return Ok(());
    }
    println!(
        "{} tasks x {} machines, {}",
        etc.tasks(),
        etc.machines(),
        run.method
    );
    println!("  makespan     {:.6}", run.makespan);
    println!(
        "  lower bound  {:.6} (makespan {:.2}% above)",
        run.lower_bound,
        100.0 * (run.makespan / run.lower_bound - 1.0)
    );
    let loads: Vec<String> = run.loads.iter().map(|l| format!("{l:.1}")).collect();
    println!("  loads        {}", loads.join(" "));
    match (run.kernel_seconds, measured.info.devices.first()) {
        (Some(kernel), Some(device)) => println!(
            "  wall time    {:.3} s on {device}, {:.3} s of kernels",
            measured.info.seconds, kernel
        ),
        _ => println!(
            "  wall time    {:.3} s, {} thread(s)",
            measured.info.seconds, measured.info.threads
        ),
    }
    if let Some(verified) = measured.verified {
        println!(
            "  verified     {}",
            if verified {
                "assignment and makespan"
            } else {
                "NO"
            }
        );
    }
    Ok(())
}
