//! `thicket.bfs` and `thicket.sssp`: searches from several sources on a CSR graph.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use thicket_graph::{Graph, SearchOptions, INFINITE};

use crate::arrays::{slice, Ints};
use crate::devices::run_options;
use crate::errors::invalid;
use crate::solve::solve;

/// Searches `graph` (CSR: `indptr`, `indices`, `weights` per arc) from every source:
/// `kind` `bfs` gives an int32 array of hop counts (-1 unreached), `sssp` a float64 array of
/// distances (inf unreached), of shape (sources, vertices).
#[pyfunction]
#[pyo3(signature = (kind, indptr, indices, weights, sources, delta, backend))]
#[allow(clippy::too_many_arguments)] // the graph's arrays and the search's keywords
pub fn search<'py>(
    py: Python<'py>,
    kind: &str,
    indptr: Ints<'py>,
    indices: Ints<'py>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    sources: Ints<'py>,
    delta: Option<u64>,
    backend: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let offsets = indptr.to_u64("indptr", u64::MAX)?;
    let targets = indices.as_u32("indices", u64::from(u32::MAX))?.into_owned();
    let weights = weights.as_ref().map(|w| slice(w, "weights")).transpose()?;
    let sources = sources.as_u32("sources", u64::from(u32::MAX))?;
    let options = SearchOptions {
        run: run_options(backend)?,
        delta,
        ..SearchOptions::default()
    };
    let bfs = match kind {
        "bfs" => true,
        "sssp" => false,
        other => return Err(invalid(format!("unknown search {other:?} (bfs, sssp)"))),
    };
    let measured = solve(py, || {
        let graph = Graph::from_csr(offsets, targets, weights)?;
        if bfs {
            thicket_graph::bfs(&graph, &sources, &options)
        } else {
            thicket_graph::sssp(&graph, &sources, &options)
        }
    })?;
    let paths = measured.output.paths;
    let shape = [paths.len(), measured.output.vertices];
    let distances = paths.iter().flat_map(|p| p.distances.iter().copied());
    let array = if bfs {
        let hops: Vec<i32> = distances
            .map(|d| if d == INFINITE { -1 } else { d as i32 })
            .collect();
        PyArray1::from_vec(py, hops).reshape(shape)?.into_any()
    } else {
        let lengths: Vec<f64> = distances
            .map(|d| {
                if d == INFINITE {
                    f64::INFINITY
                } else {
                    d as f64
                }
            })
            .collect();
        PyArray1::from_vec(py, lengths).reshape(shape)?.into_any()
    };
    Ok(array)
}
