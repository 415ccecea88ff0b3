//! BFS on the GPU (kernels in `kernels/bfs.cu`): the thesis's kernel (Solomon 2012, ch. 4,
//! Algorithm 2) and its active-vertices variant, one launch per level with the host reading a
//! flag or a count after each; and thicket's direction-optimizing search, one cooperative
//! launch for every level.
//!
//! A graph is uploaded once ([`BfsGpu::open`]) and searched from any number of sources.

use std::sync::Arc;

use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{upload, DeviceGraph};
use crate::graph::Graph;
use crate::kernels::{
    BFS, COUNTER_WORDS, EDGES_BASE, FAST_THREADS, GIANT, GIANT_BASE, SCAN_THREADS, SCAN_TILE,
    SIZE_BASE, THESIS_THREADS,
};
use crate::UNREACHED;

/// Which GPU BFS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuBfsStrategy {
    /// The thesis's kernel: every vertex every level, a flag read by the host.
    Thesis,
    /// The thesis's active-vertices variant: a scan lists each level's vertices.
    ThesisActive,
    /// thicket's direction-optimizing search in one launch.
    Fast,
}

/// One GPU search.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GpuBfsRun {
    /// Each vertex's level ([`UNREACHED`] where none).
    pub(crate) levels: Vec<u32>,
    /// Each vertex's parent ([`UNREACHED`] for the source and unreached vertices).
    pub(crate) parents: Vec<u32>,
    /// Seconds from the search's first launch to the end of its last (CUDA events), the
    /// host's reads of flags and counts between levels included.
    pub(crate) kernel_seconds: f64,
    /// Of those, the active-vertices variant's scan and compaction.
    pub(crate) scan_seconds: f64,
    /// Levels searched bottom-up (thicket's search).
    pub(crate) bottom_up_levels: u32,
}

/// One GPU with the BFS kernels loaded and a graph uploaded.
pub(crate) struct BfsGpu {
    graph: DeviceGraph,
    module: Arc<CudaModule>,
    /// The reverse graph, for bottom-up levels, where it is not the graph itself.
    reverse: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
}

