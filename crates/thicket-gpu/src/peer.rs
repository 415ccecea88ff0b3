//! Memory on one GPU that kernels on other GPUs of the host read and update directly, through
//! peer access: one task list and one work counter for every GPU's persistent kernel.
//!
//! A queue of fixed chunks (see [`crate::run_work_queue`]) ends every chunk's launch with a
//! tail where only the threads on the last, longest items still run. With one counter that
//! every GPU's kernel claims items from, each GPU needs a single launch: all of them keep
//! taking items until the queue is empty, and they finish within one item of each other. The
//! items themselves cross the bus once, to the GPU that holds the counter; the others read
//! them over the peer link. That needs a link with native peer atomics (NVLink; PCIe peer
//! atomics on some hosts): [`peer_atomics`] says whether two devices have one.

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdevice_P2PAttribute, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, DriverError};

use crate::probe::{device_handle, ensure_driver};
use crate::{Gpu, GpuError};

/// Device memory of one GPU (its owner) that kernels on other GPUs may read and update with
/// atomics (system scope, e.g. `atomicAdd_system`) once [`PeerMemory::admit`] has opened
/// their way to it.
///
/// It is a plain `cuMemAlloc`: peer access covers that, but not the stream-ordered pools that
/// cudarc allocates from.
#[derive(Debug)]
pub struct PeerMemory {
    owner: Arc<CudaContext>,
    address: CUdeviceptr,
}

impl PeerMemory {
    /// `bytes` zero bytes on `owner`.
    pub fn zeroed(owner: &Gpu, bytes: usize) -> Result<PeerMemory, GpuError> {
        let memory = PeerMemory::allocate(owner, bytes)?;
        // SAFETY: `address` is a live allocation of `bytes` bytes in the current context; the
        // context-wide synchronisation orders the zeroes before any later launch.
        unsafe { sys::cuMemsetD8_v2(memory.address, 0, bytes) }
            .result()
            .and_then(|()| {
                // SAFETY: a plain synchronisation of the current context.
                unsafe { sys::cuCtxSynchronize() }.result()
            })
            .map_err(GpuError::driver("cuMemsetD8"))?;
        Ok(memory)
    }

    /// A copy of `words` on `owner`.
    pub fn copied(owner: &Gpu, words: &[u32]) -> Result<PeerMemory, GpuError> {
        let bytes = std::mem::size_of_val(words);
        let memory = PeerMemory::allocate(owner, bytes)?;
        // SAFETY: the allocation holds `bytes` bytes and `words` as many; the copy is
        // synchronous, so `words` may go as soon as it returns.
        unsafe { sys::cuMemcpyHtoD_v2(memory.address, words.as_ptr().cast(), bytes) }
            .result()
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        Ok(memory)
    }

    /// At least one byte, uninitialised, on `owner` (whose context is left current).
    fn allocate(owner: &Gpu, bytes: usize) -> Result<PeerMemory, GpuError> {
        let owner = owner.context().clone();
        owner
            .bind_to_thread()
            .map_err(GpuError::driver("cuCtxSetCurrent"))?;
        let mut address = 0;
        // SAFETY: the owner's context is current and the out-pointer is a local.
        unsafe { sys::cuMemAlloc_v2(&mut address, bytes.max(1)) }
            .result()
            .map_err(GpuError::driver("cuMemAlloc"))?;
        Ok(PeerMemory { owner, address })
    }

    /// The memory's device address, valid in kernels on the owner and on every admitted GPU
    /// for as long as this value lives.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// Opens peer access from `gpu` to the owner's memory (nothing to do on the owner itself).
    ///
    /// Fails with [`GpuError::Unavailable`] when `gpu` has no peer link with native atomics to
    /// the owner.
    pub fn admit(&self, gpu: &Gpu) -> Result<(), GpuError> {
        let (device, owner) = (gpu.context().cu_device(), self.owner.cu_device());
        if device == owner {
            return Ok(());
        }
        if !device_pair_has_peer_atomics(device, owner)? {
            return Err(no_peer_atomics(gpu.ordinal(), self.owner.ordinal()));
        }
        gpu.context()
            .bind_to_thread()
            .map_err(GpuError::driver("cuCtxSetCurrent"))?;
        // SAFETY: the current context is `gpu`'s and the owner's context is alive (held here).
        match unsafe { sys::cuCtxEnablePeerAccess(self.owner.cu_ctx(), 0) } {
            CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            error => Err(GpuError::driver("cuCtxEnablePeerAccess")(DriverError(
                error,
            ))),
        }
    }
}

impl Drop for PeerMemory {
    fn drop(&mut self) {
        // A failure here leaves the allocation to the context's end; there is nobody to
        // report it to.
        if self.owner.bind_to_thread().is_ok() {
            // SAFETY: the allocation was made in the owner's context, which is current, and
            // every launch that used it has been waited for by its user.
            let _ = unsafe { sys::cuMemFree_v2(self.address) };
        }
    }
}

/// Whether kernels on each device of `ordinals` can use atomics on the memory of the first
/// one (device ordinals, checked without creating a context).
pub fn peer_atomics(ordinals: &[usize]) -> Result<bool, GpuError> {
    ensure_driver()?;
    let Some((&first, others)) = ordinals.split_first() else {
        return Ok(true);
    };
    let owner = device_handle(first)?;
    for &ordinal in others {
        let device = device_handle(ordinal)?;
        if device != owner && !device_pair_has_peer_atomics(device, owner)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether kernels on `device` can read `owner`'s memory and use native atomics on it.
fn device_pair_has_peer_atomics(
    device: sys::CUdevice,
    owner: sys::CUdevice,
) -> Result<bool, GpuError> {
    let mut can_access = 0;
    // SAFETY: both handles come from the driver and the out-pointer is a local.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can_access, device, owner) }
        .result()
        .map_err(GpuError::driver("cuDeviceCanAccessPeer"))?;
    let mut atomics = 0;
    // SAFETY: as above.
    unsafe {
        sys::cuDeviceGetP2PAttribute(
            &mut atomics,
            CUdevice_P2PAttribute::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
            device,
            owner,
        )
    }
    .result()
    .map_err(GpuError::driver("cuDeviceGetP2PAttribute"))?;
    Ok(can_access != 0 && atomics != 0)
}

/// The error of a device pair without a peer link with native atomics.
fn no_peer_atomics(ordinal: usize, owner: usize) -> GpuError {
    GpuError::Unavailable(format!(
        "GPU {ordinal} cannot use atomics on GPU {owner}'s memory (no peer link with native atomics)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a driver the peer check fails with one line instead of a panic; on a GPU
    /// machine one device always reaches itself.
    #[test]
    fn peer_atomics_answers_or_says_why_not() {
        match peer_atomics(&[0, 0]) {
            Ok(answer) => assert!(answer, "a device reaches its own memory"),
            Err(GpuError::Unavailable(why)) => assert!(!why.contains('\n'), "{why}"),
            Err(other) => panic!("expected Unavailable, got {other}"),
        }
    }

    /// An empty or single list needs no peer link.
    #[test]
    fn no_pair_needs_no_link() {
        if ensure_driver().is_ok() {
            assert!(peer_atomics(&[0]).unwrap_or(true));
        }
        assert!(matches!(
            peer_atomics(&[]),
            Ok(true) | Err(GpuError::Unavailable(_))
        ));
    }
}
