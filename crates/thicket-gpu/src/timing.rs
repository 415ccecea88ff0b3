//! Device time between two points of a stream, by CUDA events: what a solver reports as
//! kernel time.

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::GpuError;

/// An event recorded on `stream` now (with timing).
pub fn record_event(stream: &CudaStream) -> Result<CudaEvent, GpuError> {
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(GpuError::driver("cuEventRecord"))
}

/// Seconds of device time from `start` to `end`, once `end` has happened (waits for it).
pub fn seconds_between(start: &CudaEvent, end: &CudaEvent) -> Result<f64, GpuError> {
    end.synchronize()
        .map_err(GpuError::driver("cuEventSynchronize"))?;
    let ms = start
        .elapsed_ms(end)
        .map_err(GpuError::driver("cuEventElapsedTime"))?;
    Ok(f64::from(ms) / 1e3)
}
