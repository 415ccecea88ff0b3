//! The GPU with flow's kernels, opened once per process: [`FlowDevice::shared`] takes the
//! device from [`Gpu::shared`] and loads each kernel module's functions the first time a
//! strategy needs them, so every later solve in the process, whichever network, pays neither
//! the context nor the modules again.
//!
//! The structs of loaded functions, one per kernel module, come from the one kernel list in
//! `kernels.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use thicket_core::Result;
use thicket_gpu::Gpu;

use super::GpuStrategy;
use crate::kernels::{MpmFusedKernels, MpmKernels, PushRelabelKernels};

/// One GPU and the kernels loaded on it so far.
pub(crate) struct FlowDevice {
    gpu: Arc<Gpu>,
    mpm: OnceLock<MpmKernels>,
    fused: OnceLock<MpmFusedKernels>,
    push_relabel: OnceLock<PushRelabelKernels>,
}

/// The devices this process has opened for max flow, by ordinal.
static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<FlowDevice>>>> = OnceLock::new();

impl FlowDevice {
    /// GPU `ordinal`, opened on the process's first call and the same for every later one.
    pub fn shared(ordinal: usize) -> Result<Arc<FlowDevice>> {
        let devices = DEVICES.get_or_init(|| Mutex::new(HashMap::new()));
        // The map is only inserted into, so a panic elsewhere while it was held left it whole.
        let mut devices = devices.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(device) = devices.get(&ordinal) {
            return Ok(Arc::clone(device));
        }
        let device = Arc::new(FlowDevice {
            gpu: Gpu::shared(ordinal)?,
            mpm: OnceLock::new(),
            fused: OnceLock::new(),
            push_relabel: OnceLock::new(),
        });
        devices.insert(ordinal, Arc::clone(&device));
        Ok(device)
    }

    /// The GPU.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The GPU's name.
    pub fn name(&self) -> String {
        self.gpu.info().name.clone()
    }

    /// Loads (compiling or taking from the kernel cache) the kernels `strategy` runs, where
    /// this process has not yet; whether this call loaded them.
    pub fn prepare(&self, strategy: GpuStrategy) -> Result<bool> {
        let loaded = match strategy {
            GpuStrategy::Mpm | GpuStrategy::MpmScan => self.mpm.get().is_some(),
            GpuStrategy::MpmActive => self.fused.get().is_some(),
            GpuStrategy::PushRelabel => self.push_relabel.get().is_some(),
        };
        match strategy {
            GpuStrategy::Mpm | GpuStrategy::MpmScan => self.mpm().map(|_| ())?,
            GpuStrategy::MpmActive => self.fused().map(|_| ())?,
            GpuStrategy::PushRelabel => self.push_relabel().map(|_| ())?,
        }
        Ok(!loaded)
    }

    /// The MPM kernels (`mpm`, `mpm-scan`).
    pub fn mpm(&self) -> Result<&MpmKernels> {
        once(&self.mpm, || Ok(MpmKernels::load(&self.gpu)?))
    }

    /// The one-launch MPM (`mpm-active`).
    pub fn fused(&self) -> Result<&MpmFusedKernels> {
        once(&self.fused, || Ok(MpmFusedKernels::load(&self.gpu)?))
    }

    /// The push-relabel kernels.
    pub fn push_relabel(&self) -> Result<&PushRelabelKernels> {
        once(&self.push_relabel, || {
            Ok(PushRelabelKernels::load(&self.gpu)?)
        })
    }
}

/// The value of `cell`, made by `load` the first time (two threads that race may both load:
/// the module is the same, and one result is kept).
fn once<T>(cell: &OnceLock<T>, load: impl FnOnce() -> Result<T>) -> Result<&T> {
    if let Some(value) = cell.get() {
        return Ok(value);
    }
    let value = load()?;
    Ok(cell.get_or_init(|| value))
}
