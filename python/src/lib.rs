//! `thicket_solve._native`: the solver libraries' front doors for Python. The `thicket_solve`
//! package (`python/thicket_solve/__init__.py`) normalises the arguments (scipy matrices, scalars, dtypes,
//! broadcasting) and calls these functions with arrays of the dtypes they borrow; every solve
//! runs on the calling thread with the GIL released and stops on Ctrl-C ([`solve::solve`]).

use pyo3::prelude::*;

mod arrays;
mod atsp;
mod book;
mod devices;
mod errors;
mod flow;
mod graph;
mod lattice;
mod queens;
mod readers;
mod schedule;
mod solve;

/// The native module: one function per solver, called by the `thicket` package.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    solve::remember_main_thread(module.py())?;
    module.add_function(wrap_pyfunction!(devices::devices, module)?)?;
    module.add_function(wrap_pyfunction!(queens::queens, module)?)?;
    module.add_function(wrap_pyfunction!(lattice::price_one, module)?)?;
    module.add_function(wrap_pyfunction!(lattice::implied_volatility, module)?)?;
    module.add_function(wrap_pyfunction!(book::price_book, module)?)?;
    module.add_function(wrap_pyfunction!(graph::search, module)?)?;
    module.add_function(wrap_pyfunction!(flow::maxflow, module)?)?;
    module.add_function(wrap_pyfunction!(schedule::schedule, module)?)?;
    module.add_function(wrap_pyfunction!(atsp::atsp, module)?)?;
    module.add_function(wrap_pyfunction!(readers::read_graph, module)?)?;
    module.add_function(wrap_pyfunction!(readers::read_tsplib, module)?)?;
    module.add_function(wrap_pyfunction!(readers::read_dimacs_flow, module)?)?;
    Ok(())
}
