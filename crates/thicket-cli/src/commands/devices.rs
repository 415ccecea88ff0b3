//! `thicket devices`: the GPUs thicket can use and the CPU cores, or why there is no GPU.

use clap::Args;
use serde_json::json;
use thicket_core::Result;
use thicket_gpu::{probe, DeviceInfo};

/// Options of `thicket devices`.
#[derive(Debug, Args)]
pub struct DevicesArgs {
    /// Print one JSON object instead of the list.
    #[arg(long)]
    pub json: bool,
}

/// Prints the devices; no GPU is a normal answer (exit code 0), said plainly.
pub fn run(args: &DevicesArgs) -> Result<()> {
    let cores = thicket_core::available_threads();
    let probed = probe();
    let path = thicket_core::cpu_path().describe();
    if args.json {
        let value = match &probed {
            Ok(gpus) => json!({
                "gpu_available": true,
                "gpus": gpus.iter().map(gpu_json).collect::<Vec<_>>(),
                "cpu_cores": cores,
                "cpu_path": path,
            }),
            Err(why) => json!({
                "gpu_available": false,
                "gpus": [],
                "reason": why.to_string(),
                "cpu_cores": cores,
                "cpu_path": path,
            }),
        };
        outln!("{value}");
        return Ok(());
    }
    match &probed {
        Ok(gpus) => {
            for gpu in gpus {
                outln!(
                    "GPU {}: {}, {} SMs, {:.1} GiB, compute capability {}.{}, driver CUDA {}.{}",
                    gpu.ordinal,
                    gpu.name,
                    gpu.sm_count,
                    gpu.total_memory_bytes as f64 / f64::from(1u32 << 30),
                    gpu.compute_capability.0,
                    gpu.compute_capability.1,
                    gpu.driver_version.0,
                    gpu.driver_version.1
                );
            }
        }
        Err(why) => outln!("no GPU: {why}"),
    }
    outln!("CPU: {cores} cores, counters on the {path}");
    Ok(())
}

fn gpu_json(gpu: &DeviceInfo) -> serde_json::Value {
    json!({
        "ordinal": gpu.ordinal,
        "name": gpu.name,
        "sm_count": gpu.sm_count,
        "memory_bytes": gpu.total_memory_bytes,
        "compute_capability": format!("{}.{}", gpu.compute_capability.0, gpu.compute_capability.1),
        "driver_cuda_version": format!("{}.{}", gpu.driver_version.0, gpu.driver_version.1),
    })
}
