"""Ctrl-C (SIGINT) stops every long call within a second with KeyboardInterrupt, and the
next call runs as usual. Each call is made long on purpose (seconds to minutes on a CPU) and
interrupted 0.3 s in; one that ends before its Ctrl-C on a fast machine is skipped."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import thicket_solve as thicket

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT by os.kill")

AFTER = 0.3


def seconds_to_stop(call, after=AFTER):
    """Seconds from the Ctrl-C sent `after` seconds into `call` to its KeyboardInterrupt."""
    timer = threading.Timer(after, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        return time.monotonic() - started - after
    finally:
        timer.cancel()
        timer.join()
    pytest.skip("the call ended before its Ctrl-C on this machine")


def random_graph(n, m, seed, weighted=False):
    """(indptr, indices[, weights]) of m random arcs on n vertices, in CSR order."""
    rng = np.random.default_rng(seed)
    tails = np.sort(rng.integers(0, n, m))
    heads = rng.integers(0, n, m).astype(np.uint32)
    indptr = np.searchsorted(tails, np.arange(n + 1)).astype(np.int64)
    if weighted:
        return indptr, heads, rng.integers(1, 100, m).astype(np.float64)
    return indptr, heads


def test_a_book():
    spot = np.linspace(80, 120, 4000)  # 4,000 lattices of 20,000 steps: minutes on 2 cores
    book = lambda: thicket.price_book("put", "american", spot, 100.0, 1.0, 0.25, 0.05, 20000, backend="cpu")  # noqa: E731
    assert seconds_to_stop(book) < 1.0
    # The next call is not stopped by the last one's Ctrl-C.
    assert thicket.price_book("put", "american", 100.0, 100.0, 1.0, 0.25, 0.05, 10).shape == (1,)


def test_a_schedule():
    etc = np.random.default_rng(1).uniform(1, 100, size=(400, 16))
    search = lambda: thicket.schedule(etc, method="ils", time_limit=60.0, backend="cpu")  # noqa: E731
    assert seconds_to_stop(search) < 1.0


def test_searches_from_many_sources():
    graph = random_graph(400_000, 2_000_000, 2, weighted=True)
    sources = np.arange(0, 400_000, 1000)  # 400 searches
    assert seconds_to_stop(lambda: thicket.bfs(graph[:2], sources, backend="cpu")) < 1.0
    assert seconds_to_stop(lambda: thicket.sssp(graph, sources, backend="cpu")) < 1.0
    assert thicket.bfs(graph[:2], 0, backend="cpu")[0, 0] == 0


def test_a_max_flow():
    # Random arcs between 200,000 vertices, and 50,000 wide arcs out of the source and into
    # the sink: much flow to push (seconds on 2 cores). Ctrl-C comes once the network is
    # built (its arrays are read and checked in one pass that is not interrupted).
    n, m, k = 200_000, 1_000_000, 50_000
    rng = np.random.default_rng(3)
    hubs = rng.integers(2, n, (2, k)).astype(np.uint32)
    tails = np.concatenate([rng.integers(2, n, m).astype(np.uint32), np.zeros(k, np.uint32), hubs[1]])
    heads = np.concatenate([rng.integers(2, n, m).astype(np.uint32), hubs[0], np.ones(k, np.uint32)])
    capacities = np.concatenate([rng.integers(1, 1000, m), np.full(2 * k, 10**6)]).astype(np.int64)
    flow = lambda: thicket.maxflow(n, tails, heads, capacities, 0, 1, backend="cpu")  # noqa: E731
    assert seconds_to_stop(flow, after=1.0) < 1.0


def test_an_atsp():
    # TSPLIB's ftv170 takes tens of seconds to prove on 2 cores; its subtour search watches
    # the stop flag between nodes, as it watches its deadline.
    path = os.path.join(os.path.dirname(__file__), "..", "..", "crates", "thicket-atsp", "data", "ftv170.atsp")
    _, costs = thicket.read_tsplib(path)
    assert seconds_to_stop(lambda: thicket.atsp(costs, backend="cpu"), after=1.0) < 1.0


def test_a_call_from_another_thread_is_not_watched():
    answers = []
    worker = threading.Thread(target=lambda: answers.append(thicket.queens(8, backend="cpu")))
    worker.start()
    worker.join()
    assert answers[0]["total"] == 92
