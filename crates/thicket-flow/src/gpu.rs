//! The GPU solvers, each beside its kernels: [`mpm`] (`kernels/mpm.cu`: the thesis's MPM and
//! its "active vertices" variant by scans), [`mpm_fused`] (`kernels/mpm_fused.cu`: the same
//! algorithm in one cooperative launch) and [`push_relabel`] (`kernels/push_relabel.cu`).
//! What they share is here: the residual graph's structure on the device ([`FlowGpu`]), the
//! launch shapes and the report of a solve; [`device`] holds the GPU with its loaded kernels,
//! opened once per process.
//!
//! Device time is taken per phase with CUDA events, for the thesis's Tables 5.1-5.3.

mod device;
mod mpm;
mod mpm_fused;
mod push_relabel;

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use thicket_core::{Error, Result};
use thicket_gpu::{download_map, upload_map, upload_staged, Gpu, GpuError};

use crate::kernels::{LIST_BLOCKS, THREADS};
use crate::report::{GpuPhases, SolveStats};
use crate::residual::Residual;
use crate::strategy::Strategy;

pub(crate) use device::FlowDevice;

/// A maximum flow found on the GPU.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GpuSolved {
    /// The flow on every input arc.
    pub flows: Vec<u64>,
    /// Phases and vertices of least potential saturated.
    pub stats: SolveStats,
    /// Device time per phase.
    pub phases: GpuPhases,
    /// Host seconds from the solve's end to the flows in host memory: the residual
    /// capacities' copy down and the flows read from them.
    pub download_seconds: f64,
}

/// A network's residual graph on a [`FlowDevice`]: its structure uploaded, the capacities
/// uploaded by each solve.
pub(crate) struct FlowGpu<'d> {
    device: &'d FlowDevice,
    residual: Residual,
    source: u32,
    sink: u32,
    start: CudaSlice<u32>,
    head: CudaSlice<u32>,
    pair: CudaSlice<u32>,
}

impl<'d> FlowGpu<'d> {
    /// Uploads the structure of `residual` (from `source` to `sink`) to `device`, after
    /// checking that the solve's arrays fit in its free memory (a network that does not is
    /// [`Error::TooLarge`]).
    pub fn upload(
        device: &'d FlowDevice,
        residual: Residual,
        source: u32,
        sink: u32,
    ) -> Result<FlowGpu<'d>> {
        let gpu = device.gpu();
        let n = residual.vertices as u64;
        let slots = residual.head.len() as u64;
        // start, head, pair, capacities; levels, alive, flags, two lists; three i64 arrays.
        let bytes = 4 * (n + 1) + slots * (4 + 4 + 8) + n * (4 * 5 + 8 * 3);
        let (free, _) = gpu
            .context()
            .mem_get_info()
            .map_err(GpuError::driver("cuMemGetInfo"))?;
        if bytes > free as u64 {
            return Err(Error::TooLarge(format!(
                "the network does not fit on GPU {}: {n} vertices and {} arcs need \
                 {:.2} GiB, {:.2} GiB are free",
                gpu.ordinal(),
                slots / 2,
                bytes as f64 / (1u64 << 30) as f64,
                free as f64 / (1u64 << 30) as f64
            )));
        }
        let stream = gpu.stream().clone();
        let up = |values: &[u32]| upload_staged(&stream, values);
        let (start, head, pair) = (
            up(&residual.start)?,
            up(&residual.head)?,
            up(&residual.pair)?,
        );
        Ok(FlowGpu {
            device,
            residual,
            source,
            sink,
            start,
            head,
            pair,
        })
    }

    fn gpu(&self) -> &Gpu {
        self.device.gpu()
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.gpu().stream()
    }

    /// Finds a maximum flow with `strategy`: the capacities up, the solve, the residual
    /// capacities down and the flows read from them.
    pub fn solve(self, strategy: Strategy) -> Result<GpuSolved> {
        match strategy {
            Strategy::Mpm => self.solve_mpm(false),
            Strategy::MpmScan => self.solve_mpm(true),
            Strategy::MpmActive => self.solve_fused(),
            Strategy::PushRelabelGpu => self.solve_push_relabel(),
            Strategy::MpmSerial | Strategy::PushRelabel => Err(not_gpu(strategy)),
        }
    }
}

/// The error of a CPU strategy asked of the GPU solvers (the front door never does).
fn not_gpu(strategy: Strategy) -> Error {
    Error::InvalidInput(format!("{strategy} is not a GPU strategy"))
}

/// The residual capacities on the device as the kernels' signed words (every one fits: the
/// capacities' sum does), converted by the host's threads on the way through page-locked
/// memory.
fn upload_signed(stream: &Arc<CudaStream>, capacity: &[u64]) -> Result<CudaSlice<i64>> {
    Ok(upload_map(stream, capacity, |c| c as i64)?)
}

/// The first `len` signed words of `words` as the host's residual capacities or excesses,
/// through page-locked memory.
fn download_unsigned(
    stream: &Arc<CudaStream>,
    words: &CudaSlice<i64>,
    len: usize,
) -> Result<Vec<u64>> {
    Ok(download_map(stream, words, len, |x| x as u64)?)
}

fn blocks(count: usize, threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (count.div_ceil(threads).max(1) as u32, 1, 1),
        block_dim: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// One thread per vertex.
fn per_vertex(n: u32) -> LaunchConfig {
    blocks(n as usize, THREADS)
}

/// Threads that walk a list of at most `n` vertices (grid-stride).
fn per_list(n: u32) -> LaunchConfig {
    let mut c = per_vertex(n);
    c.grid_dim.0 = c.grid_dim.0.min(LIST_BLOCKS as u32);
    c
}

fn launched(result: std::result::Result<(), cudarc::driver::DriverError>) -> Result<()> {
    Ok(result.map_err(GpuError::driver("cuLaunchKernel"))?)
}
