//! `thicket.atsp`: the asymmetric travelling salesman problem, to proven optimality or to a
//! time limit (the best tour, a proven lower bound and the gap).

use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_atsp::{AtspRun, Instance, SolveOptions, Solved};
use thicket_core::Measured;

use crate::devices::{add_run_info, run_options};
use crate::errors::invalid;
use crate::solve::{solve_anytime, Answer};

/// The cheapest tour of the square matrix `distances` (row i: the arcs from city i, whole
/// numbers; the diagonal is ignored), searched for at most `time_limit` seconds where given:
/// a dict of `cost`, `tour` (from city 0), `proven_optimal`, `lower_bound`,
/// `lower_bound_source` (as the CLI's JSON), `gap`, `nodes`, `stopped`. A search stopped by
/// Ctrl-C raises `Interrupted` with its best tour and bound.
#[pyfunction]
#[pyo3(signature = (distances, time_limit, backend))]
pub fn atsp<'py>(
    py: Python<'py>,
    distances: PyReadonlyArray2<'py, f64>,
    time_limit: Option<f64>,
    backend: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let time_limit = time_limit
        .map(|seconds| {
            std::time::Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    invalid(format!(
                        "time_limit is {seconds}; it must be a positive number of seconds"
                    ))
                })
        })
        .transpose()?;
    let columns = distances.shape()[1];
    let values = distances
        .as_slice()
        .map_err(|_| invalid("distances is not a contiguous array".into()))?;
    let options = SolveOptions {
        run: run_options(backend)?,
        time_limit,
        ..SolveOptions::default()
    };
    let work = || {
        let rows: Vec<&[f64]> = values.chunks(columns.max(1)).collect();
        let instance = Instance::from_distances("distances", &rows)?;
        thicket_atsp::solve(&instance, &options)
    };
    solve_anytime(py, work, |solved| {
        let Solved::Whole(measured) = solved else {
            return Err(PyRuntimeError::new_err(
                "a solve in one go came back in shards",
            ));
        };
        Ok(Answer {
            value: answer(py, &measured)?.into_any(),
            finished: None,
        })
    })
}

/// The dict of a run's tour and bound (a stopped run's best so far).
fn answer<'py>(py: Python<'py>, measured: &Measured<AtspRun>) -> PyResult<Bound<'py, PyDict>> {
    let solution = &measured.output.solution;
    let dict = PyDict::new(py);
    dict.set_item("cost", solution.cost)?;
    // int64, numpy's dtype of indices (uint64 mixed with int64 turns into float64).
    let tour: Vec<i64> = solution.tour.iter().map(|&c| c as i64).collect();
    dict.set_item("tour", PyArray1::from_vec(py, tour))?;
    dict.set_item("proven_optimal", solution.proven_optimal)?;
    dict.set_item("lower_bound", solution.lower_bound)?;
    dict.set_item(
        "lower_bound_source",
        measured.output.lower_bound_source.name(),
    )?;
    // The gap as a fraction of the tour's cost (0 once proven).
    let gap = if solution.cost > 0 {
        (solution.cost - solution.lower_bound) as f64 / solution.cost as f64
    } else {
        0.0
    };
    dict.set_item("gap", gap)?;
    dict.set_item("nodes", solution.nodes)?;
    dict.set_item("stopped", measured.output.stopped)?;
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}
