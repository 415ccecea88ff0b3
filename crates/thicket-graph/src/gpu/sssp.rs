//! Shortest paths on the GPU (kernel in `kernels/sssp.cu`): near-far delta-stepping (Davidson
//! et al., IPDPS 2014) in one cooperative launch, exact 64-bit distances.
//!
//! Near-far rather than delta-stepping's array of buckets: two piles of at most n vertices
//! each, whatever the distances' range, and a threshold that jumps over empty buckets; in one
//! launch with a grid barrier between rounds, a road-like graph's thousands of rounds cost no
//! host round trip.
//!
//! A graph is uploaded once ([`SsspGpu::open`]) and searched from any number of sources.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaModule, CudaSlice, LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{download_map, record_event, seconds_between, GpuError};

use super::{upload, DeviceGraph};
use crate::graph::GraphView;
use crate::kernels::{
    FAR_MIN_BASE, GIANT, NEAR_BASE, NEAR_GIANTS_BASE, SSSP, SSSP_COUNTER_WORDS, SSSP_THREADS,
};
use crate::INFINITE;

/// The bucket width the GPU search takes by default: the mean weight times 128 over the mean
/// out-degree (at least 1), so that a round has some 128 arcs' worth of distance to settle per
/// vertex: 4,096 on a grid of weights 1..=255, about 500 on a Kronecker graph of edge factor
/// 16, where wider buckets cost few extra relaxations and save rounds (measurements in
/// docs/graphs.md and docs/benchmarks.md, "Graphs").
pub(crate) fn default_delta(graph: GraphView<'_>) -> u64 {
    let vertices = graph.vertices().max(1) as u128;
    let arcs = (graph.targets.len() as u128).max(1);
    let delta = u128::from(crate::cpu::sssp::default_delta(graph)) * 128 * vertices / arcs;
    u64::try_from(delta).unwrap_or(u64::MAX).max(1)
}

/// One GPU search.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GpuSsspRun {
    /// Each vertex's distance ([`INFINITE`] where unreached).
    pub(crate) distances: Vec<u64>,
    /// Seconds of the search's launch (CUDA events).
    pub(crate) kernel_seconds: f64,
    /// Rounds (grid barriers), relaxing and splitting.
    pub(crate) rounds: u64,
    /// Near-pile vertices whose arcs were relaxed (reached vertices and the rework).
    pub(crate) relaxed: u64,
}

/// One GPU with the shortest-path kernel loaded and a weighted graph uploaded.
pub(crate) struct SsspGpu {
    graph: DeviceGraph,
    module: Arc<CudaModule>,
    /// The arcs' weights; `None`: every arc weighs 1.
    weights: Option<CudaSlice<u32>>,
    /// Seconds the graph's and its weights' copy to the device took.
    upload_seconds: f64,
}

impl SsspGpu {
    /// Loads the kernel on GPU `ordinal` (the process's shared device) and uploads `graph`
    /// and its weights (none: every arc weighs 1). A graph that does not fit is an
    /// [`Error::TooLarge`] with its sizes.
    pub(crate) fn open(ordinal: usize, graph: GraphView<'_>) -> Result<SsspGpu> {
        let arcs = graph.arcs();
        let n = graph.vertices() as u64;
        let giant_room = arcs / GIANT as u64 + 1;
        // offsets, heads, weights; distances (8), two near and two far piles and two stamps
        // (4 each); the giants' lists
        let device_bytes = 8 * (n + 1)
            + arcs * if graph.weights.is_some() { 8 } else { 4 }
            + 8 * n
            + 6 * 4 * n
            + 2 * 4 * giant_room;
        let uploaded = DeviceGraph::upload(ordinal, graph, device_bytes, "distances and piles")?;
        let module = uploaded.gpu.load_module(&SSSP.source, &SSSP.options())?;
        let started = Instant::now();
        let weights = match &graph.weights {
            Some(w) => Some(upload(&uploaded.gpu, w)?),
            None => None,
        };
        uploaded
            .gpu
            .stream()
            .synchronize()
            .map_err(GpuError::driver("cuStreamSynchronize"))?;
        let upload_seconds = uploaded.upload_seconds + started.elapsed().as_secs_f64();
        Ok(SsspGpu {
            graph: uploaded,
            module,
            weights,
            upload_seconds,
        })
    }

    /// The GPU's name.
    pub(crate) fn name(&self) -> String {
        self.graph.name()
    }

    /// Bytes of GPU memory the graph and one search take.
    pub(crate) fn device_bytes(&self) -> u64 {
        self.graph.device_bytes
    }

