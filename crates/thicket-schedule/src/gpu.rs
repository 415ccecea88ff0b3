//! The host side of the crate's kernels, one module beside each kernel file: [`mspso`] runs
//! the thesis's GPU swarms (`kernels/mspso.cu`), [`ils`] thicket's default search
//! (`kernels/ils.cu`), and [`lp_ils`] runs the default on the GPU with CPU chains beside it. Both
//! kernel modules take their device from [`Gpu::shared`], opened once per process,
//! and their kernels from [`functions`], looked up once per device and module, so that a
//! program that schedules many matrices pays the device's set-up once.

pub(crate) mod ils;
pub(crate) mod lp_ils;
pub(crate) mod mspso;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaFunction;
use thicket_core::Result;
use thicket_gpu::{Gpu, KernelModule};

/// The kernels each (device, module, names) asked for so far.
type Loaded = HashMap<(usize, &'static str, Vec<&'static str>), Arc<[CudaFunction]>>;

static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();

/// The kernels `names` of `module` on `gpu`: compiled (or taken from the kernel cache),
/// loaded and looked up on the first call for this device, then kept for the process, as
/// the shared device keeps its modules.
pub(crate) fn functions<const N: usize>(
    gpu: &Gpu,
    module: &KernelModule,
    names: [&'static str; N],
) -> Result<[CudaFunction; N]> {
    let key = (gpu.info().ordinal, module.source.name, names.to_vec());
    let loaded = LOADED.get_or_init(|| Mutex::new(HashMap::new()));
    // The map is only inserted into, so a panic elsewhere while it was held leaves it whole.
    let mut loaded = loaded.lock().unwrap_or_else(|e| e.into_inner());
    let functions = match loaded.get(&key) {
        Some(functions) => Arc::clone(functions),
        None => {
            let compiled = gpu.load_module(&module.source, &module.options())?;
            let functions: Arc<[CudaFunction]> = names
                .iter()
                .map(|name| gpu.load_function(&compiled, name))
                .collect::<std::result::Result<Vec<_>, _>>()?
                .into();
            loaded.insert(key, Arc::clone(&functions));
            functions
        }
    };
    Ok(std::array::from_fn(|k| functions[k].clone()))
}
