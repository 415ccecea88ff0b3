//! `thicket.queens`: N-Queens counts.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_queens::{count, CountOptions, Counted};

use crate::devices::{add_run_info, run_options};
use crate::solve::solve;

/// Counts the solutions of `n` queens: `total` (OEIS A000170), `unique` (up to rotations
/// and reflections, A002562), `seconds`, `backend`.
#[pyfunction]
#[pyo3(signature = (n, backend))]
pub fn queens<'py>(py: Python<'py>, n: usize, backend: &str) -> PyResult<Bound<'py, PyDict>> {
    let options = CountOptions {
        run: run_options(backend)?,
        ..CountOptions::default()
    };
    let Counted::Whole(measured) = solve(py, || count(n, &options))? else {
        return Err(PyRuntimeError::new_err(
            "a count in one go came back in shards",
        ));
    };
    let dict = PyDict::new(py);
    dict.set_item("n", n)?;
    dict.set_item("total", measured.output.count.total)?;
    dict.set_item("unique", measured.output.count.unique)?;
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}
