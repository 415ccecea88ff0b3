//! `thicket.atsp`: the asymmetric travelling salesman problem, to proven optimality.

use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_atsp::{Instance, SolveOptions, Solved};

use crate::devices::{add_run_info, run_options};
use crate::errors::invalid;
use crate::solve::solve;

/// The cheapest tour of the square matrix `distances` (row i: the arcs from city i, whole
/// numbers; the diagonal is ignored): a dict of `cost`, `tour` (from city 0),
/// `proven_optimal`, `lower_bound`, `nodes`.
#[pyfunction]
#[pyo3(signature = (distances, backend))]
pub fn atsp<'py>(
    py: Python<'py>,
    distances: PyReadonlyArray2<'py, f64>,
    backend: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let columns = distances.shape()[1];
    let values = distances
        .as_slice()
        .map_err(|_| invalid("distances is not a contiguous array".into()))?;
    let options = SolveOptions {
        run: run_options(backend)?,
        ..SolveOptions::default()
    };
    let solved = solve(py, || {
        let rows: Vec<&[f64]> = values.chunks(columns.max(1)).collect();
        let instance = Instance::from_distances("distances", &rows)?;
        thicket_atsp::solve(&instance, &options)
    })?;
    let Solved::Whole(measured) = solved else {
        return Err(PyRuntimeError::new_err(
            "a solve in one go came back in shards",
        ));
    };
    let solution = &measured.output.solution;
    let dict = PyDict::new(py);
    dict.set_item("cost", solution.cost)?;
    let tour: Vec<u64> = solution.tour.iter().map(|&c| c as u64).collect();
    dict.set_item("tour", PyArray1::from_vec(py, tour))?;
    dict.set_item("proven_optimal", solution.proven_optimal)?;
    // A finished search proves the tour optimal: its cost is then the best lower bound.
    dict.set_item(
        "lower_bound",
        solution.proven_optimal.then_some(solution.cost),
    )?;
    dict.set_item("nodes", solution.nodes)?;
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}
