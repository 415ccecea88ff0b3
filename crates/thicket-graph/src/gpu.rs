//! The host side of the GPU searches: [`bfs`] (kernels in `kernels/bfs.cu`) and [`sssp`]
//! (`kernels/sssp.cu`), on one opener. [`DeviceGraph::upload`] takes the process's shared
//! device (opened on first use, its modules loaded once) and copies a graph's CSR arrays to
//! it once, after checking that they and a search's arrays fit its free memory; each search
//! then runs from any number of sources on the same copy. [`GpuSsspSearch`] and
//! [`GpuBfsSearch`] are the backends a run's sources go through.

pub(crate) mod bfs;
pub(crate) mod sssp;

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use rayon::prelude::*;
use thicket_core::pipeline::{Answered, Queue, Solver, Want};
use thicket_core::{Error, Result};
use thicket_gpu::{upload_staged, Gpu, GpuError};

use crate::cpu::sssp::{tight_parents, widen};
use crate::graph::GraphView;
use crate::sources::{Found, Sources, Tally};
use crate::strategy::Strategy;
use bfs::{BfsGpu, GpuBfsStrategy, Launched};
use sssp::SsspGpu;

/// A graph's CSR arrays on a GPU.
pub(crate) struct DeviceGraph {
    /// The process's device.
    pub(crate) gpu: Arc<Gpu>,
    pub(crate) vertices: usize,
    pub(crate) arcs: u64,
    pub(crate) offsets: CudaSlice<u64>,
    pub(crate) targets: CudaSlice<u32>,
    /// Bytes of device memory the graph and one search take, as estimated for the check.
    pub(crate) device_bytes: u64,
    /// Seconds the CSR arrays' copy to the device took.
    pub(crate) upload_seconds: f64,
}

impl DeviceGraph {
    /// Uploads `graph` to GPU `ordinal`, which a search will need `device_bytes` of in all
    /// (`with`: what besides the arcs, for the message). A graph that does not fit the free
    /// memory is an [`Error::TooLarge`] with its sizes: a property of the input, which a bench
    /// skips.
    pub(crate) fn upload(
        ordinal: usize,
        graph: GraphView<'_>,
        device_bytes: u64,
        with: &str,
    ) -> Result<DeviceGraph> {
        let gpu = Gpu::shared(ordinal)?;
        let (free, _) = gpu
            .context()
            .mem_get_info()
            .map_err(GpuError::driver("cuMemGetInfo"))?;
        let arcs = graph.arcs();
        if device_bytes > free as u64 {
            return Err(Error::TooLarge(format!(
                "the graph does not fit on GPU {ordinal}: {} vertices and {arcs} arcs need \
                 {:.2} GiB ({:.1} bytes per arc, with {with}), {:.2} GiB are free",
                graph.vertices(),
                device_bytes as f64 / (1u64 << 30) as f64,
                device_bytes as f64 / arcs.max(1) as f64,
                free as f64 / (1u64 << 30) as f64
            )));
        }
        let started = Instant::now();
        let offsets = upload(&gpu, graph.offsets)?;
        let targets = upload(&gpu, graph.targets)?;
        // The copies are queued; the time is theirs once they are done.
        gpu.stream()
            .synchronize()
            .map_err(GpuError::driver("cuStreamSynchronize"))?;
        let upload_seconds = started.elapsed().as_secs_f64();
        Ok(DeviceGraph {
            gpu,
            vertices: graph.vertices(),
            arcs,
            offsets,
            targets,
            device_bytes,
            upload_seconds,
        })
    }

    /// The GPU's name.
    pub(crate) fn name(&self) -> String {
        self.gpu.info().name.clone()
    }
}

/// A copy of `values` on `gpu`, through page-locked buffers that the caller's threads fill
/// while the bus copies (a graph's arrays are gigabytes, often read from a memory-mapped
/// file).
pub(crate) fn upload<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
    gpu: &Gpu,
    values: &[T],
) -> Result<CudaSlice<T>> {
    Ok(upload_staged(gpu.stream(), values)?)
}

/// Shortest paths on the GPU, one source at a time.
pub(crate) struct GpuSsspSearch<'a> {
    gpu: &'a SsspGpu,
    graph: GraphView<'a>,
    delta: u64,
}

