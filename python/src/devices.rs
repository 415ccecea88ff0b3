//! `thicket.devices()`: the CUDA devices thicket's GPU solvers can use.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;

/// The usable CUDA devices, one dict each (`ordinal`, `name`, `sms`, `memory` in bytes,
/// `shared_memory_per_sm` in bytes, `compute_capability` and `driver_version` as
/// `(major, minor)`); an empty list where no driver, NVRTC or device is there.
#[pyfunction]
pub fn devices(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let found = match thicket_gpu::probe() {
        Ok(found) => found,
        Err(error) => match thicket_core::Error::from(error) {
            thicket_core::Error::Unavailable(_) => Vec::new(),
            other => return Err(to_py(other)),
        },
    };
    found
        .into_iter()
        .map(|device| {
            let dict = PyDict::new(py);
            dict.set_item("ordinal", device.ordinal)?;
            dict.set_item("name", device.name)?;
            dict.set_item("sms", device.sm_count)?;
            dict.set_item("memory", device.total_memory_bytes)?;
            dict.set_item("shared_memory_per_sm", device.shared_memory_per_sm)?;
            dict.set_item("compute_capability", device.compute_capability)?;
            dict.set_item("driver_version", device.driver_version)?;
            Ok(dict)
        })
        .collect()
}

/// Adds where and how fast a run went to `dict`: `seconds` (the solve's wall time), `backend`
/// (`cpu` or `cuda`) and `notes` (e.g. why `auto` ran on the CPU).
pub fn add_run_info(dict: &Bound<'_, PyDict>, info: &thicket_core::RunInfo) -> PyResult<()> {
    dict.set_item("seconds", info.seconds)?;
    dict.set_item("backend", &info.backend)?;
    dict.set_item("devices", &info.devices)?;
    dict.set_item("notes", &info.notes)?;
    Ok(())
}

/// Run options for a library call from Python: `backend`, one trial, no progress bar.
pub fn run_options(backend: &str) -> PyResult<thicket_core::RunOptions> {
    Ok(thicket_core::RunOptions {
        backend: crate::errors::choice(backend)?,
        quiet: true,
        ..thicket_core::RunOptions::default()
    })
}
