//! `thicket.read_graph`, `read_tsplib` and `read_dimacs_flow`: the files the command line reads,
//! read by the same readers (their bounds, their one-line errors naming file and line), handed
//! to Python as numpy arrays that the package makes into a scipy CSR matrix or a cost matrix.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use thicket_graph::{Format, VertexIds};

use crate::errors::{invalid, to_py};

/// The graph file `path` in `format` (its extension's where None): a tuple of the vertex
/// count, `indptr` and `indices` (int64), the weights (float64, or None where the file has
/// none), the id the file gives vertex 0, whether it is known symmetric, and the file's own
/// ids where thicket renumbered them (ints, or bytes names), else None.
#[pyfunction]
#[pyo3(signature = (path, format))]
pub fn read_graph<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let format = match format {
        None => Format::of(&path).map_err(to_py)?,
        Some(name) => Format::ALL
            .into_iter()
            .find(|f| f.extension() == name)
            .ok_or_else(|| {
                invalid(format!(
                    "unknown graph format {name:?} (gr, el, wel, txt, mtx, sg, wsg, tgr)"
                ))
            })?,
    };
    let loaded = py
        .detach(|| thicket_graph::io::read_as(&path, format))
        .map_err(to_py)?;
    let graph = &loaded.graph;
    let indptr: Vec<i64> = graph.offsets().iter().map(|&o| o as i64).collect();
    let indices: Vec<i64> = graph.targets().iter().map(|&t| i64::from(t)).collect();
    let weights = graph
        .weights()
        .map(|w| w.iter().map(|&w| f64::from(w)).collect::<Vec<f64>>());
    let ids: Option<Bound<'py, PyList>> = match &loaded.ids {
        None => None,
        Some(VertexIds::Numbers(numbers)) => Some(PyList::new(py, numbers)?),
        Some(VertexIds::Names(names)) => Some(PyList::new(
            py,
            names.iter().map(|name| PyBytes::new(py, name)),
        )?),
    };
    (
        graph.vertices(),
        indptr.into_pyarray(py),
        indices.into_pyarray(py),
        weights.map(|w| w.into_pyarray(py)),
        loaded.first_id,
        loaded.symmetric,
        ids,
    )
        .into_pyobject(py)
}

/// The TSPLIB ATSP file `path`: its name and its n x n cost matrix (int64, 0 on the diagonal).
#[pyfunction]
pub fn read_tsplib<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyTuple>> {
    let instance = py
        .detach(|| thicket_atsp::read_tsplib(&path))
        .map_err(to_py)?;
    let n = instance.n;
    let matrix = PyArray2::from_vec2(
        py,
        &instance
            .cost
            .chunks(n.max(1))
            .map(<[i64]>::to_vec)
            .collect::<Vec<_>>(),
    )
    .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    (instance.name, matrix).into_pyobject(py)
}

/// The DIMACS max-flow file `path`: the vertex count, the arcs' tails, heads and capacities
/// (int64, 0-based vertices), the source and the sink.
#[pyfunction]
pub fn read_dimacs_flow<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyTuple>> {
    let network = py
        .detach(|| thicket_flow::dimacs::read(&path))
        .map_err(to_py)?;
    let column =
        |f: fn(&thicket_flow::FlowArc) -> i64| -> Vec<i64> { network.arcs.iter().map(f).collect() };
    (
        network.vertices,
        column(|a| i64::from(a.tail)).into_pyarray(py),
        column(|a| i64::from(a.head)).into_pyarray(py),
        column(|a| a.capacity as i64).into_pyarray(py),
        network.source,
        network.sink,
    )
        .into_pyobject(py)
}
