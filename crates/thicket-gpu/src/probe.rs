//! Finding out, without panicking, whether CUDA can run here and on which devices.
//!
//! cudarc loads libcuda and libnvrtc lazily and *panics* when a library is missing, so every path
//! into cudarc in this crate goes through [`ensure_driver`] or [`ensure_nvrtc`] first; those only
//! call cudarc's non-panicking `is_culib_present` probes until the library is known to be there.

use std::ffi::{c_char, c_int, CStr};
use std::sync::OnceLock;

use cudarc::driver::result as cu;
use cudarc::driver::sys::{CUdevice, CUdevice_attribute};
use serde::Serialize;

use crate::error::driver_error_text;
use crate::GpuError;

/// Facts about one CUDA device, as reported by the driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// The device's CUDA ordinal (its index for [`crate::Gpu::open`]).
    pub ordinal: usize,
    /// Marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// Shared memory of one multiprocessor in bytes (what its resident blocks share).
    pub shared_memory_per_sm: u32,
    /// Total device memory in bytes.
    pub total_memory_bytes: u64,
    /// Compute capability `(major, minor)`, e.g. `(9, 0)` for Hopper.
    pub compute_capability: (u32, u32),
    /// Newest CUDA version the installed driver supports, `(major, minor)`, e.g. `(13, 0)`.
    pub driver_version: (u32, u32),
}

/// Lists the CUDA devices usable by thicket's GPU solvers.
///
/// Succeeds only if the NVIDIA driver (libcuda), NVRTC (libnvrtc) and at least one device are all
/// present, since every solver needs all three. Otherwise returns [`GpuError::Unavailable`] whose
/// one-line message names everything that is missing.
pub fn probe() -> Result<Vec<DeviceInfo>, GpuError> {
    let mut problems = Vec::new();
    let count = match device_count() {
        Ok(0) => {
            problems.push("the driver reports no CUDA devices".to_owned());
            0
        }
        Ok(count) => count,
        Err(GpuError::Unavailable(why)) => {
            problems.push(why);
            0
        }
        Err(other) => {
            problems.push(other.to_string());
            0
        }
    };
    if !nvrtc_library_present() {
        problems.push(NVRTC_MISSING.to_owned());
    }
    if !problems.is_empty() {
        return Err(GpuError::Unavailable(problems.join("; ")));
    }
    (0..count).map(device_info).collect()
}

/// Why the driver is unusable when libcuda cannot be loaded.
const DRIVER_MISSING: &str =
    "no NVIDIA driver: libcuda.so (libcuda.so.1) was not found by the dynamic loader";

/// Why compilation is impossible when libnvrtc cannot be loaded.
pub(crate) const NVRTC_MISSING: &str = "no NVRTC: libnvrtc.so.13 was not found by the dynamic loader \
     (install CUDA 13's NVRTC, e.g. the pip package nvidia-cuda-nvrtc, and add its lib directory to LD_LIBRARY_PATH)";

/// Whether cudarc can load libcuda; probed once per process.
fn driver_library_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the candidate names and closes them again.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// Whether cudarc can load libnvrtc; probed once per process.
pub(crate) fn nvrtc_library_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the candidate names and closes them again.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

/// Makes sure libcuda is loadable and initialised; the gate before any other driver call.
pub(crate) fn ensure_driver() -> Result<(), GpuError> {
    if !driver_library_present() {
        return Err(GpuError::Unavailable(DRIVER_MISSING.to_owned()));
    }
    // cuInit is cheap after the first call and reports the same failure every time, so it is not
    // cached: a failure here is what tells a user that the driver is broken or sees no device.
    cu::init().map_err(|error| {
        GpuError::Unavailable(format!("cuInit failed: {}", driver_error_text(error)))
    })
}

/// Makes sure libnvrtc is loadable; the gate before any NVRTC call.
pub(crate) fn ensure_nvrtc() -> Result<(), GpuError> {
    if nvrtc_library_present() {
        Ok(())
    } else {
        Err(GpuError::Unavailable(NVRTC_MISSING.to_owned()))
    }
}

