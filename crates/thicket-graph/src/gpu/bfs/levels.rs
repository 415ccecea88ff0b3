//! The searches [`BfsGpu`] launches, one per strategy: the thesis's kernel and its
//! active-vertices variant (one launch per level, the host reading a flag or a count after
//! each) and thicket's direction-optimizing search (one cooperative launch).

use cudarc::driver::{LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{BfsGpu, Slot, Timed};
use crate::kernels::{
    COUNTER_WORDS, EDGES_BASE, FAST_THREADS, GIANT, GIANT_BASE, SCAN_THREADS, SCAN_TILE, SIZE_BASE,
    THESIS_THREADS,
};

impl BfsGpu {
    /// The thesis's kernel, one launch per level, until a level labels nothing.
    pub(super) fn thesis(&self, slot: &mut Slot) -> Result<Timed> {
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
                .arg(&mut slot.levels)
                .arg(&mut slot.parents)
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
        Ok((start, record_event(stream)?, 0.0))
    }

    /// The thesis's active-vertices variant: the seconds of its scans and compactions.
    pub(super) fn thesis_active(&self, slot: &mut Slot, source: u32) -> Result<Timed> {
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
                .arg(&mut slot.levels)
                .arg(&mut slot.parents)
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
        Ok((start, record_event(stream)?, scan_seconds))
    }

    /// thicket's search in one cooperative launch (its depth and bottom-up levels left in
    /// the slot's `depth`).
    pub(super) fn fast(&self, slot: &mut Slot, source: u32, degree: u64) -> Result<Timed> {
        let stream = self.stream();
        let n = self.graph.vertices;
        let kernel = self.function("fast_bfs")?;
        // SAFETY: the queues' entries are written by the search before they are read (the
        // source's by the copy below).
        let mut queues =
            unsafe { stream.alloc::<u32>(2 * n) }.map_err(GpuError::driver("cuMemAlloc"))?;
        stream
            .memcpy_htod(&[source], &mut queues.slice_mut(0..1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
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
        stream
            .memset_zeros(&mut slot.depth)
            .map_err(GpuError::driver("cuMemsetD8"))?;
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
            .arg(&mut slot.levels)
            .arg(&mut slot.parents)
            .arg(&mut queues)
            .arg(&mut giants)
            .arg(&giant_room_arg)
            .arg(&mut counters)
            .arg(&n_arg)
            .arg(&arcs_arg)
            .arg(&mut slot.depth);
        // SAFETY: fast_bfs(out offsets, targets, in offsets, sources (the graph's own where it
        // is symmetric), levels, parents, queues (2n), giants (2 giant_room), giant_room,
        // counters (COUNTER_WORDS, the source's set, the barrier's zero), n, arcs, depth (2));
        // a cooperative launch of one block per SM (at least one fits), which its grid
        // barrier needs.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
        Ok((start, record_event(stream)?, 0.0))
    }
}
