//! BFS on the GPU (kernels in `kernels/bfs.cu`): the thesis's kernel (Solomon 2012, ch. 4,
//! Algorithm 2) and its active-vertices variant, one launch per level with the host reading a
//! flag or a count after each; and thicket's direction-optimizing search, one cooperative
//! launch for every level.
//!
//! A graph is uploaded once ([`BfsGpu::open`]) and searched from any number of sources, every
//! search on the device: [`BfsGpu::launch`] queues a search and the reduction of its levels to
//! four words (`summarise_levels`: reached, summed, deepest, arcs traversed), and only where
//! the caller asks for the answer (written out, verified) the copy of its levels and parents
//! to page-locked memory on a second stream. Searches alternate between two slots of device
//! and page-locked arrays, so one search's answer crosses the bus, and the host works on it
//! after [`BfsGpu::collect`], while the next search runs.

mod levels;

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{
    CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use thicket_core::{Error, Result};
use thicket_gpu::{mark, page_locked, seconds_between, GpuError};

use super::{upload, DeviceGraph};
use crate::graph::GraphView;
use crate::kernels::BFS;
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

/// A search's summary, reduced on the device (`summarise_levels`): what a source's line of
/// the report needs, without its levels coming back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LevelSummary {
    /// Vertices reached, the source included.
    pub(crate) reached: u64,
    /// The sum of their levels.
    pub(crate) sum: u64,
    /// The largest level.
    pub(crate) max: u64,
    /// Arcs out of the reached vertices.
    pub(crate) arcs: u64,
}

/// One GPU search, collected.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GpuBfsRun<'a> {
    /// Each vertex's level ([`UNREACHED`] where none) and parent ([`UNREACHED`] for the
    /// source and unreached vertices), in page-locked memory until the slot's next search,
    /// where the answer was asked for.
    pub(crate) answer: Option<(&'a [u32], &'a [u32])>,
    /// The levels' summary, from the device.
    pub(crate) summary: LevelSummary,
    /// Seconds from the search's first launch to the end of its last (CUDA events), the
    /// host's reads of flags and counts between levels included.
    pub(crate) kernel_seconds: f64,
    /// Of those, the active-vertices variant's scan and compaction.
    pub(crate) scan_seconds: f64,
    /// Levels searched bottom-up (thicket's search).
    pub(crate) bottom_up_levels: u32,
}

/// A search launched and not yet collected: which slot holds it and its events.
pub(crate) struct Launched {
    slot: usize,
    start: CudaEvent,
    end: CudaEvent,
    /// After the summary's and the depth's copies to the slot's page-locked words.
    summarised: CudaEvent,
    scan_seconds: f64,
    answer: bool,
}

/// What one search writes on the device, and the page-locked host memory its results come
/// back to. Searches alternate between two slots, so that one's answer crosses the bus (on
/// the copy stream) while the next runs.
struct Slot {
    levels: CudaSlice<u32>,
    parents: CudaSlice<u32>,
    /// The summary's four words (`summarise_levels`).
    totals: CudaSlice<u64>,
    /// fast_bfs's depth and bottom-up levels.
    depth: CudaSlice<u32>,
    host_totals: PinnedHostSlice<u64>,
    host_depth: PinnedHostSlice<u32>,
    /// Levels and parents, allocated at the slot's first search that asks for its answer.
    host_answer: Option<(PinnedHostSlice<u32>, PinnedHostSlice<u32>)>,
    /// After the last copy of the answer (on the copy stream): the slot's next search waits
    /// for it before it writes the levels and parents again, the host before it reads them.
    copied: Option<CudaEvent>,
}

/// One GPU with the BFS kernels loaded and a graph uploaded.
pub(crate) struct BfsGpu {
    graph: DeviceGraph,
    module: Arc<CudaModule>,
    /// The reverse graph, for bottom-up levels, where it is not the graph itself.
    reverse: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    /// The searches' slots (`None` while a search queues its work).
    slots: Vec<Option<Slot>>,
    /// The slot the next search takes.
    next_slot: usize,
    /// The stream answers come back on, made at the first answer asked for.
    copy: Option<Arc<CudaStream>>,
    /// Seconds the graph's (and its reverse's) copy to the device took.
    upload_seconds: f64,
}

/// A search's span on the device: events before its first launch and after its last, and
/// of it the active-vertices variant's scans, in seconds.
type Timed = (CudaEvent, CudaEvent, f64);

/// Searches that alternate between slots.
const SLOTS: usize = 2;

/// Threads per block of `summarise_levels` (whole warps).
const SUMMARY_THREADS: usize = 256;

