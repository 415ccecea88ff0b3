//! The one error type of the GPU runtime.

use std::ffi::CStr;
use std::ops::Range;
use std::path::PathBuf;

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;
use cudarc::nvrtc::result::NvrtcError;
use cudarc::nvrtc::sys::nvrtcResult;

/// Everything that can go wrong in the GPU runtime.
///
/// Messages are built when the error is created, so formatting an error never calls back into
/// the CUDA libraries (which may be absent).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// The GPU backend cannot run on this machine; the message says what is missing, in one line.
    #[error("GPU unavailable: {0}")]
    Unavailable(String),

    /// A CUDA driver call failed.
    #[error("CUDA driver call {op} failed: {message}")]
    Driver {
        /// The operation that failed, e.g. `cuModuleLoadData`.
        op: &'static str,
        /// The driver's result code.
        code: CUresult,
        /// The driver's name and description of `code`.
        message: String,
    },

    /// An NVRTC call other than the compilation itself failed.
    #[error("NVRTC call {op} failed: {message}")]
    Nvrtc {
        /// The operation that failed, e.g. `nvrtcGetCUBIN`.
        op: &'static str,
        /// NVRTC's result code.
        code: nvrtcResult,
        /// NVRTC's description of `code`.
        message: String,
    },

    /// NVRTC rejected a kernel's source or options.
    #[error(
        "NVRTC could not compile kernel `{kernel}` for {target} with options {options:?}:\n{log}"
    )]
    Compile {
        /// [`crate::KernelSource::name`] of the kernel.
        kernel: String,
        /// The architecture it was compiled for, e.g. `sm_90`.
        target: String,
        /// Every option passed to NVRTC, the defaults included.
        options: Vec<String>,
        /// NVRTC's program log (the compiler's diagnostics).
        log: String,
    },

    /// Reading or writing the on-disk kernel cache failed.
    #[error("kernel cache I/O on {}: {source}", path.display())]
    Cache {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// An argument cannot be used, e.g. a NUL byte in kernel source or a device ordinal out of range.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A worker of [`crate::run_work_queue`] failed on a chunk of work items.
    #[error("worker {worker} failed on work items {}..{}: {source}", range.start, range.end)]
    Worker {
        /// Index of the failing worker (the device's position in the worker list).
        worker: usize,
        /// The work items of the failing chunk.
        range: Range<usize>,
        /// What went wrong.
        #[source]
        source: Box<GpuError>,
    },
}

impl GpuError {
    /// Returns a mapper from a cudarc [`DriverError`] to [`GpuError::Driver`] naming `op`, for
    /// use as `.map_err(GpuError::driver("cuLaunchKernel"))` in solver crates.
    pub fn driver(op: &'static str) -> impl FnOnce(DriverError) -> GpuError {
        move |error| GpuError::Driver {
            op,
            code: error.0,
            message: driver_error_text(error),
        }
    }

    /// Returns a mapper from a cudarc [`NvrtcError`] to [`GpuError::Nvrtc`] naming `op`.
    pub fn nvrtc(op: &'static str) -> impl FnOnce(NvrtcError) -> GpuError {
        move |error| GpuError::Nvrtc {
            op,
            code: error.0,
            message: nvrtc_error_text(error.0),
        }
    }

    /// The error's message on one line, for one-line command-line errors: NVRTC logs span
    /// several lines, so every run of whitespace becomes one space.
    pub fn one_line(&self) -> String {
        self.to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl GpuError {
    /// Whether the error means that no GPU can be used here (no driver, no NVRTC, no such
    /// device, a driver too old), as opposed to a GPU that failed while working.
    pub fn is_unavailable(&self) -> bool {
        use cudarc::driver::sys::cudaError_enum as Code;
        match self {
            GpuError::Unavailable(_) | GpuError::InvalidArgument(_) => true,
            GpuError::Driver { code, .. } => matches!(
                code,
                Code::CUDA_ERROR_NO_DEVICE
                    | Code::CUDA_ERROR_INVALID_DEVICE
                    | Code::CUDA_ERROR_NOT_INITIALIZED
                    | Code::CUDA_ERROR_DEINITIALIZED
                    | Code::CUDA_ERROR_DEVICE_UNAVAILABLE
                    | Code::CUDA_ERROR_DEVICE_NOT_LICENSED
                    | Code::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
                    | Code::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
                    | Code::CUDA_ERROR_SYSTEM_NOT_READY
            ),
            GpuError::Worker { source, .. } => source.is_unavailable(),
            GpuError::Nvrtc { .. } | GpuError::Compile { .. } | GpuError::Cache { .. } => false,
        }
    }
}

/// The one rule by which GPU errors become thicket's: what means no GPU can be used is
/// [`thicket_core::Error::Unavailable`] (so that `--backend auto` falls back to the CPU), the
/// rest [`thicket_core::Error::Gpu`]; both on one line.
impl From<GpuError> for thicket_core::Error {
    fn from(error: GpuError) -> thicket_core::Error {
        if error.is_unavailable() {
            thicket_core::Error::Unavailable(error.one_line())
        } else {
            thicket_core::Error::Gpu(error.one_line())
        }
    }
}

/// `CUDA_ERROR_X (description)`, falling back to the enum name when the driver cannot describe
/// its own code. Only called with a `DriverError` in hand, which implies libcuda is loaded.
pub(crate) fn driver_error_text(error: DriverError) -> String {
    match (error.error_name(), error.error_string()) {
        (Ok(name), Ok(text)) => format!("{} ({})", name.to_string_lossy(), text.to_string_lossy()),
        _ => format!("{:?}", error.0),
    }
}

/// NVRTC's own text for `code`. Only called with an NVRTC result in hand, so libnvrtc is loaded.
pub(crate) fn nvrtc_error_text(code: nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString accepts any result code and returns a static string or null.
    let text = unsafe { cudarc::nvrtc::sys::nvrtcGetErrorString(code) };
    if text.is_null() {
        format!("{code:?}")
    } else {
        // SAFETY: non-null pointers from nvrtcGetErrorString are NUL-terminated static strings.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_gpus_are_unavailable_and_failures_are_gpu_errors() {
        use cudarc::driver::sys::cudaError_enum as Code;
        let driver = |code| GpuError::Driver {
            op: "cuInit",
            code,
            message: "m".into(),
        };
        let unavailable = [
            GpuError::Unavailable("no driver".into()),
            driver(Code::CUDA_ERROR_NO_DEVICE),
            GpuError::Worker {
                worker: 0,
                range: 0..1,
                source: Box::new(driver(Code::CUDA_ERROR_INVALID_DEVICE)),
            },
        ];
        for error in unavailable {
            let text = error.one_line();
            let converted = thicket_core::Error::from(error);
            assert!(
                matches!(converted, thicket_core::Error::Unavailable(_)),
                "{text}"
            );
        }
        let failed = driver(Code::CUDA_ERROR_LAUNCH_FAILED);
        assert!(matches!(
            thicket_core::Error::from(failed),
            thicket_core::Error::Gpu(_)
        ));
    }

    #[test]
    fn one_line_joins_a_multi_line_compile_log() {
        let error = GpuError::Compile {
            kernel: "k".into(),
            target: "sm_90".into(),
            options: vec![],
            log: "line 1: error\n  line 2:  note\n".into(),
        };
        assert_eq!(
            error.one_line(),
            "NVRTC could not compile kernel `k` for sm_90 with options []: line 1: error line 2: note"
        );
    }
}