impl BfsGpu {
    /// Loads the kernels on GPU `ordinal` (the process's shared device) and uploads `graph`
    /// and `reverse`, the in-neighbours bottom-up levels read (`None`: the graph is
    /// symmetric, its own arcs serve, not uploaded twice).
    pub(crate) fn open(ordinal: usize, graph: &Graph, reverse: Option<&Graph>) -> Result<BfsGpu> {
        let vertices = graph.vertices() as u64;
        if let Some(reverse) = reverse {
            if reverse.vertices() != graph.vertices() || reverse.arcs() != graph.arcs() {
                return Err(Error::InvalidInput(
                    "the reverse graph has other vertices or arcs".into(),
                ));
            }
        }
        let graph_bytes = (graph.offsets.len() * 8 + graph.targets.len() * 4) as u64;
        let device_bytes = graph_bytes * if reverse.is_some() { 2 } else { 1 }
            // levels, parents, two queues or flags and a list
            + 4 * 4 * (vertices + 1);
        let uploaded =
            DeviceGraph::upload(ordinal, graph, device_bytes, "levels, parents and queues")?;
        let gpu = &uploaded.gpu;
        let module = gpu.load_module(&BFS.source, &BFS.options())?;
        let reverse = match reverse {
            Some(r) => Some((upload(gpu, &r.offsets)?, upload(gpu, &r.targets)?)),
            None => None,
        };
        Ok(BfsGpu {
            graph: uploaded,
            module,
            reverse,
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

    fn function(&self, name: &str) -> Result<CudaFunction> {
        Ok(self.graph.gpu.load_function(&self.module, name)?)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.graph.gpu.stream()
    }

    /// `count` u32 set to `value`.
    fn filled(&self, count: usize, value: u32) -> Result<CudaSlice<u32>> {
        let stream = self.stream();
        // SAFETY: every entry is written by fill_u32 before anything reads it.
        let mut values =
            unsafe { stream.alloc::<u32>(count.max(1)) }.map_err(GpuError::driver("cuMemAlloc"))?;
        let fill = self.function("fill_u32")?;
        let mut launch = stream.launch_builder(&fill);
        let count_arg = count as u64;
        launch.arg(&mut values).arg(&count_arg).arg(&value);
        let config = LaunchConfig {
            grid_dim: ((count.div_ceil(1024)).clamp(1, 4096) as u32, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: fill_u32(values, count, value) writes values[0..count) only.
        unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        Ok(values)
    }

    /// Levels and parents with only the source set (level 0).
    fn start(&self, source: u32) -> Result<(CudaSlice<u32>, CudaSlice<u32>)> {
        if source as usize >= self.graph.vertices {
            return Err(Error::InvalidInput(format!(
                "the source {source} is not a vertex (0..{})",
                self.graph.vertices
            )));
        }
        let mut levels = self.filled(self.graph.vertices, UNREACHED)?;
        let parents = self.filled(self.graph.vertices, UNREACHED)?;
        let s = source as usize;
        self.stream()
            .memcpy_htod(&[0u32], &mut levels.slice_mut(s..s + 1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        Ok((levels, parents))
    }

    /// A BFS from `source` (0-based) with `strategy`.
    pub(crate) fn run(&self, source: u32, strategy: GpuBfsStrategy) -> Result<GpuBfsRun> {
        match strategy {
            GpuBfsStrategy::Thesis => self.thesis(source),
            GpuBfsStrategy::ThesisActive => self.thesis_active(source),
            GpuBfsStrategy::Fast => self.fast(source),
        }
    }

    /// Downloads the levels and parents into `run`.
    fn finish(
        &self,
        levels: &CudaSlice<u32>,
        parents: &CudaSlice<u32>,
        run: GpuBfsRun,
    ) -> Result<GpuBfsRun> {
        let stream = self.stream();
        let download = |values: &CudaSlice<u32>| -> Result<Vec<u32>> {
            let mut all = stream
                .clone_dtoh(values)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?;
            all.truncate(self.graph.vertices);
            Ok(all)
        };
        Ok(GpuBfsRun {
            levels: download(levels)?,
            parents: download(parents)?,
            ..run
        })
    }

    fn thesis(&self, source: u32) -> Result<GpuBfsRun> {
        let (mut levels, mut parents) = self.start(source)?;
        let stream = self.stream();
        let kernel = self.function("thesis_bfs")?;
        let mut flag = stream
            .alloc_zeros::<u32>(1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let n = self.graph.vertices as u32;
        let config = LaunchConfig {
            grid_dim: (n.div_ceil(THESIS_THREADS as u32), 1, 1),
            block_dim: (THESIS_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let start = record_event(stream)?;
        let mut level = 1u32;
        loop {
            stream
                .memset_zeros(&mut flag)
                .map_err(GpuError::driver("cuMemsetD8"))?;
            let mut launch = stream.launch_builder(&kernel);
            launch
                .arg(&self.graph.offsets)
                .arg(&self.graph.targets)
                .arg(&mut levels)
                .arg(&mut parents)
                .arg(&n)
                .arg(&level)
                .arg(&mut flag);
            // SAFETY: thesis_bfs(offsets, targets, levels, parents, n, level, flag) with the
            // graph's n + 1 offsets and its arcs, n levels and parents, one flag word; a
            // thread touches vertex ids < n only.
            unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            let labelled = stream
                .clone_dtoh(&flag)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?;
            if labelled[0] == 0 {
                break;
            }
            level += 1;
        }
        let end = record_event(stream)?;
        let seconds = seconds_between(&start, &end)?;
        let run = GpuBfsRun {
            kernel_seconds: seconds,
            ..GpuBfsRun::default()
        };
        self.finish(&levels, &parents, run)
    }

    fn thesis_active(&self, source: u32) -> Result<GpuBfsRun> {
        let (mut levels, mut parents) = self.start(source)?;
        let stream = self.stream();
        let n = self.graph.vertices;
        let level_kernel = self.function("active_bfs")?;
        let count_kernel = self.function("scan_count")?;
        let offsets_kernel = self.function("scan_offsets")?;
        let compact_kernel = self.function("scan_compact")?;
        let mut flags = stream
            .alloc_zeros::<u32>(n)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut active = stream
            .clone_htod(&[source])
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut next = stream
            .alloc_zeros::<u32>(n)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let tiles = n.div_ceil(SCAN_TILE);
        let mut tile_counts = stream
            .alloc_zeros::<u32>(tiles)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut total = stream
            .alloc_zeros::<u32>(1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let scan = |blocks: usize| LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (SCAN_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let (n_arg, tiles_arg) = (n as u32, tiles as u32);
        let start = record_event(stream)?;
        let mut scan_seconds = 0.0;
        let mut count = 1u32;
        let mut level = 1u32;
        while count > 0 {
            let mut launch = stream.launch_builder(&level_kernel);
            launch
                .arg(&self.graph.offsets)
                .arg(&self.graph.targets)
                .arg(&mut levels)
                .arg(&mut parents)
                .arg(&active)
                .arg(&count)
                .arg(&level)
                .arg(&mut flags);
            let config = LaunchConfig {
                grid_dim: (count.div_ceil(THESIS_THREADS as u32), 1, 1),
                block_dim: (THESIS_THREADS as u32, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: active_bfs(offsets, targets, levels, parents, active, count, level,
            // flags): `count` active vertices, n levels, parents and flags.
            unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            let scan_start = record_event(stream)?;
            let mut launch = stream.launch_builder(&count_kernel);
            launch.arg(&flags).arg(&n_arg).arg(&mut tile_counts);
            // SAFETY: scan_count(flags, n, tile_counts): one block per tile of SCAN_TILE flags.
            unsafe { launch.launch(scan(tiles)) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            let mut launch = stream.launch_builder(&offsets_kernel);
            launch.arg(&mut tile_counts).arg(&tiles_arg).arg(&mut total);
            // SAFETY: scan_offsets(tile_counts, tiles, total) in one block.
            unsafe { launch.launch(scan(1)) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            let mut launch = stream.launch_builder(&compact_kernel);
            launch
                .arg(&mut flags)
                .arg(&n_arg)
                .arg(&tile_counts)
                .arg(&mut next);
            // SAFETY: scan_compact(flags, n, tile_offsets, list): writes the flagged vertices
            // (at most n) into `next` and clears their flags.
            unsafe { launch.launch(scan(tiles)) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            let scan_end = record_event(stream)?;
            count = stream
                .clone_dtoh(&total)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?[0];
            scan_seconds += seconds_between(&scan_start, &scan_end)?;
            std::mem::swap(&mut active, &mut next);
            level += 1;
        }
        let end = record_event(stream)?;
        let seconds = seconds_between(&start, &end)?;
        let run = GpuBfsRun {
            kernel_seconds: seconds,
            scan_seconds,
            ..GpuBfsRun::default()
        };
        self.finish(&levels, &parents, run)
    }

    fn fast(&self, source: u32) -> Result<GpuBfsRun> {
        let (mut levels, mut parents) = self.start(source)?;
        let stream = self.stream();
        let n = self.graph.vertices;
        let kernel = self.function("fast_bfs")?;
        let s = source as usize;
        // SAFETY: the queues' entries are written by the search before they are read (the
        // source's by the copy below).
        let mut queues =
            unsafe { stream.alloc::<u32>(2 * n) }.map_err(GpuError::driver("cuMemAlloc"))?;
        stream
            .memcpy_htod(&[source], &mut queues.slice_mut(0..1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let (first, last) = self.host_offsets(s)?;
        let degree = last - first;
        // At most arcs / GIANT vertices have GIANT arcs (and the source may be one).
        let giant_room = (self.graph.arcs / GIANT as u64 + 1) as usize;
        let mut giants = stream
            .alloc_zeros::<u32>(2 * giant_room)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut counters = vec![0u64; COUNTER_WORDS];
        counters[SIZE_BASE] = 1;
        counters[EDGES_BASE] = degree;
        if degree >= GIANT as u64 {
            counters[GIANT_BASE] = 1;
            stream
                .memcpy_htod(&[source], &mut giants.slice_mut(0..1))
                .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        }
        let mut counters = stream
            .clone_htod(&counters)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut depth = stream
            .alloc_zeros::<u32>(2)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let per_sm = kernel
            .occupancy_max_active_blocks_per_multiprocessor(FAST_THREADS as u32, 0, None)
            .map_err(GpuError::driver(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            ))?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "fast_bfs does not fit on an SM with its block size".into(),
            ));
        }
        // One block per SM: the grid barrier between levels costs one arrival per block.
        let blocks = self.graph.gpu.info().sm_count;
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (FAST_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let (n_arg, arcs_arg) = (n as u32, self.graph.arcs);
        let start = record_event(stream)?;
        let mut launch = stream.launch_builder(&kernel);
        launch.arg(&self.graph.offsets).arg(&self.graph.targets);
        match &self.reverse {
            Some((offsets, sources)) => launch.arg(offsets).arg(sources),
            None => launch.arg(&self.graph.offsets).arg(&self.graph.targets),
        };
        let giant_room_arg = giant_room as u32;
        launch
            .arg(&mut levels)
            .arg(&mut parents)
            .arg(&mut queues)
            .arg(&mut giants)
            .arg(&giant_room_arg)
            .arg(&mut counters)
            .arg(&n_arg)
            .arg(&arcs_arg)
            .arg(&mut depth);
        // SAFETY: fast_bfs(out offsets, targets, in offsets, sources (the graph's own where it
        // is symmetric), levels, parents, queues (2n), giants (2 giant_room), giant_room,
        // counters (COUNTER_WORDS, the source's set, the barrier's zero), n, arcs, depth (2));
        // a cooperative launch of one block per SM (at least one fits), which its grid
        // barrier needs.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
        let end = record_event(stream)?;
        let seconds = seconds_between(&start, &end)?;
        let result = stream
            .clone_dtoh(&depth)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let run = GpuBfsRun {
            kernel_seconds: seconds,
            bottom_up_levels: result[1],
            ..GpuBfsRun::default()
        };
        self.finish(&levels, &parents, run)
    }

    /// The source's first and last arc offsets, read back from the device's copy.
    fn host_offsets(&self, vertex: usize) -> Result<(u64, u64)> {
        let pair = self
            .stream()
            .clone_dtoh(&self.graph.offsets.slice(vertex..vertex + 2))
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        Ok((pair[0], pair[1]))
    }
}
