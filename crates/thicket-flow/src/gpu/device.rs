//! The GPU with flow's kernels, opened once per process: [`FlowDevice::shared`] takes the
//! device from [`Gpu::shared`] and loads each kernel module's functions the first time a
//! strategy needs them, so every later solve in the process, whichever network, pays neither
//! the context nor the modules again.
//!
//! The structs of loaded functions, one per kernel module, are here together, each filled
//! field by field from its module.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaFunction;
use thicket_core::Result;
use thicket_gpu::{Gpu, KernelModule};

use super::GpuStrategy;
use crate::kernels::{MPM, MPM_FUSED, PUSH_RELABEL};

/// One GPU and the kernels loaded on it so far.
pub(crate) struct FlowDevice {
    gpu: Arc<Gpu>,
    mpm: OnceLock<MpmKernels>,
    fused: OnceLock<FusedKernels>,
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
        once(&self.mpm, || MpmKernels::load(&self.gpu, &MPM))
    }

    /// The one-launch MPM (`mpm-active`).
    pub fn fused(&self) -> Result<&FusedKernels> {
        once(&self.fused, || FusedKernels::load(&self.gpu, &MPM_FUSED))
    }

    /// The push-relabel kernels.
    pub fn push_relabel(&self) -> Result<&PushRelabelKernels> {
        once(&self.push_relabel, || {
            PushRelabelKernels::load(&self.gpu, &PUSH_RELABEL)
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

/// The functions of `kernels/mpm.cu`.
pub(crate) struct MpmKernels {
    pub fill_levels: CudaFunction,
    pub bfs_level: CudaFunction,
    pub mark_alive: CudaFunction,
    pub potentials: CudaFunction,
    pub prune: CudaFunction,
    pub prune_list: CudaFunction,
    pub argmin_reset: CudaFunction,
    pub argmin_value: CudaFunction,
    pub argmin_vertex: CudaFunction,
    pub argmin_finish: CudaFunction,
    pub push_pull: CudaFunction,
    pub push_pull_list: CudaFunction,
    pub scan_count: CudaFunction,
    pub scan_offsets: CudaFunction,
    pub scan_compact: CudaFunction,
}

impl MpmKernels {
    fn load(gpu: &Gpu, module: &KernelModule) -> Result<MpmKernels> {
        let loaded = gpu.load_module(&module.source, &module.options())?;
        let f = |name: &str| gpu.load_function(&loaded, name);
        Ok(MpmKernels {
            fill_levels: f("fill_levels")?,
            bfs_level: f("bfs_level")?,
            mark_alive: f("mark_alive")?,
            potentials: f("potentials")?,
            prune: f("prune")?,
            prune_list: f("prune_list")?,
            argmin_reset: f("argmin_reset")?,
            argmin_value: f("argmin_value")?,
            argmin_vertex: f("argmin_vertex")?,
            argmin_finish: f("argmin_finish")?,
            push_pull: f("push_pull")?,
            push_pull_list: f("push_pull_list")?,
            scan_count: f("scan_count")?,
            scan_offsets: f("scan_offsets")?,
            scan_compact: f("scan_compact")?,
        })
    }
}

/// The function of `kernels/mpm_fused.cu`.
pub(crate) struct FusedKernels {
    pub mpm_fused: CudaFunction,
}

impl FusedKernels {
    fn load(gpu: &Gpu, module: &KernelModule) -> Result<FusedKernels> {
        let loaded = gpu.load_module(&module.source, &module.options())?;
        let f = |name: &str| gpu.load_function(&loaded, name);
        Ok(FusedKernels {
            mpm_fused: f("mpm_fused")?,
        })
    }
}

/// The functions of `kernels/push_relabel.cu`.
pub(crate) struct PushRelabelKernels {
    pub pr_round: CudaFunction,
    pub gr_init: CudaFunction,
    pub gr_level: CudaFunction,
    pub pr_active: CudaFunction,
}

impl PushRelabelKernels {
    fn load(gpu: &Gpu, module: &KernelModule) -> Result<PushRelabelKernels> {
        let loaded = gpu.load_module(&module.source, &module.options())?;
        let f = |name: &str| gpu.load_function(&loaded, name);
        Ok(PushRelabelKernels {
            pr_round: f("pr_round")?,
            gr_init: f("gr_init")?,
            gr_level: f("gr_level")?,
            pr_active: f("pr_active")?,
        })
    }
}
