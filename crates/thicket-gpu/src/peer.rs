//! A work counter that persistent kernels on several GPUs share through peer memory.
//!
//! A queue of fixed chunks (see [`crate::run_work_queue`]) ends every chunk's launch with a
//! tail where only the threads on the last, longest items still run. With one counter that
//! every GPU's kernel claims items from, each GPU needs a single launch: all of them keep
//! taking items until the queue is empty, and they finish within one item of each other.
//! The counter lives in the first GPU's memory; the others reach it through peer access, which
//! needs a link with native peer atomics (NVLink; PCIe peer atomics on some hosts).

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdevice_P2PAttribute, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, DriverError};

use crate::{Gpu, GpuError};

/// A `u32` counter, zero at first, in the memory of the first of a set of GPUs, with peer
/// access from every other one opened, so that kernels on all of them can add to it
/// atomically (with system scope, e.g. `atomicAdd_system`).
#[derive(Debug)]
pub struct SharedCounter {
    owner: Arc<CudaContext>,
    address: CUdeviceptr,
}

impl SharedCounter {
    /// Allocates the counter on `gpus[0]` and opens peer access to that GPU's memory from each
    /// other GPU of `gpus`.
    ///
    /// Fails with [`GpuError::Unavailable`] when `gpus` is empty or some GPU cannot reach the
    /// first one's memory with native atomics (callers then fall back to a chunked queue), and
    /// with [`GpuError::Driver`] when a driver call fails.
    pub fn new(gpus: &[&Gpu]) -> Result<SharedCounter, GpuError> {
        let (first, others) = gpus
            .split_first()
            .ok_or_else(|| GpuError::Unavailable("no GPU to hold a shared counter".into()))?;
        for gpu in others {
            open_peer_access(gpu, first)?;
        }
        let owner = first.context().clone();
        owner
            .bind_to_thread()
            .map_err(GpuError::driver("cuCtxSetCurrent"))?;
        // A plain cuMemAlloc: peer access covers it, but not the stream-ordered pools that
        // cudarc allocates from.
        let mut address = 0;
        // SAFETY: the owner's context is current and the out-pointer is a local.
        unsafe { sys::cuMemAlloc_v2(&mut address, std::mem::size_of::<u32>()) }
            .result()
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let counter = SharedCounter { owner, address };
        // SAFETY: `address` is a live allocation of one u32 in the current context; the
        // context-wide synchronisation orders the zero before any later launch on any stream.
        unsafe { sys::cuMemsetD32_v2(counter.address, 0, 1) }
            .result()
            .and_then(|()| unsafe { sys::cuCtxSynchronize() }.result())
            .map_err(GpuError::driver("cuMemsetD32"))?;
        Ok(counter)
    }

    /// The counter's device address, valid in kernels on every GPU given to [`Self::new`]
    /// for as long as this value lives.
    pub fn address(&self) -> u64 {
        self.address
    }
}

impl Drop for SharedCounter {
    fn drop(&mut self) {
        // A failure here leaves at most four bytes allocated until the context goes; there is
        // nobody to report it to.
        if self.owner.bind_to_thread().is_ok() {
            // SAFETY: the allocation was made in the owner's context, which is current, and
            // every launch that used it has been waited for by its user.
            let _ = unsafe { sys::cuMemFree_v2(self.address) };
        }
    }
}

/// Lets kernels on `gpu` read and write `owner`'s memory, with native atomics.
fn open_peer_access(gpu: &Gpu, owner: &Gpu) -> Result<(), GpuError> {
    let (device, owner_device) = (gpu.context().cu_device(), owner.context().cu_device());
    if device == owner_device {
        return Ok(());
    }
    let mut can_access = 0;
    // SAFETY: both handles come from live contexts and the out-pointer is a local.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can_access, device, owner_device) }
        .result()
        .map_err(GpuError::driver("cuDeviceCanAccessPeer"))?;
    let mut atomics = 0;
    // SAFETY: as above.
    unsafe {
        sys::cuDeviceGetP2PAttribute(
            &mut atomics,
            CUdevice_P2PAttribute::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
            device,
            owner_device,
        )
    }
    .result()
    .map_err(GpuError::driver("cuDeviceGetP2PAttribute"))?;
    if can_access == 0 || atomics == 0 {
        return Err(GpuError::Unavailable(format!(
            "GPU {} cannot use atomics on GPU {}'s memory (no peer link with native atomics)",
            gpu.ordinal(),
            owner.ordinal()
        )));
    }
    gpu.context()
        .bind_to_thread()
        .map_err(GpuError::driver("cuCtxSetCurrent"))?;
    // SAFETY: the current context is `gpu`'s and the peer context is alive (owned by `owner`).
    match unsafe { sys::cuCtxEnablePeerAccess(owner.context().cu_ctx(), 0) } {
        CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
        error => Err(GpuError::driver("cuCtxEnablePeerAccess")(DriverError(
            error,
        ))),
    }
}
