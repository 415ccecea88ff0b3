//! `thicket schedule`: one matching method on an ETC matrix from a file or a generator.

use std::time::{Duration, Instant};

use clap::Args;
use thicket_core::{Error, Measured, Result};
use thicket_schedule::{
    assignment, schedule, Etc, EtcFormat, Method, ScheduleOptions, ScheduleRun, Scratch,
    SwarmParams,
};

use super::{result_on_stdout, say, Summary};
use crate::flags::{choices, run_options, BackendArgs, OutputArgs, TrialArgs};
use crate::stdio::write_output;

/// Options of `thicket schedule`.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// The ETC matrix: a `.csv` file has one line per task, one comma-separated time per
    /// machine, no header; any other is in Braun et al.'s format: a header `TASKS MACHINES
    /// [x]` (or none for Braun's 512 x 16), then the times task-major, one task's machines
    /// after another; `-` reads stdin, as CSV where its first line holds a comma, else as
    /// Braun's (--format names it).
    #[arg(required_unless_present = "generate")]
    pub file: Option<std::path::PathBuf>,
    /// The matrix's format, whatever its file is called: braun or csv (FILE's, or with
    /// --generate --write-etc the written one's).
    #[arg(long, value_parser = choices(&EtcFormat::ALL, EtcFormat::name))]
    pub format: Option<EtcFormat>,
    /// Instead of FILE, a seeded matrix: `thesis:TxM` (task lengths / machine MIPS) or
    /// Braun's `u_<c|s|i>_<hi|lo><hi|lo>:TxM` (consistency, task and machine heterogeneity),
    /// e.g. `u_c_hihi:512x16`.
    #[arg(long, value_name = "SPEC", conflicts_with = "file")]
    pub generate: Option<thicket_schedule::Generator>,
    /// With --generate: write the matrix to this file (CSV for a name ending in `.csv`, else
    /// Braun's format; --format names it; `-`: stdout) and stop.
    #[arg(long, value_name = "FILE", requires = "generate")]
    pub write_etc: Option<std::path::PathBuf>,
    /// fcfs (the thesis's: each task to the machine that finishes it first; = mct), olb,
    /// met, mct, min-min, max-min, sufferage, pso, mspso (the thesis's swarms), ils
    /// (iterated local search from Min-Min) or lp-ils (the default: the LP relaxation's
    /// bound and rounded start, then the local search, on the CPU or the GPU).
    #[arg(long, default_value = "lp-ils", value_parser = choices(&Method::ALL, Method::name))]
    pub method: Method,
    /// ils, lp-ils: stop after this many seconds (or at the lower bound).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,
    /// ils, lp-ils: stop after this many epochs (64 kicks per thread each); with a time limit that
    /// does not bind, the run repeats exactly with its seed and thread count.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub epochs: Option<u32>,
    /// Seed of the randomised methods and of --generate.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// pso/mspso: swarms (default: 1 for pso, 10 for mspso).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub swarms: Option<u32>,
    /// pso/mspso: particles per swarm (default 128).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1024))]
    pub particles: Option<u32>,
    /// pso/mspso: iterations (default 1,000).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub iterations: Option<u32>,
    /// pso/mspso on the GPU: the fitness kernel's machine loads in shared or global memory
    /// (default: shared while particles x machines floats fit in 48 KiB).
    #[arg(long, value_enum)]
    pub scratch: Option<ScratchArg>,
    /// pso/mspso on the GPU: time every phase (init, random, fitness, bests, update,
    /// exchange; the thesis's Table 6.1), JSON key phase_seconds.
    #[arg(long)]
    pub profile: bool,
    /// Write the assignment to this file: one machine index (from 0) per task, one per line
    /// (`-`: stdout, the summary then on stderr).
    #[arg(
        long = "output",
        short = 'o',
        alias = "assignment",
        value_name = "FILE"
    )]
    pub output_file: Option<std::path::PathBuf>,
    /// Where to run.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Trials and verification (the assignment complete and in range, its makespan
    /// recomputed from the matrix equal to the reported one).
    #[command(flatten)]
    pub trials: TrialArgs,
}

