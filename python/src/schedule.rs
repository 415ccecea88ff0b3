//! `thicket.schedule`: independent tasks on heterogeneous machines.

use std::time::Duration;

use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_schedule::{Etc, ScheduleOptions};

use crate::devices::{add_run_info, run_options};
use crate::errors::{choice, invalid};
use crate::solve::{solve_anytime, Answer};

/// A schedule of the (tasks, machines) ETC matrix `etc`: a dict of `makespan`, `assignment`
/// (a machine per task), `lower_bound`, `gap` ((makespan - lower_bound) / makespan, a
/// fraction), `method`, `stopped`. A search stopped by Ctrl-C raises `Interrupted` with its
/// best schedule and bound.
#[pyfunction]
#[pyo3(signature = (etc, method, time_limit, seed, backend))]
pub fn schedule<'py>(
    py: Python<'py>,
    etc: PyReadonlyArray2<'py, f64>,
    method: &str,
    time_limit: f64,
    seed: u64,
    backend: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let [tasks, machines] = [etc.shape()[0], etc.shape()[1]];
    let times = etc
        .as_slice()
        .map_err(|_| invalid("etc is not a contiguous array".into()))?;
    let time_limit = Duration::try_from_secs_f64(time_limit).map_err(|_| {
        invalid(format!(
            "time_limit is {time_limit}; it must be a number of seconds >= 0"
        ))
    })?;
    let options = ScheduleOptions {
        run: run_options(backend)?,
        method: choice(method)?,
        seed,
        time_limit,
        ..ScheduleOptions::default()
    };
    let work = || {
        let etc = Etc::new(tasks, machines, times.to_vec())?;
        thicket_schedule::schedule(&etc, &options)
    };
    solve_anytime(py, work, |measured| {
        let run = &measured.output;
        let dict = PyDict::new(py);
        dict.set_item("makespan", run.makespan)?;
        dict.set_item("assignment", PyArray1::from_slice(py, &run.assignment))?;
        dict.set_item("lower_bound", run.lower_bound)?;
        dict.set_item("gap", run.gap())?;
        dict.set_item("method", run.method.name())?;
        dict.set_item("stopped", run.stopped)?;
        add_run_info(&dict, &measured.info)?;
        Ok(Answer {
            value: dict.into_any(),
            finished: None,
        })
    })
}
