//! thicket's errors as Python exceptions: bad input is `ValueError`, an interrupted run
//! without an answer so far `KeyboardInterrupt` (one with an answer is raised by
//! `solve::solve_anytime`), everything else (no GPU, a GPU failure, too large) `RuntimeError`;
//! each carries the one line the CLI prints after `thicket: `.

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::PyErr;
use thicket_core::Error;

/// The Python exception for `error`.
pub fn to_py(error: Error) -> PyErr {
    match error {
        Error::InvalidInput(_) => PyValueError::new_err(error.to_string()),
        Error::Interrupted(_) => PyKeyboardInterrupt::new_err(error.to_string()),
        _ => PyRuntimeError::new_err(error.to_string()),
    }
}

/// A `ValueError` worded as the CLI words bad input.
pub fn invalid(message: String) -> PyErr {
    to_py(Error::InvalidInput(message))
}

/// A choice (`backend`, `method`, ...) read by its `FromStr`, whose error names every choice.
pub fn choice<T: std::str::FromStr<Err = Error>>(text: &str) -> Result<T, PyErr> {
    text.parse().map_err(to_py)
}