/// Where the GPU swarms' fitness kernel keeps machine loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScratchArg {
    /// Shared memory (the thesis's fast kernel).
    Shared,
    /// Global memory (the thesis's fallback).
    Global,
}

/// `thicket schedule`.
pub fn run(args: &ScheduleArgs) -> Result<()> {
    let started = Instant::now();
    let etc = match (&args.file, args.generate) {
        (Some(path), _) => Etc::read_as(path, args.format)?,
        (None, Some(generator)) => generator.generate(args.seed)?,
        (None, None) => return Err(Error::InvalidInput("no ETC file or --generate".into())),
    };
    if let Some(out) = &args.write_etc {
        let format = args.format.unwrap_or_else(|| EtcFormat::of_path(out));
        return write_output(out, &etc.to_text_as(format));
    }
    let result_on_stdout = result_on_stdout(
        args.output.json,
        &[("--output", args.output_file.as_deref())],
    )?;
    if !(args.time_limit.is_finite() && args.time_limit > 0.0 && args.time_limit <= 1e6) {
        return Err(Error::InvalidInput(format!(
            "time limit {} is not a number of seconds in (0, 1e6]",
            thicket_core::number(args.time_limit)
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
    // A matrix the solver cannot handle is named by its file (or generator).
    let source = match (&args.file, args.generate) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(generator)) => generator.to_string(),
        (None, None) => String::new(),
    };
    let measured = schedule(&etc, &options).map_err(|e| match e {
        Error::InvalidInput(m) => Error::InvalidInput(format!("{source}: {m}")),
        other => other,
    });
    let reported = measured.and_then(|measured| report(args, &etc, &measured, result_on_stdout));
    // A GPU set-up the run did not wait for (a cold kernel cache's compile) ends here, after
    // the answer, so that the next thicket finds the kernels cached; but not past 8% over
    // the limit, which would make a short run's process late (the compile is then dropped).
    let until = started + options.time_limit.mul_f64(1.08);
    if !thicket_schedule::finish_gpu_setup(until) && !args.output.quiet {
        errln!(
            "note: the GPU kernels were still compiling when the run's time was up; the compile \
             was dropped (`thicket warmup` compiles and caches every kernel once)"
        );
    }
    reported
}

/// Prints a finished run: its notes, the assignment where asked, and the JSON or the
/// summary.
fn report(
    args: &ScheduleArgs,
    etc: &Etc,
    measured: &Measured<ScheduleRun>,
    result_on_stdout: bool,
) -> Result<()> {
    super::say_notes(&measured.info, args.output.quiet);
    let run = &measured.output;
    if let Some(out) = &args.output_file {
        write_output(out, &assignment::to_text(&run.assignment))?;
    }
    if args.output.json {
        outln!("{}", measured.json(run.stats(etc)));
        return Ok(());
    }
    let summary = Summary::beside(result_on_stdout, args.output.quiet);
    say!(
        summary,
        "{} tasks x {} machines, {}",
        etc.tasks(),
        etc.machines(),
        run.method
    );
    say!(summary, "  makespan     {:.6}", run.makespan);
    if run.proven_optimal() {
        // At the bound the search stopped there: nothing better exists.
        say!(
            summary,
            "  lower bound  {:.6} (makespan proven optimal)",
            run.lower_bound
        );
    } else {
        say!(
            summary,
            "  lower bound  {:.6} (gap {:.2}% of the makespan)",
            run.lower_bound,
            100.0 * run.gap()
        );
    }
    let loads: Vec<String> = run.loads.iter().map(|l| format!("{l:.1}")).collect();
    say!(summary, "  loads        {}", loads.join(" "));
    match (run.kernel_seconds, measured.info.devices.first()) {
        (Some(kernel), Some(device)) => say!(
            summary,
            "  wall time    {:.3} s on {device}, {:.3} s of kernels",
            measured.info.seconds,
            kernel
        ),
        _ => say!(
            summary,
            "  wall time    {:.3} s, {} thread(s)",
            measured.info.seconds,
            measured.info.threads
        ),
    }
    if let Some(verified) = measured.verified {
        say!(
            summary,
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
