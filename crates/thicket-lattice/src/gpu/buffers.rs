//! The memory a [`super::LatticeGpu`] keeps between calls: device buffers and page-locked host
//! buffers, each grown to the largest request so far, so that an allocation (tens of
//! microseconds; page-locked memory synchronises the device) is paid once rather than per
//! call.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DeviceRepr, PinnedHostSlice, ValidAsZeroBits,
};
use thicket_core::Result;
use thicket_gpu::GpuError;

/// A device buffer of at least the length asked for last.
pub(super) struct DeviceBuffer<T> {
    slice: Option<CudaSlice<T>>,
}

impl<T> Default for DeviceBuffer<T> {
    fn default() -> DeviceBuffer<T> {
        DeviceBuffer { slice: None }
    }
}

impl<T: DeviceRepr + ValidAsZeroBits> DeviceBuffer<T> {
    /// The buffer, of at least `len` values (its contents are left from earlier calls).
    pub(super) fn at_least(
        &mut self,
        stream: &Arc<CudaStream>,
        len: usize,
    ) -> Result<&mut CudaSlice<T>> {
        if self.slice.as_ref().is_none_or(|slice| slice.len() < len) {
            // The old buffer goes first, so that the two never hold memory at once.
            self.slice = None;
            let slice = stream
                .alloc_zeros::<T>(capacity(len))
                .map_err(GpuError::driver("cuMemAlloc"))?;
            self.slice = Some(slice);
        }
        Ok(self.slice.as_mut().expect("allocated above"))
    }
}

/// A page-locked host buffer of at least the length asked for last: a copy to or from the
/// device starts at once (from pageable memory the driver stages it first).
pub(super) struct HostBuffer<T> {
    slice: Option<PinnedHostSlice<T>>,
}

impl<T> Default for HostBuffer<T> {
    fn default() -> HostBuffer<T> {
        HostBuffer { slice: None }
    }
}

impl<T: DeviceRepr> HostBuffer<T> {
    /// The buffer, of at least `len` values (its contents are left from earlier calls).
    pub(super) fn at_least(
        &mut self,
        context: &Arc<CudaContext>,
        len: usize,
    ) -> Result<&mut PinnedHostSlice<T>> {
        if self.slice.as_ref().is_none_or(|slice| slice.len() < len) {
            self.slice = None;
            // SAFETY: the buffer is read only where a copy from the device or the host has
            // written it first.
            let slice = unsafe { context.alloc_pinned_with_flags::<T>(capacity(len), 0) }
                .map_err(GpuError::driver("cuMemHostAlloc"))?;
            self.slice = Some(slice);
        }
        Ok(self.slice.as_mut().expect("allocated above"))
    }
}

/// The length allocated for a request of `len`: the next power of two, so that a series of
/// growing requests reallocates a logarithmic number of times.
fn capacity(len: usize) -> usize {
    len.max(1).next_power_of_two()
}

/// Everything the lattice kernels need between calls.
#[derive(Default)]
pub(super) struct Workspace {
    /// The parameter records of the options (on the device and staged on the host).
    pub(super) records: Records,
    /// Layers in single precision.
    pub(super) f32: Layers<f32>,
    /// Layers in double precision.
    pub(super) f64: Layers<f64>,
}

/// The options' parameter records, [`crate::kernels::PARAM_DOUBLES`] values each.
#[derive(Default)]
pub(super) struct Records {
    /// On the device, read by the tile kernel.
    pub(super) device: DeviceBuffer<f64>,
    /// Staged on the host for the upload.
    pub(super) host: HostBuffer<f64>,
    /// A book's prices and greeks as the read-out kernel writes them (four values an option).
    pub(super) priced: DeviceBuffer<f64>,
    /// The same, downloaded.
    pub(super) priced_host: HostBuffer<f64>,
}

/// The node values of the lattices in one working precision.
pub(super) struct Layers<T> {
    /// The two layers a run of launches reads and writes in turn (of one long lattice, or
    /// of every option of a book between its stages).
    pub(super) even: DeviceBuffer<T>,
    /// See `even`.
    pub(super) odd: DeviceBuffer<T>,
    /// Today's layer and the next two of every option around its state
    /// ([`crate::kernels::FIRST_VALUES`] values each), on the device.
    pub(super) first: DeviceBuffer<T>,
    /// One price per option of a book.
    pub(super) prices: DeviceBuffer<T>,
}

impl<T> Default for Layers<T> {
    fn default() -> Layers<T> {
        Layers {
            even: DeviceBuffer::default(),
            odd: DeviceBuffer::default(),
            first: DeviceBuffer::default(),
            prices: DeviceBuffer::default(),
        }
    }
}