impl<'a> GpuSsspSearch<'a> {
    /// Searches on `gpu`, which holds `graph`, with buckets of width `delta`.
    pub(crate) fn new(gpu: &'a SsspGpu, graph: GraphView<'a>, delta: u64) -> GpuSsspSearch<'a> {
        GpuSsspSearch { gpu, graph, delta }
    }
}

impl Solver<Sources<'_>> for GpuSsspSearch<'_> {
    fn answer(&mut self, _: &Sources<'_>, &source: &u32, want: Want) -> Result<Answered<Found>> {
        let run = self.gpu.run(source, self.delta)?;
        // A tree for the distances only where one is kept (as for delta-stepping).
        let parents = if want.keep {
            tight_parents(self.graph, source, &run.distances)
        } else {
            Vec::new()
        };
        Ok(Answered {
            answer: Found {
                distances: run.distances,
                parents,
                rounds: Some(run.rounds),
                relaxed: Some(run.relaxed),
                ..Found::default()
            },
            seconds: run.kernel_seconds,
        })
    }
}

/// BFS on the GPU: each search summed up on the device, and only the answers kept or
/// verified brought back, the host working on one while the next search runs
/// ([`BfsGpu::launch`]).
pub(crate) struct GpuBfsSearch<'a> {
    gpu: &'a mut BfsGpu,
    graph: GraphView<'a>,
    kind: GpuBfsStrategy,
}

impl<'a> GpuBfsSearch<'a> {
    /// `strategy` (a GPU one) on `gpu`, which holds `graph`.
    pub(crate) fn new(
        gpu: &'a mut BfsGpu,
        graph: GraphView<'a>,
        strategy: Strategy,
    ) -> GpuBfsSearch<'a> {
        let kind = match strategy {
            Strategy::Thesis => GpuBfsStrategy::Thesis,
            Strategy::ThesisActive => GpuBfsStrategy::ThesisActive,
            _ => GpuBfsStrategy::Fast,
        };
        GpuBfsSearch { gpu, graph, kind }
    }

    /// Queues the search from `source`, its answer brought back where it is kept or checked.
    fn launch(&mut self, source: u32, want: Want) -> Result<Launched> {
        let degree = self.graph.degree(source);
        self.gpu
            .launch(source, degree, self.kind, want.keep || want.verify)
    }

    /// Collects a search: its summary from the device's, its answer where `want` asks.
    fn collect(&mut self, launched: Launched, want: Want) -> Result<Answered<Found>> {
        let kind = self.kind;
        let run = self.gpu.collect(launched)?;
        let s = run.summary;
        let mut found = Found {
            tally: Some(Tally {
                reached: s.reached,
                max: s.max,
                sum: u128::from(s.sum),
                arcs: s.arcs,
            }),
            bottom_up_levels: (kind == GpuBfsStrategy::Fast).then_some(run.bottom_up_levels),
            scan_seconds: (kind == GpuBfsStrategy::ThesisActive).then_some(run.scan_seconds),
            ..Found::default()
        };
        if let Some((levels, parents)) = run.answer {
            // Owned copies (64-bit distances, a tree) only for the answers kept or checked.
            if want.keep || want.verify {
                found.parents = Vec::with_capacity(parents.len());
                found.parents.par_extend(parents.par_iter().copied());
            }
            if want.keep {
                found.distances = widen(levels);
            }
            if want.verify {
                found.levels = Some(levels.to_vec());
            }
        }
        Ok(Answered {
            answer: found,
            seconds: run.kernel_seconds,
        })
    }
}

impl Solver<Sources<'_>> for GpuBfsSearch<'_> {
    fn answer(&mut self, _: &Sources<'_>, &source: &u32, want: Want) -> Result<Answered<Found>> {
        let launched = self.launch(source, want)?;
        self.collect(launched, want)
    }

    /// Search i is queued before search i - 1 is collected.
    fn answer_all(&mut self, queue: &mut Queue<'_, Sources<'_>>) -> Result<()> {
        let mut pending = None;
        while let Some((&source, want)) = queue.next() {
            let launched = self.launch(source, want)?;
            if let Some((previous, want)) = pending.replace((launched, want)) {
                queue.done(self.collect(previous, want)?)?;
            }
        }
        match pending {
            Some((last, want)) => queue.done(self.collect(last, want)?),
            None => Ok(()),
        }
    }
}