    /// Seconds the graph's and its weights' copy to the device took.
    pub(crate) fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    /// Shortest paths from `source` (0-based) with buckets of width `delta` (>= 1).
    pub(crate) fn run(&self, source: u32, delta: u64) -> Result<GpuSsspRun> {
        let n = self.graph.vertices;
        if source as usize >= n {
            return Err(Error::InvalidInput(format!(
                "the source {source} is not a vertex (0..{n})"
            )));
        }
        let delta = delta.max(1);
        let stream = self.graph.gpu.stream();
        let alloc = |count: usize| {
            // SAFETY: every entry of a pile is written by the search before it is read (the
            // source's by the copies below).
            unsafe { stream.alloc::<u32>(count.max(1)) }.map_err(GpuError::driver("cuMemAlloc"))
        };
        let zeros = |count: usize| {
            stream
                .alloc_zeros::<u32>(count.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        // SAFETY: every entry is written by fill_u64 before anything reads it.
        let mut distances =
            unsafe { stream.alloc::<u64>(n) }.map_err(GpuError::driver("cuMemAlloc"))?;
        let fill = self.graph.gpu.load_function(&self.module, "fill_u64")?;
        let mut launch = stream.launch_builder(&fill);
        let (count_arg, infinite) = (n as u64, INFINITE);
        launch.arg(&mut distances).arg(&count_arg).arg(&infinite);
        let config = LaunchConfig {
            grid_dim: (n.div_ceil(1024).clamp(1, 4096) as u32, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: fill_u64(values, count, value) writes values[0..count) only.
        unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        let s = source as usize;
        stream
            .memcpy_htod(&[0u64], &mut distances.slice_mut(s..s + 1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut near = alloc(2 * n)?;
        stream
            .memcpy_htod(&[source], &mut near.slice_mut(0..1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut far = alloc(2 * n)?;
        let giant_room = (self.graph.arcs / GIANT as u64 + 1) as usize;
        let mut giants = alloc(2 * giant_room)?;
        let mut mark = zeros(n)?;
        let mut far_mark = zeros(n)?;
        let pair = stream
            .clone_dtoh(&self.graph.offsets.slice(s..s + 2))
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let mut counters = vec![0u64; SSSP_COUNTER_WORDS];
        counters[NEAR_BASE] = 1;
        if pair[1] - pair[0] >= GIANT as u64 {
            counters[NEAR_GIANTS_BASE] = 1;
            stream
                .memcpy_htod(&[source], &mut giants.slice_mut(0..1))
                .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        }
        counters[FAR_MIN_BASE..FAR_MIN_BASE + 3].fill(INFINITE);
        let mut counters = stream
            .clone_htod(&counters)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut stats = stream
            .alloc_zeros::<u64>(3)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let kernel = self
            .graph
            .gpu
            .load_function(&self.module, "near_far_sssp")?;
        let per_sm = kernel
            .occupancy_max_active_blocks_per_multiprocessor(SSSP_THREADS as u32, 0, None)
            .map_err(GpuError::driver(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            ))?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "near_far_sssp does not fit on an SM with its block size".into(),
            ));
        }
        // One block per SM: the grid barrier between rounds costs one arrival per block.
        let config = LaunchConfig {
            grid_dim: (self.graph.gpu.info().sm_count, 1, 1),
            block_dim: (SSSP_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let null = 0u64;
        let (n_arg, room_arg) = (n as u32, giant_room as u32);
        let start = record_event(stream)?;
        let mut launch = stream.launch_builder(&kernel);
        launch.arg(&self.graph.offsets).arg(&self.graph.targets);
        match &self.weights {
            Some(w) => launch.arg(w),
            None => launch.arg(&null),
        };
        launch
            .arg(&mut distances)
            .arg(&mut near)
            .arg(&mut giants)
            .arg(&room_arg)
            .arg(&mut far)
            .arg(&mut mark)
            .arg(&mut far_mark)
            .arg(&mut counters)
            .arg(&n_arg)
            .arg(&delta)
            .arg(&mut stats);
        // SAFETY: near_far_sssp(offsets (n + 1), targets and weights (or null) per arc,
        // distances (n), near (2n), giants (2 giant_room), giant_room, far (2n), mark and
        // far_mark (n, zero), counters (SSSP_COUNTER_WORDS, set as the kernel expects), n,
        // delta >= 1, stats (3)); each pile holds a vertex at most once, so n entries suffice;
        // a cooperative launch of one block per SM (at least one fits), which its grid
        // barrier needs.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
        let end = record_event(stream)?;
        let kernel_seconds = seconds_between(&start, &end)?;
        let stats = stream
            .clone_dtoh(&stats)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        // Through page-locked memory: a scale-24 graph's distances are 134 MB.
        let distances = download_map(stream, &distances, n, |d| d)?;
        Ok(GpuSsspRun {
            distances,
            kernel_seconds,
            rounds: stats[0],
            relaxed: stats[2],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;
    use crate::graph::Graph;

    #[test]
    fn the_default_delta_grows_with_the_weights_and_shrinks_with_the_degree() {
        let grid = Generator::Grid { rows: 64, cols: 64 }.generate(1).unwrap();
        let mean = crate::cpu::sssp::default_delta(grid.view());
        // 4 arcs per inner vertex, fewer on the border: a little over 32 times the mean.
        let delta = default_delta(grid.view());
        assert!(
            delta >= 32 * mean && delta <= 34 * mean,
            "{delta} for mean {mean}"
        );
        let unweighted = Graph {
            weights: None,
            ..grid
        };
        assert_eq!(default_delta(unweighted.view()), 128 * 64 * 64 / 16_128);
        let empty = Graph::from_arcs(3, &[], true).unwrap();
        assert_eq!(default_delta(empty.view()), 128 * 3);
    }
}
