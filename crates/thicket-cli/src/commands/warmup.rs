//! `thicket warmup`: every kernel of every solver compiled for the GPUs given and kept in the
//! on-disk cache, ahead of the runs, for those who would rather wait once than on a first
//! call (a first call compiles only the kernels it runs: a few seconds).

use std::time::Instant;

use clap::Args;
use serde_json::json;
use thicket_core::{Error, Result};
use thicket_gpu::{find_cudadevrt, Gpu, KernelModule};

/// Options of `thicket warmup`.
#[derive(Debug, Args)]
pub struct WarmupArgs {
    /// The GPUs to compile for (each distinct architecture once matters; the cache is shared).
    #[arg(long, value_name = "LIST", default_value = "0", value_delimiter = ',')]
    pub devices: Vec<usize>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// Every solver crate's kernel modules.
fn every_module() -> Vec<KernelModule> {
    [
        &thicket_queens::kernels::ALL[..],
        &thicket_perm::kernels::ALL,
        &thicket_atsp::KERNEL_MODULES,
        &thicket_lattice::kernels::ALL,
        &thicket_graph::kernels::ALL,
        &thicket_flow::kernels::ALL,
        &thicket_schedule::KERNEL_MODULES,
    ]
    .concat()
}

/// Compiles every kernel for each device; a module that needs the CUDA device runtime
/// (the papers' dynamic-parallelism strategies) is left out, with a note, where none is found.
pub fn run(args: &WarmupArgs) -> Result<()> {
    let mut modules = every_module();
    let mut notes = Vec::new();
    if let Err(why) = find_cudadevrt() {
        notes.push(format!(
            "the dynamic-parallelism modules were left out (they compile on first use): {why}"
        ));
        modules.retain(|m| !m.linked);
    }
    let mut failed = Vec::new();
    let mut compiled = 0;
    let started = Instant::now();
    for &ordinal in &args.devices {
        let gpu = Gpu::shared(ordinal)?;
        for (name, outcome) in thicket_gpu::warm_up(&gpu, &modules) {
            match outcome {
                Ok(()) => compiled += 1,
                Err(why) => failed.push(format!("{name}: {why}")),
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        outln!(
            "{}",
            json!({"compiled": compiled, "failed": failed, "notes": notes, "seconds": seconds})
        );
    } else {
        notes.iter().for_each(|note| errln!("note: {note}"));
        outln!("{compiled} kernel compilations cached in {seconds:.1} s");
    }
    match failed.first() {
        None => Ok(()),
        Some(first) => Err(Error::Gpu(format!(
            "{} compilations failed; the first: {first}",
            failed.len()
        ))),
    }
}