impl BfsGpu {
    /// Loads the kernels on GPU `ordinal` (the process's shared device) and uploads `graph`
    /// and `reverse`, the in-neighbours bottom-up levels read (`None`: the graph is
    /// symmetric, its own arcs serve, not uploaded twice).
    pub(crate) fn open(
        ordinal: usize,
        graph: GraphView<'_>,
        reverse: Option<GraphView<'_>>,
    ) -> Result<BfsGpu> {
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
            // two slots' levels and parents, two queues or flags and a list
            + 4 * 6 * (vertices + 1);
        let uploaded = DeviceGraph::upload(
            ordinal,
            graph,
            device_bytes,
            "two searches' levels and parents, queues",
        )?;
        let gpu = &uploaded.gpu;
        let module = gpu.load_module(&BFS.source, &BFS.options())?;
        let started = Instant::now();
        let reverse = match reverse {
            Some(r) => Some((upload(gpu, r.offsets)?, upload(gpu, r.targets)?)),
            None => None,
        };
        gpu.stream()
            .synchronize()
            .map_err(GpuError::driver("cuStreamSynchronize"))?;
        let upload_seconds = uploaded.upload_seconds + started.elapsed().as_secs_f64();
        Ok(BfsGpu {
            graph: uploaded,
            module,
            reverse,
            slots: Vec::new(),
            next_slot: 0,
            copy: None,
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

    /// Seconds the graph's (and its reverse's) copy to the device took.
    pub(crate) fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    fn function(&self, name: &str) -> Result<CudaFunction> {
        Ok(self.graph.gpu.load_function(&self.module, name)?)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.graph.gpu.stream()
    }

    /// Slot `index`, taken out for a search (made the first time one takes it).
    fn take_slot(&mut self, index: usize) -> Result<Slot> {
        if let Some(slot) = self.slots.get_mut(index).and_then(Option::take) {
            return Ok(slot);
        }
        if self.slots.len() <= index {
            self.slots.resize_with(index + 1, || None);
        }
        let stream = self.stream();
        let n = self.graph.vertices.max(1);
        // SAFETY: levels and parents are filled by `start` before every search.
        let alloc_u32 = |count: usize| unsafe { stream.alloc::<u32>(count) };
        Ok(Slot {
            levels: alloc_u32(n).map_err(GpuError::driver("cuMemAlloc"))?,
            parents: alloc_u32(n).map_err(GpuError::driver("cuMemAlloc"))?,
            totals: stream
                .alloc_zeros::<u64>(4)
                .map_err(GpuError::driver("cuMemAlloc"))?,
            depth: stream
                .alloc_zeros::<u32>(2)
                .map_err(GpuError::driver("cuMemAlloc"))?,
            host_totals: page_locked(stream, 4)?,
            host_depth: page_locked(stream, 2)?,
            host_answer: None,
            copied: None,
        })
    }

    /// Fills `values` with `value`.
    fn fill(&self, values: &mut CudaSlice<u32>, value: u32) -> Result<()> {
        let fill = self.function("fill_u32")?;
        let count = values.len();
        let mut launch = self.stream().launch_builder(&fill);
        let count_arg = count as u64;
        launch.arg(values).arg(&count_arg).arg(&value);
        let config = LaunchConfig {
            grid_dim: ((count.div_ceil(1024)).clamp(1, 4096) as u32, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: fill_u32(values, count, value) writes values[0..count) only.
        unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        Ok(())
    }

    /// `slot`'s levels and parents with only the source set (level 0).
    fn start(&self, slot: &mut Slot, source: u32) -> Result<()> {
        if source as usize >= self.graph.vertices {
            return Err(Error::InvalidInput(format!(
                "the source {source} is not a vertex (0..{})",
                self.graph.vertices
            )));
        }
        if let Some(copied) = slot.copied.take() {
            self.stream()
                .wait(&copied)
                .map_err(GpuError::driver("cuStreamWaitEvent"))?;
        }
        self.fill(&mut slot.levels, UNREACHED)?;
        self.fill(&mut slot.parents, UNREACHED)?;
        let s = source as usize;
        self.stream()
            .memcpy_htod(&[0u32], &mut slot.levels.slice_mut(s..s + 1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        Ok(())
    }

    /// Starts a BFS from `source` (0-based, with `degree` arcs out) with `strategy`: the
    /// search, the summary of its levels and, where `answer`, the copy of its levels and
    /// parents to page-locked memory on a second stream, all queued; [`BfsGpu::collect`]
    /// waits for them. The thesis's strategies return when their last level is done (the
    /// host reads a flag or a count after each); thicket's returns at once, so the caller can
    /// work on the previous search's answer while this one runs.
    pub(crate) fn launch(
        &mut self,
        source: u32,
        degree: u64,
        strategy: GpuBfsStrategy,
        answer: bool,
    ) -> Result<Launched> {
        let index = self.next_slot;
        self.next_slot = (self.next_slot + 1) % SLOTS;
        let copy = if answer {
            Some(self.copy_stream()?)
        } else {
            None
        };
        let mut slot = self.take_slot(index)?;
        let queued = self.queue(&mut slot, source, degree, strategy, copy.as_ref());
        self.slots[index] = Some(slot);
        let (start, end, summarised, scan_seconds) = queued?;
        Ok(Launched {
            slot: index,
            start,
            end,
            summarised,
            scan_seconds,
            answer,
        })
    }

    /// [`BfsGpu::launch`]'s work on `slot`: the search between two events, its summary and
    /// the answer's copy on `copy`, where given.
    fn queue(
        &self,
        slot: &mut Slot,
        source: u32,
        degree: u64,
        strategy: GpuBfsStrategy,
        copy: Option<&Arc<CudaStream>>,
    ) -> Result<(CudaEvent, CudaEvent, CudaEvent, f64)> {
        self.start(slot, source)?;
        let (start, end, scan_seconds) = match strategy {
            GpuBfsStrategy::Thesis => self.thesis(slot)?,
            GpuBfsStrategy::ThesisActive => self.thesis_active(slot, source)?,
            GpuBfsStrategy::Fast => self.fast(slot, source, degree)?,
        };
        self.summarise(slot)?;
        let summarised = mark(self.stream())?;
        if let Some(copy) = copy {
            copy.wait(&summarised)
                .map_err(GpuError::driver("cuStreamWaitEvent"))?;
            let n = self.graph.vertices;
            if slot.host_answer.is_none() {
                slot.host_answer = Some((page_locked(copy, n)?, page_locked(copy, n)?));
            }
            let (levels, parents) = slot.host_answer.as_mut().expect("made above");
            copy.memcpy_dtoh(&slot.levels, levels)
                .map_err(GpuError::driver("cuMemcpyDtoHAsync"))?;
            copy.memcpy_dtoh(&slot.parents, parents)
                .map_err(GpuError::driver("cuMemcpyDtoHAsync"))?;
            slot.copied = Some(mark(copy)?);
        }
        Ok((start, end, summarised, scan_seconds))
    }

    /// The stream answers come back on, made at the first call: the copy of one search's
    /// answer waits for that search and its summary (an event), and the slot's next search
    /// waits for the copy (the slot's `copied`), while the other slot's search runs beside
    /// it.
    fn copy_stream(&mut self) -> Result<Arc<CudaStream>> {
        if self.copy.is_none() {
            let copy = self
                .graph
                .gpu
                .context()
                .new_stream()
                .map_err(GpuError::driver("cuStreamCreate"))?;
            self.copy = Some(copy);
        }
        Ok(self.copy.clone().expect("made above"))
    }

    /// Queues the summary of `slot`'s levels and its copy (with fast_bfs's depth) to the
    /// slot's page-locked words.
    fn summarise(&self, slot: &mut Slot) -> Result<()> {
        let stream = self.stream();
        let kernel = self.function("summarise_levels")?;
        let blocks = (self.graph.vertices.div_ceil(SUMMARY_THREADS) as u32)
            .clamp(1, 8 * self.graph.gpu.info().sm_count.max(1));
        let n = self.graph.vertices as u32;
        stream
            .memset_zeros(&mut slot.totals)
            .map_err(GpuError::driver("cuMemsetD8"))?;
        let mut launch = stream.launch_builder(&kernel);
        launch
            .arg(&slot.levels)
            .arg(&self.graph.offsets)
            .arg(&n)
            .arg(&mut slot.totals);
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (SUMMARY_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: summarise_levels(levels (n), offsets (n + 1), n, totals (4, zero)), with
        // whole warps (SUMMARY_THREADS is a multiple of 32) for its shuffles.
        unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        stream
            .memcpy_dtoh(&slot.totals, &mut slot.host_totals)
            .map_err(GpuError::driver("cuMemcpyDtoHAsync"))?;
        stream
            .memcpy_dtoh(&slot.depth, &mut slot.host_depth)
            .map_err(GpuError::driver("cuMemcpyDtoHAsync"))?;
        Ok(())
    }

    /// Waits for `launched` and reads what came back: its summary, its times and, where
    /// asked, its levels and parents (valid until the slot's next search).
    pub(crate) fn collect(&mut self, launched: Launched) -> Result<GpuBfsRun<'_>> {
        let kernel_seconds = seconds_between(&launched.start, &launched.end)?;
        let n = self.graph.vertices;
        let slot = self.slots[launched.slot]
            .as_ref()
            .expect("a launched search's slot is back");
        let mut done = vec![&launched.summarised];
        if launched.answer {
            done.extend(&slot.copied);
        }
        for event in done {
            event
                .synchronize()
                .map_err(GpuError::driver("cuEventSynchronize"))?;
        }
        let words = slot
            .host_totals
            .as_slice()
            .map_err(GpuError::driver("cuEventSynchronize"))?;
        let summary = LevelSummary {
            reached: words[0],
            sum: words[1],
            max: words[2],
            arcs: words[3],
        };
        let bottom_up_levels = slot
            .host_depth
            .as_slice()
            .map_err(GpuError::driver("cuEventSynchronize"))?[1];
        let answer = match (&slot.host_answer, launched.answer) {
            (Some((levels, parents)), true) => Some((
                &levels
                    .as_slice()
                    .map_err(GpuError::driver("cuEventSynchronize"))?[..n],
                &parents
                    .as_slice()
                    .map_err(GpuError::driver("cuEventSynchronize"))?[..n],
            )),
            _ => None,
        };
        Ok(GpuBfsRun {
            answer,
            summary,
            kernel_seconds,
            scan_seconds: launched.scan_seconds,
            bottom_up_levels,
        })
    }
}
