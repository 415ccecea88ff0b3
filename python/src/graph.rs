//! `thicket.bfs` and `thicket.sssp`: searches from several sources on a CSR graph.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;
use thicket_graph::{
    whole_weights, GraphView, Problem, SearchInput, SearchOptions, SourcePaths, INFINITE,
};

use crate::arrays::{slice, Ints};
use crate::devices::run_options;
use crate::errors::invalid;
use crate::solve::{solve_anytime, Answer};

/// Searches `graph` (CSR: `indptr`, `indices`, `weights` per arc) from every source:
/// `kind` `bfs` gives an int32 array of hop counts (-1 unreached), `sssp` a float64 array of
/// distances (inf unreached), of shape (sources, vertices). `directed` false: every arc is
/// an edge both ways, as `scipy.sparse.csgraph`'s `directed=False` reads a graph. `symmetric`:
/// the caller knows every arc's reverse is an arc too, so BFS reads the graph as its own
/// reverse instead of building one. `predecessors`: the answer is a tuple of those and an
/// int64 array of each vertex's predecessor on a shortest path ([`NO_PREDECESSOR`] for the
/// source and unreached vertices), as scipy's `return_predecessors=True` gives. Searches
/// stopped by Ctrl-C raise `Interrupted` with the rows of the sources searched so far (the
/// first ones; no row for the others, whose rows would cost the time and memory of a whole
/// answer) and which those are.
#[pyfunction]
#[pyo3(signature = (kind, indptr, indices, weights, sources, delta, directed, symmetric, predecessors, backend))]
#[allow(clippy::too_many_arguments)] // the graph's arrays and the search's keywords
pub fn search<'py>(
    py: Python<'py>,
    kind: &str,
    indptr: Ints<'py>,
    indices: Ints<'py>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    sources: Ints<'py>,
    delta: Option<u64>,
    directed: bool,
    symmetric: bool,
    predecessors: bool,
    backend: &str,
) -> PyResult<Bound<'py, PyAny>> {
    // The graph's arrays are borrowed where they are of the library's types (or of the
    // signed types of the same width, checked non-negative): a Rust caller's graph is moved
    // in, not copied, and the Python call's should cost no more.
    let offsets = indptr.as_u64("indptr", u64::MAX)?;
    let targets = indices.as_u32("indices", u64::from(u32::MAX))?;
    let weights = weights.as_ref().map(|w| slice(w, "weights")).transpose()?;
    let sources = sources.as_u32("sources", u64::from(u32::MAX))?;
    let options = SearchOptions {
        run: run_options(backend)?,
        delta,
        ..SearchOptions::default()
    };
    let problem = match kind {
        "bfs" => Problem::Bfs,
        "sssp" => Problem::ShortestPaths,
        other => return Err(invalid(format!("unknown search {other:?} (bfs, sssp)"))),
    };
    let count = sources.len();
    let work = || {
        // Weights are whole numbers the caller holds as float64: the one array converted.
        let weights = weights.map(whole_weights).transpose()?;
        let graph = GraphView::from_csr(&offsets, &targets, weights.as_deref())?;
        // Every source's answer kept, as `bfs` and `sssp` do, with what is known of the
        // graph: here, whether it is symmetric.
        if directed {
            let input = SearchInput::from(graph).symmetric(symmetric);
            thicket_graph::search(input, problem, &sources, &options)
        } else {
            // Each arc both ways: an edge u-v of G[u, v] or G[v, u], the lighter where both
            // are arcs (the search merges parallel arcs into the lightest), as scipy reads an
            // undirected graph; symmetric by construction, so BFS needs no reverse.
            let both_ways = graph.symmetrised();
            let input = SearchInput::from(both_ways.view()).symmetric(true);
            thicket_graph::search(input, problem, &sources, &options)
        }
    };
    solve_anytime(py, work, |measured| {
        // A stopped run has searched the first sources, whose paths are kept in order.
        let paths = measured.output.paths;
        let shape = [paths.len(), measured.output.vertices];
        let distances = distance_rows(py, problem, shape, &paths)?;
        let value = if predecessors {
            let tree = predecessor_rows(py, shape, &paths)?;
            (distances, tree).into_pyobject(py)?.into_any()
        } else {
            distances
        };
        let finished: Vec<bool> = (0..count).map(|i| i < paths.len()).collect();
        Ok(Answer {
            value,
            finished: Some(PyArray1::from_vec(py, finished).into_any()),
        })
    })
}

/// scipy's mark of a vertex without a predecessor (the source, an unreached vertex).
pub const NO_PREDECESSOR: i64 = -9999;

/// Every source's predecessors as int64, one row a source ([`NO_PREDECESSOR`] where none).
fn predecessor_rows<'py>(
    py: Python<'py>,
    shape: [usize; 2],
    paths: &[SourcePaths],
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let parents: Vec<&[u32]> = paths.iter().map(|p| p.parents.as_slice()).collect();
    fill_rows(py, shape, &parents, |parent| match parent {
        thicket_graph::UNREACHED => NO_PREDECESSOR,
        v => i64::from(v),
    })
}

/// Every source's distances: int32 hop counts (-1 unreached) for BFS, float64 distances
/// (inf unreached) for shortest paths.
fn distance_rows<'py>(
    py: Python<'py>,
    problem: Problem,
    shape: [usize; 2],
    paths: &[SourcePaths],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match problem {
        Problem::Bfs => rows(
            py,
            shape,
            paths,
            |d| {
                if d == INFINITE {
                    -1
                } else {
                    d as i32
                }
            },
        )?
        .into_any(),
        Problem::ShortestPaths => rows(py, shape, paths, |d| {
            if d == INFINITE {
                f64::INFINITY
            } else {
                d as f64
            }
        })?
        .into_any(),
    })
}

/// One row per source of `shape`: each distance as `convert` has it.
fn rows<'py, T: numpy::Element + Send>(
    py: Python<'py>,
    shape: [usize; 2],
    paths: &[SourcePaths],
    convert: impl Fn(u64) -> T + Sync,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let distances: Vec<&[u64]> = paths.iter().map(|p| p.distances.as_slice()).collect();
    fill_rows(py, shape, &distances, convert)
}

/// One row per source of `shape` from `sources` (a row each), written straight into a new
/// numpy array, every row on a core of its own: each value as `convert` has it.
fn fill_rows<'py, S: Copy + Sync, T: numpy::Element + Send>(
    py: Python<'py>,
    shape: [usize; 2],
    sources: &[&[S]],
    convert: impl Fn(S) -> T + Sync,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    // SAFETY: every element is written below before the array is handed to Python.
    let array = unsafe { PyArray2::<T>::new(py, shape, false) };
    {
        // SAFETY: the array is new, C-contiguous and not shared with any other code yet.
        let values = unsafe { array.as_slice_mut() }
            .map_err(|_| invalid("the answer array is not contiguous".into()))?;
        py.detach(|| {
            values
                .par_chunks_mut(shape[1].max(1))
                .zip(sources)
                .for_each(|(row, source)| {
                    for (out, &value) in row.iter_mut().zip(source.iter()) {
                        *out = convert(value);
                    }
                });
        });
    }
    Ok(array)
}