/// Number of CUDA devices the driver sees.
pub(crate) fn device_count() -> Result<usize, GpuError> {
    ensure_driver()?;
    let count = cu::device::get_count().map_err(GpuError::driver("cuDeviceGetCount"))?;
    // A negative count would be a driver bug; treat it as no devices rather than wrapping.
    Ok(usize::try_from(count).unwrap_or(0))
}

/// The driver's CUDA version as `(major, minor)`.
pub(crate) fn driver_version() -> Result<(u32, u32), GpuError> {
    ensure_driver()?;
    let mut version: c_int = 0;
    // SAFETY: the driver is loaded and `version` is a valid out-pointer.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(GpuError::driver("cuDriverGetVersion"))?;
    let version = non_negative(version);
    Ok((version / 1000, (version % 1000) / 10))
}

/// The driver's handle of device `ordinal` (no context is created).
pub(crate) fn device_handle(ordinal: usize) -> Result<CUdevice, GpuError> {
    ensure_driver()?;
    let index = c_int::try_from(ordinal)
        .map_err(|_| GpuError::InvalidArgument(format!("device ordinal {ordinal} is too large")))?;
    cu::device::get(index).map_err(GpuError::driver("cuDeviceGet"))
}

/// Queries the driver for the facts of device `ordinal`, without creating a context.
pub(crate) fn device_info(ordinal: usize) -> Result<DeviceInfo, GpuError> {
    let device = device_handle(ordinal)?;
    let attribute = |attrib, op| {
        // SAFETY: `device` came from cuDeviceGet.
        unsafe { cu::device::get_attribute(device, attrib) }
            .map(non_negative)
            .map_err(GpuError::driver(op))
    };
    // SAFETY: `device` came from cuDeviceGet.
    let total_memory =
        unsafe { cu::device::total_mem(device) }.map_err(GpuError::driver("cuDeviceTotalMem"))?;
    Ok(DeviceInfo {
        ordinal,
        name: device_name(device)?,
        sm_count: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)",
        )?,
        shared_memory_per_sm: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)",
        )?,
        total_memory_bytes: total_memory as u64,
        compute_capability: (
            attribute(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)",
            )?,
            attribute(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)",
            )?,
        ),
        driver_version: driver_version()?,
    })
}

/// The device's name. cudarc's own wrapper `expect`s a NUL in the buffer; this one does not.
fn device_name(device: cudarc::driver::sys::CUdevice) -> Result<String, GpuError> {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length, which is what we pass.
    unsafe {
        cudarc::driver::sys::cuDeviceGetName(
            buffer.as_mut_ptr().cast::<c_char>(),
            buffer.len() as c_int,
            device,
        )
    }
    .result()
    .map_err(GpuError::driver("cuDeviceGetName"))?;
    let name = match CStr::from_bytes_until_nul(&buffer) {
        Ok(name) => name.to_bytes(),
        Err(_) => &buffer[..],
    };
    Ok(String::from_utf8_lossy(name).into_owned())
}

/// Driver integers that are counts or versions are never negative; clamp rather than wrap.
fn non_negative(value: c_int) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a machine without a GPU (CI, developer laptops) the probe must fail cleanly with one
    /// line of explanation; on a GPU machine it must list at least one device.
    #[test]
    fn probe_reports_unavailability_without_panicking() {
        match probe() {
            Ok(devices) => {
                assert!(!devices.is_empty());
                println!("probe found {} device(s): {devices:?}", devices.len());
            }
            Err(GpuError::Unavailable(why)) => {
                assert!(!why.is_empty());
                assert!(!why.contains('\n'), "message must be one line: {why}");
                if !driver_library_present() {
                    assert!(
                        why.contains("libcuda"),
                        "must name the missing driver: {why}"
                    );
                }
                if !nvrtc_library_present() {
                    assert!(
                        why.contains("libnvrtc"),
                        "must name the missing NVRTC: {why}"
                    );
                }
                println!("probe: GPU unavailable: {why}");
            }
            Err(other) => panic!("expected Unavailable, got {other}"),
        }
    }

    #[test]
    fn device_queries_fail_cleanly_without_a_driver() {
        if driver_library_present() {
            return;
        }
        assert!(matches!(device_count(), Err(GpuError::Unavailable(_))));
        assert!(matches!(device_info(0), Err(GpuError::Unavailable(_))));
        assert!(matches!(driver_version(), Err(GpuError::Unavailable(_))));
    }
}
