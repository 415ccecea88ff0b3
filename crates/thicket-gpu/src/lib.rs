//! thicket's GPU runtime, shared by every GPU solver.
//!
//! - [`probe`]: which CUDA devices are usable, or in one line why none is. It never panics:
//!   libcuda and libnvrtc are optional at run time and their absence is an error value.
//! - [`Gpu`]: an opened device, with its context and default stream for launches through cudarc
//!   (re-exported as [`cudarc`], so solvers need no direct dependency on it), and
//!   [`Gpu::load_module`], which compiles CUDA C++ with NVRTC for the device's exact
//!   architecture and caches the CUBIN on disk ([`kernel_cache_dir`]).
//! - [`compile_for_arch`] and [`nvrtc_status`]: compilation without a driver or GPU, for CI.
//! - [`kernel_modules!`]: a solver crate's kernel modules as one list, from which its
//!   [`KernelModule`] consts, their structs of loaded kernels and its kernel test follow.
//! - [`Gpu::load_linked_module`]: kernels that launch kernels (dynamic parallelism), compiled
//!   with `-rdc=true` and linked with the toolkit's `libcudadevrt.a` by the driver's linker.
//! - [`run_work_queue`]: a dynamic work queue spreading chunks of work over several devices;
//!   [`PeerMemory`] and [`peer_atomics`]: one work list and counter on one GPU that persistent
//!   kernels on several GPUs claim items from over peer links, one launch a GPU.
//! - [`MappedWord`]: a host word that running kernels write their progress into.
//! - [`download_map`], [`upload_map`], [`upload_staged`] and [`page_locked`]: large copies through
//!   page-locked host memory, chunked so that the host's cores work while the bus copies.
//! - [`record_event`] and [`seconds_between`]: device time by CUDA events.
//! - [`prefer_one_hardware_queue`]: one hardware queue per context, which opens and closes
//!   faster (call it first thing in `main`).

#![warn(missing_docs)]

mod cache;
mod compile;
mod dependent;
mod environment;
mod error;
mod gpu;
mod kernel_list;
mod link;
mod mapped;
#[cfg(feature = "test-support")]
mod module_check;
mod modules;
mod pacing;
mod peer;
mod per_device;
mod probe;
mod queue;
mod staging;
mod timing;

pub use cache::kernel_cache_dir;
pub use compile::{
    compile_for_arch, define, nvrtc_status, Header, ImageKind, KernelSource, DEFAULT_OPTIONS,
    THICKET_HEADER,
};
pub use cudarc;
pub use dependent::launch_after;
pub use environment::{prefer_one_hardware_queue, MAX_CONNECTIONS_ENV};
pub use error::GpuError;
pub use gpu::{Gpu, ModuleStats};
pub use link::{
    compile_relocatable_for_arch, cudadevrt_candidates, find_cudadevrt, CUDADEVRT_ENV, RDC_OPTION,
};
pub use mapped::MappedWord;
#[cfg(feature = "test-support")]
pub use module_check::{check_modules, CHECK_ARCHS_ENV};
pub use modules::{architectures_from, compile_everywhere, warm_up, KernelModule};
pub use pacing::LaunchPacer;
pub use peer::{peer_atomics, PeerMemory};
pub use per_device::PerDevice;
pub use probe::{probe, DeviceInfo};
pub use queue::{run_work_queue, ChunkOutput, QueueError};
pub use staging::{download_map, mark, page_locked, upload_map, upload_staged, STAGING_BYTES};
pub use timing::{record_event, seconds_between};
