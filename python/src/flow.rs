//! `thicket.maxflow`: a maximum flow and a minimum cut.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use thicket_flow::{MaxflowOptions, Network};

use crate::arrays::{slice, Ints};
use crate::devices::{add_run_info, run_options};
use crate::errors::choice;
use crate::solve::solve;

/// A maximum flow from `source` to `sink` of the network of `n` vertices and the arcs
/// `tails[i] -> heads[i]` of capacity `capacities[i]`: a dict of `flow`, `flows` (int64 per
/// arc), `cut` (bool per vertex, the source side), `cut_arcs` (int64 arc indices), `verified`,
/// `strategy`.
#[pyfunction]
#[pyo3(signature = (n, tails, heads, capacities, source, sink, strategy, backend))]
#[allow(clippy::too_many_arguments)] // the network's arrays and the solve's keywords
pub fn maxflow<'py>(
    py: Python<'py>,
    n: u32,
    tails: Ints<'py>,
    heads: Ints<'py>,
    capacities: PyReadonlyArray1<'py, i64>,
    source: u32,
    sink: u32,
    strategy: Option<&str>,
    backend: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let limit = u64::from(u32::MAX);
    let (tails, heads) = (tails.as_u32("tails", limit)?, heads.as_u32("heads", limit)?);
    let capacities = slice(&capacities, "capacities")?;
    let options = MaxflowOptions {
        run: run_options(backend)?,
        strategy: strategy.map(choice).transpose()?,
        ..MaxflowOptions::default()
    };
    let measured = solve(py, || {
        let network = Network::from_arrays(n, &tails, &heads, capacities, source, sink)?;
        thicket_flow::maxflow(&network, &options)
    })?;
    let run = measured.output;
    let dict = PyDict::new(py);
    dict.set_item("flow", run.answer.value)?;
    // int64, the dtype of the capacities and of numpy's indices: a flow is at most its arc's
    // capacity (an int64), and arithmetic on uint64 with Python ints or int64 arrays turns
    // into float64 in numpy.
    let flows: Vec<i64> = run.answer.flows.iter().map(|&f| f as i64).collect();
    dict.set_item("flows", PyArray1::from_vec(py, flows))?;
    dict.set_item("cut", PyArray1::from_vec(py, run.answer.source_side))?;
    let cut_arcs: Vec<i64> = run.answer.cut_arcs.iter().map(|&a| a as i64).collect();
    dict.set_item("cut_arcs", PyArray1::from_vec(py, cut_arcs))?;
    dict.set_item("verified", run.answer.verified)?;
    dict.set_item("strategy", run.stats.strategy.name())?;
    add_run_info(&dict, &measured.info)?;
    Ok(dict)
}
