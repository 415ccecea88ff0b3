//! A word of page-locked host memory that kernels write straight into while they run, and the
//! host reads with a plain load: how far a long launch has come, without any CUDA call (and so
//! without a stream that would queue behind the kernel).

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;

use crate::{Gpu, GpuError};

/// One `u32` of mapped, portable pinned host memory, zeroed, that kernels on every device of
/// the process may store to (at [`MappedWord::device_address`]: with unified addressing, which
/// every 64-bit CUDA platform has, one address serves all devices).
#[derive(Debug)]
pub struct MappedWord {
    context: Arc<CudaContext>,
    host: *mut u32,
    device: CUdeviceptr,
}

// SAFETY: the word is only read through volatile loads and freed once, on drop; the pointer is
// valid from any thread for the value's whole life.
unsafe impl Send for MappedWord {}
// SAFETY: as above: shared access is volatile loads of an aligned u32 in live memory.
unsafe impl Sync for MappedWord {}

impl MappedWord {
    /// A zero word, allocated through `gpu`'s context (and usable from every context).
    pub fn new(gpu: &Gpu) -> Result<MappedWord, GpuError> {
        let context = gpu.context().clone();
        context
            .bind_to_thread()
            .map_err(GpuError::driver("cuCtxSetCurrent"))?;
        let mut host = std::ptr::null_mut();
        let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
        // SAFETY: a context is current and the out-pointer is a local.
        unsafe { sys::cuMemHostAlloc(&mut host, std::mem::size_of::<u32>(), flags) }
            .result()
            .map_err(GpuError::driver("cuMemHostAlloc"))?;
        let host = host.cast::<u32>();
        // SAFETY: the allocation holds one u32, page-aligned, and nothing else uses it yet.
        unsafe { host.write_volatile(0) };
        let mut device = 0;
        // SAFETY: `host` came from cuMemHostAlloc with DEVICEMAP in the current context.
        let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) };
        let word = MappedWord {
            context,
            host,
            device,
        };
        mapped
            .result()
            .map_err(GpuError::driver("cuMemHostGetDevicePointer"))?;
        Ok(word)
    }

    /// The address kernels store to.
    pub fn device_address(&self) -> u64 {
        self.device
    }

    /// The word's current value: whatever the kernels' last store to land left there.
    pub fn read(&self) -> u32 {
        // SAFETY: `host` points at a live, aligned u32 until drop.
        unsafe { self.host.read_volatile() }
    }
}

impl Drop for MappedWord {
    fn drop(&mut self) {
        // A failure here leaves the page to the process's end; there is nobody to report it to.
        if self.context.bind_to_thread().is_ok() {
            // SAFETY: allocated by cuMemHostAlloc; every launch that wrote it has been waited
            // for by its user.
            let _ = unsafe { sys::cuMemFreeHost(self.host.cast()) };
        }
    }
}
