//! Programmatic dependent launches (compute capability 9.0 and up): a kernel launched so that
//! its blocks may start while the kernel before it on the stream is still finishing. Its
//! blocks run their prologue (parameters, constants) beside the previous kernel's tail and
//! wait in `griddepcontrol.wait` (`thicket.cuh`'s `wait_for_previous_grid`) before they read
//! what that kernel wrote; the previous kernel lets them start with
//! `griddepcontrol.launch_dependents`. A chain of hundreds of short launches (one long
//! lattice) saves most of the gap between them. On older devices it is a plain launch.

use std::ffi::c_void;

use cudarc::driver::sys::{self, CUlaunchAttributeID, CUresult};
use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig};

use crate::GpuError;

/// Launches `function` with `config` on `stream`, allowed to overlap the stream's previous
/// kernel where `overlap` is true (the device is of compute capability 9.0 or up), else an
/// ordinary launch.
///
/// # Safety
/// `args` must point to the kernel's arguments in order, each of the type the kernel takes,
/// and live until the call returns; the kernel must wait (`griddepcontrol.wait`) before it
/// reads anything the previous kernel writes or writes anything it reads.
pub unsafe fn launch_after(
    stream: &CudaStream,
    function: &CudaFunction,
    config: LaunchConfig,
    args: &mut [*mut c_void],
    overlap: bool,
) -> Result<(), GpuError> {
    stream
        .context()
        .bind_to_thread()
        .map_err(GpuError::driver("cuCtxSetCurrent"))?;
    // SAFETY: a zeroed attribute is a valid "no attribute" value of the C union; the one
    // field set is the one the id names.
    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attribute.id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid_dim.0,
        gridDimY: config.grid_dim.1,
        gridDimZ: config.grid_dim.2,
        blockDimX: config.block_dim.0,
        blockDimY: config.block_dim.1,
        blockDimZ: config.block_dim.2,
        sharedMemBytes: config.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: &mut attribute,
        numAttrs: u32::from(overlap),
    };
    // SAFETY: the configuration and its attribute live across the call; the function handle
    // belongs to a loaded module; the caller vouches for the arguments.
    let result = unsafe {
        sys::cuLaunchKernelEx(
            &launch,
            function.cu_function(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    match result {
        CUresult::CUDA_SUCCESS => Ok(()),
        error => Err(GpuError::driver("cuLaunchKernelEx")(
            cudarc::driver::DriverError(error),
        )),
    }
}
