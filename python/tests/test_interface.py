"""What every function promises: borrowed arrays, docstrings, signatures, Ctrl-C."""

import inspect
import os
import signal
import threading
import time

import numpy as np
import pytest

import thicket_solve as thicket


def conversions():
    return thicket._conversions


def test_arrays_of_the_right_dtype_and_layout_are_not_copied():
    tails = np.array([0, 0, 1, 2], dtype=np.int64)
    heads = np.array([1, 2, 3, 3], dtype=np.int64)
    capacities = np.array([3, 2, 2, 3], dtype=np.int64)
    before = conversions()
    thicket.maxflow(4, tails, heads, capacities, 0, 3)
    indptr, indices = np.array([0, 2, 3, 4, 4], np.int32), np.array([1, 2, 2, 3], np.int32)
    weights = np.ones(4)
    thicket.sssp((indptr, indices, weights), np.array([0, 1], np.int64))
    thicket.schedule(np.ones((3, 2)), time_limit=0.1)
    thicket.atsp(np.ones((4, 4)))
    assert conversions() == before


def test_other_dtypes_and_layouts_are_converted_once():
    before = conversions()
    thicket.maxflow(4, [0, 0, 1, 2], [1, 2, 3, 3], [3, 2, 2, 3], 0, 3)
    assert conversions() == before + 3
    before = conversions()
    thicket.schedule(np.ones((2, 3)).T, time_limit=0.1)  # Fortran order
    assert conversions() == before + 1


def test_a_csr_graph_is_borrowed_and_other_formats_converted_once():
    sparse = pytest.importorskip("scipy.sparse")
    graph = sparse.csr_matrix(np.array([[0, 1, 0], [0, 0, 2], [3, 0, 0]], dtype=np.float64))
    before = conversions()
    thicket.sssp(graph, np.array([0], np.int64))
    assert conversions() == before
    thicket.sssp(graph.tocoo(), np.array([0], np.int64))
    thicket.sssp(graph.toarray(), np.array([0], np.int64))
    assert conversions() == before + 2


def test_the_fixed_signatures():
    keywords = {
        thicket.queens: ["backend"],
        thicket.lookback: [
            "call", "european", "dividend_yield", "observed_max", "observed_min", "greeks",
            "precision", "backend",
        ],
        thicket.binomial: [
            "call", "european", "dividend_yield", "tree", "greeks", "precision", "backend",
        ],
        thicket.implied_volatility: [
            "payoff", "strike", "european", "dividend_yield", "tree", "observed_max",
            "observed_min",
        ],
        thicket.price_book: ["dividend_yield", "greeks", "precision", "backend"],
        thicket.bfs: ["directed", "symmetric", "return_predecessors", "backend"],
        thicket.sssp: ["directed", "delta", "return_predecessors", "backend"],
        thicket.maxflow: ["strategy", "backend"],
        thicket.schedule: ["method", "time_limit", "seed", "backend"],
        thicket.atsp: ["time_limit", "backend"],
    }
    for function, names in keywords.items():
        parameters = inspect.signature(function).parameters.values()
        only = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
        assert only == names, function.__name__


def test_every_function_is_documented():
    for name in thicket.__all__:
        doc = getattr(thicket, name).__doc__
        assert doc and len(doc.splitlines()) > 3, name
    assert "int32" in thicket.bfs.__doc__ and "-1" in thicket.bfs.__doc__


def test_stubs_name_every_function():
    stubs = open(os.path.join(os.path.dirname(thicket.__file__), "__init__.pyi")).read()
    for name in thicket.__all__:
        assert f"def {name}(" in stubs or f"class {name}(" in stubs, name


def test_nothing_is_printed(capfd):
    thicket.queens(6)
    thicket.maxflow(2, [0], [1], [5], 0, 1)
    assert capfd.readouterr() == ("", "")


@pytest.mark.skipif(os.name != "posix", reason="SIGINT by os.kill")
def test_ctrl_c_stops_a_long_count_within_a_second():
    started = []

    def interrupt():
        time.sleep(0.5)
        started.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt).start()
    with pytest.raises(KeyboardInterrupt):
        thicket.queens(20, backend="cpu")  # minutes of work
    assert time.monotonic() - started[0] < 1.0


def test_other_threads_run_while_a_solver_runs():
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.monotonic()
    thicket.queens(15, backend="cpu")
    elapsed = time.monotonic() - started
    stop.set()
    ticker.join()
    # The ticker would stall for the whole count if the GIL were held.
    assert len(ticks) >= min(3, elapsed / 0.005 / 4)


def test_the_version_is_the_distributions():
    from importlib import metadata

    assert thicket.__version__ == metadata.version("thicket-solve")
