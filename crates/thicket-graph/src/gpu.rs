//! The host side of the GPU searches: [`bfs`] (kernels in `kernels/bfs.cu`) and [`sssp`]
//! (`kernels/sssp.cu`), on one opener. [`DeviceGraph::upload`] takes the process's shared
//! device (opened on first use, its modules loaded once) and copies a graph's CSR arrays to
//! it once, after checking that they and a search's arrays fit its free memory; each search
//! then runs from any number of sources on the same copy.

pub(crate) mod bfs;
pub(crate) mod sssp;

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use thicket_core::{Error, Result};
use thicket_gpu::{upload_staged, Gpu, GpuError};

use crate::graph::GraphView;

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
