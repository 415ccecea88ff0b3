//! The GPU lattices: the thesis's kernel (`kernels/thesis.cu`), one launch per layer and one
//! thread per node in Hull's C form, with the CPU tail of its hybrid ([`thesis`]); and
//! thicket's tile kernel (`kernels/tiles.cu`), many layers per launch with the nodes in
//! registers, for one long lattice in overlapping tiles or a book with one block per option
//! ([`tiles`]), and the solve pipeline's solver of a book in one such launch ([`books`]).
//!
//! A process opens each device once ([`LatticeGpu::shared`]): the context, the kernels loaded
//! so far and the buffers live until the process ends, so that a call after the first pays
//! for its copies and launches only. Each kernel is compiled on its own, when a call first
//! needs it (`one_at_a_time` in `kernels.rs`; cached on disk like any module): a first call
//! compiles the three or so kernels it runs, not the module's thirty.

pub(crate) mod books;
mod buffers;
mod thesis;
mod tiles;

use std::collections::HashMap;
use std::ops::{Add, Mul, Sub};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cudarc::driver::{CudaFunction, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};
use thicket_core::Result;
use thicket_gpu::{Gpu, GpuError, PerDevice};

use crate::kernels::LATTICE;
use buffers::{Layers, Records, Workspace};

/// One GPU with the lattice kernels loaded, shared by every call of the process.
pub(crate) struct LatticeGpu {
    gpu: Arc<Gpu>,
    /// The kernels looked up so far, by name: a lookup compiles (or finds in the cache) and
    /// loads a kernel onto the device, once.
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// The buffers kept between calls. A call holds them from its first copy to its last, so
    /// that concurrent callers take turns on the device's one stream.
    workspace: Mutex<Workspace>,
}

/// The devices this process has opened for the lattices, by ordinal.
static OPENED: PerDevice<LatticeGpu> = PerDevice::new();

/// How many times this process has opened a device for the lattices (the tests check that a
/// second price does not).
#[cfg(test)]
pub(crate) static OPENS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A GPU answer and how long the device worked on it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GpuPriced<T> {
    /// The answer.
    pub(crate) priced: T,
    /// Seconds from the first launch to the end of the last (CUDA events), plus the CPU tail
    /// of the hybrid.
    pub(crate) kernel_seconds: f64,
    /// Seconds from the upload of the options to the download of the values (CUDA events):
    /// the span NVIDIA's binomialOptions sample times; the hybrid's CPU tail included.
    pub(crate) span_seconds: f64,
    /// Kernel launches.
    pub(crate) launches: usize,
}

impl<T> GpuPriced<T> {
    /// The same run with its answer turned by `f`.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> GpuPriced<U> {
        GpuPriced {
            priced: f(self.priced),
            kernel_seconds: self.kernel_seconds,
            span_seconds: self.span_seconds,
            launches: self.launches,
        }
    }
}

/// The element types the kernels are compiled for.
trait DeviceReal:
    DeviceRepr
    + ValidAsZeroBits
    + Copy
    + Send
    + Sync
    + Into<f64>
    + Unpin
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
{
    const SUFFIX: &'static str;
    fn of(x: f64) -> Self;
    /// The workspace's records and its layers in this type.
    fn split(workspace: &mut Workspace) -> (&mut Records, &mut Layers<Self>);
}

impl DeviceReal for f32 {
    const SUFFIX: &'static str = "f32";
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn split(workspace: &mut Workspace) -> (&mut Records, &mut Layers<f32>) {
        (&mut workspace.records, &mut workspace.f32)
    }
}

impl DeviceReal for f64 {
    const SUFFIX: &'static str = "f64";
    fn of(x: f64) -> f64 {
        x
    }
    fn split(workspace: &mut Workspace) -> (&mut Records, &mut Layers<f64>) {
        (&mut workspace.records, &mut workspace.f64)
    }
}

impl LatticeGpu {
    /// GPU `ordinal` with the kernels loaded: opened on the process's first call, the same
    /// one on every later call. A failed open is not remembered.
    pub(crate) fn shared(ordinal: usize) -> Result<Arc<LatticeGpu>> {
        OPENED.get_or_open(ordinal, LatticeGpu::open)
    }

    fn open(ordinal: usize) -> Result<LatticeGpu> {
        let gpu = Gpu::shared(ordinal)?;
        #[cfg(test)]
        OPENS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(LatticeGpu {
            gpu,
            functions: Mutex::new(HashMap::new()),
            workspace: Mutex::new(Workspace::default()),
        })
    }

    /// The GPU's name.
    pub(crate) fn name(&self) -> String {
        self.gpu.info().name.clone()
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.gpu.stream()
    }

    /// The kernel `name`, looked up and loaded on its first use; `prepare` runs on it then.
    fn function(
        &self,
        name: &str,
        prepare: impl FnOnce(&CudaFunction) -> Result<()>,
    ) -> Result<CudaFunction> {
        let mut functions = self
            .functions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(function) = functions.get(name) {
            return Ok(function.clone());
        }
        let module = LATTICE.load_kernel(&self.gpu, name)?;
        let function = self.gpu.load_function(&module, name)?;
        prepare(&function)?;
        functions.insert(name.to_owned(), function.clone());
        Ok(function)
    }

    /// Compiles the kernels `names` a call is about to look up, at once on as many threads
    /// (a first call's compiles take the longest of them, not their sum); those already
    /// loaded, or cached on disk, cost nothing.
    fn prepare(&self, names: &[String]) -> Result<()> {
        let missing: Vec<&String> = {
            let functions = self
                .functions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            names
                .iter()
                .filter(|n| !functions.contains_key(*n))
                .collect()
        };
        if missing.len() < 2 {
            return Ok(());
        }
        std::thread::scope(|scope| {
            let compiles: Vec<_> = missing
                .iter()
                .map(|name| scope.spawn(|| LATTICE.load_kernel(&self.gpu, name).map(drop)))
                .collect();
            compiles
                .into_iter()
                .try_for_each(|compile| compile.join().expect("a compile thread panicked"))
        })?;
        Ok(())
    }

    /// The buffers, for one call. A call that panicked while it held them left nothing that a
    /// later call relies on (each writes what it reads), so a poisoned lock is taken as is.
    fn workspace(&self) -> MutexGuard<'_, Workspace> {
        self.workspace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Downloads device values as `f64`.
fn download<T: DeviceReal>(
    stream: &Arc<CudaStream>,
    values: &impl DevicePtr<T>,
) -> Result<Vec<f64>> {
    Ok(stream
        .clone_dtoh(values)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?
        .into_iter()
        .map(Into::into)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_opened_once_however_often_it_is_asked_for() {
        let Ok(first) = LatticeGpu::shared(0) else {
            return;
        };
        let second = LatticeGpu::shared(0).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
    }
}
