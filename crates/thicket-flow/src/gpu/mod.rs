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
use crate::mpm::SolveStats;
use crate::residual::Residual;

pub(crate) use device::FlowDevice;

/// Which GPU solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuStrategy {
    /// One thread per vertex in every launch.
    Mpm,
    /// The whole solve in one cooperative launch, lists of active vertices by atomic appends.
    MpmActive,
    /// Lists of active vertices by scans, for push/pull and pruning (host loops).
    MpmScan,
    /// Lock-free push-relabel (Hong 2008) on work lists, with a one-launch global
    /// relabelling; both phases (to the sink, the stranded excess back to the source) on the
    /// device.
    PushRelabel,
}

/// Time per phase (device time by events; the phases of `mpm-serial` by the clock), by name,
/// and kernel launches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuPhases {
    /// Seconds per phase, in the order first met: MPM `layered` (BFS levels, layered vertices,
    /// potentials), `prune` (with its scans), `push_pull` (with the argmin and scans);
    /// push-relabel `global_relabel` and `push_relabel` (toward the sink), `return_relabel`
    /// and `return_push` (the excess that cannot reach the sink back to the source).
    pub seconds: Vec<(&'static str, f64)>,
    /// Kernel launches.
    pub launches: u64,
    /// Grid barriers inside the launches (the one-launch MPM's rounds, the global
    /// relabellings' BFS levels).
    pub barriers: u64,
}

impl GpuPhases {
    /// Adds `seconds` to phase `name`.
    pub fn add(&mut self, name: &'static str, seconds: f64) {
        match self.seconds.iter_mut().find(|(n, _)| *n == name) {
            Some((_, s)) => *s += seconds,
            None => self.seconds.push((name, seconds)),
        }
    }

    /// The phases' sum.
    pub fn total_seconds(&self) -> f64 {
        self.seconds.iter().map(|(_, s)| s).sum()
    }
}

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
    pub fn solve(self, strategy: GpuStrategy) -> Result<GpuSolved> {
        match strategy {
            GpuStrategy::Mpm => self.solve_mpm(false),
            GpuStrategy::MpmScan => self.solve_mpm(true),
            GpuStrategy::MpmActive => self.solve_fused(),
            GpuStrategy::PushRelabel => self.solve_push_relabel(),
        }
    }
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
