//! The GPU with flow's kernels, opened once per process: [`FlowDevice::shared`] takes the
//! device from [`Gpu::shared`] and loads each kernel module's functions the first time a
//! strategy needs them, so every later solve in the process, whichever network, pays neither
//! the context nor the modules again.
//!
//! The structs of loaded functions, one per kernel module, come from the one kernel list in
//! `kernels.rs`.

use std::sync::{Arc, OnceLock};

use thicket_core::Result;
use thicket_gpu::{Gpu, PerDevice};

use super::not_gpu;
use crate::kernels::{MpmFusedKernels, MpmKernels, PushRelabelKernels};
use crate::strategy::Strategy;

/// One GPU and the kernels loaded on it so far.
pub(crate) struct FlowDevice {
    gpu: Arc<Gpu>,
    mpm: OnceLock<MpmKernels>,
    fused: OnceLock<MpmFusedKernels>,
    push_relabel: OnceLock<PushRelabelKernels>,
}

/// The devices this process has opened for max flow, by ordinal.
static DEVICES: PerDevice<FlowDevice> = PerDevice::new();

impl FlowDevice {
    /// GPU `ordinal`, opened on the process's first call and the same for every later one.
    pub fn shared(ordinal: usize) -> Result<Arc<FlowDevice>> {
        DEVICES.get_or_open(ordinal, |ordinal| {
            Ok(FlowDevice {
                gpu: Gpu::shared(ordinal)?,
                mpm: OnceLock::new(),
                fused: OnceLock::new(),
                push_relabel: OnceLock::new(),
            })
        })
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
    pub fn prepare(&self, strategy: Strategy) -> Result<bool> {
        let loaded = match strategy {
            Strategy::Mpm | Strategy::MpmScan => self.mpm.get().is_some(),
            Strategy::MpmActive => self.fused.get().is_some(),
            Strategy::PushRelabelGpu => self.push_relabel.get().is_some(),
            Strategy::MpmSerial | Strategy::PushRelabel => return Err(not_gpu(strategy)),
        };
        match strategy {
            Strategy::Mpm | Strategy::MpmScan => self.mpm().map(|_| ())?,
            Strategy::MpmActive => self.fused().map(|_| ())?,
            _ => self.push_relabel().map(|_| ())?,
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
