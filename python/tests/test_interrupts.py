"""Ctrl-C (SIGINT) stops every long call within half a second of the signal, and the next
call runs as usual. A solver with an answer so far raises ``thicket.Interrupted`` carrying
it (checked here for sense: a valid tour under its bound, a valid schedule, priced options
and searched sources that are those of a whole run); the others raise a plain
``KeyboardInterrupt``. Each call is made long on purpose (seconds to minutes on a CPU) and
interrupted a fraction of a second in; one that ends before its Ctrl-C on a fast machine is
skipped."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import thicket_solve as thicket

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT by os.kill")

AFTER = 0.3
# Seconds from the signal to the exception: the solver's next check and its way out.
PROMPT = 0.5
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def interrupted(call, after=AFTER):
    """The exception `call` raised on a Ctrl-C sent `after` seconds into it, and the seconds
    from the signal to the exception."""
    sent = []

    def ctrl_c():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, ctrl_c)
    timer.start()
    try:
        call()
    except KeyboardInterrupt as error:
        ended = time.monotonic()
        timer.join()
        return error, ended - sent[0]
    finally:
        timer.cancel()
        timer.join()
    pytest.skip("the call ended before its Ctrl-C on this machine")


def plainly_interrupted(call, after=AFTER):
    """Seconds from the Ctrl-C to `call`'s KeyboardInterrupt, which carries no answer."""
    error, seconds = interrupted(call, after)
    assert type(error) is KeyboardInterrupt
    return seconds


def random_graph(n, m, seed, weighted=False):
    """(indptr, indices[, weights]) of m random arcs on n vertices, in CSR order."""
    rng = np.random.default_rng(seed)
    tails = np.sort(rng.integers(0, n, m))
    heads = rng.integers(0, n, m).astype(np.uint32)
    indptr = np.searchsorted(tails, np.arange(n + 1)).astype(np.int64)
    if weighted:
        return indptr, heads, rng.integers(1, 100, m).astype(np.float64)
    return indptr, heads


def test_interrupted_is_a_keyboard_interrupt_with_the_answer():
    assert issubclass(thicket.Interrupted, KeyboardInterrupt)
    error = thicket.Interrupted("stopped", {"stopped": True}, None)
    assert error.partial == {"stopped": True} and error.finished is None
    assert "partial" in thicket.Interrupted.__doc__


def test_a_queens_count():
    assert plainly_interrupted(lambda: thicket.queens(18, backend="cpu")) < PROMPT
    assert thicket.queens(8, backend="cpu")["total"] == 92


def test_a_single_lattice():
    # Five lattices of 50,000 steps (greeks="all"): seconds on 2 cores.
    price = lambda: thicket.binomial(100, 100, 1.0, 0.2, 0.05, 50_000, greeks="all", backend="cpu")  # noqa: E731
    assert plainly_interrupted(price) < PROMPT


def test_an_implied_volatility():
    # Brent's search on 8,000-step lattices: tens of lattices, seconds on one core.
    search = lambda: thicket.implied_volatility(9.5, 100, 1.0, 0.05, 8000, strike=100)  # noqa: E731
    assert plainly_interrupted(search) < PROMPT


def book(spot, **keywords):
    return thicket.price_book("put", "american", spot, 100.0, 1.0, 0.25, 0.05, 4000, backend="cpu", **keywords)


@pytest.mark.parametrize("greeks", [False, True])
def test_a_book_returns_its_first_options_priced(greeks):
    spot = np.linspace(80, 120, 40_000)  # 40,000 lattices of 4,000 steps: minutes on 2 cores
    error, seconds = interrupted(lambda: book(spot, greeks=greeks), after=0.6)
    assert seconds < PROMPT
    assert isinstance(error, thicket.Interrupted)
    finished = error.finished
    assert finished.dtype == np.bool_ and finished.shape == spot.shape
    done = int(finished.sum())
    assert finished[:done].all() and not finished[done:].any()  # the first options
    partial = error.partial["price"] if greeks else error.partial
    assert partial.shape == spot.shape
    assert np.isnan(partial[done:]).all()
    # The options priced are priced as a whole run prices them.
    whole = book(spot[:done], greeks=greeks)
    np.testing.assert_array_equal(partial[:done], whole["price"] if greeks else whole)
    if greeks:
        assert set(error.partial) == {"price", "delta", "gamma", "theta", "vega", "rho"}


def check_searched_rows(search, graph, sources):
    error, seconds = interrupted(lambda: search(graph, sources, backend="cpu"), after=1.0)
    assert seconds < PROMPT
    assert isinstance(error, thicket.Interrupted)
    finished = error.finished
    assert finished.shape == sources.shape
    done = int(finished.sum())
    assert finished[:done].all() and not finished[done:].any()  # the first sources
    assert 0 < done < len(sources)
    rows = error.partial  # a row for each source searched, none for the others
    assert rows.shape == (done, len(graph[0]) - 1)
    np.testing.assert_array_equal(rows, search(graph, sources[:done], backend="cpu"))


def test_searches_from_many_sources_return_the_sources_searched():
    # 500 searches of some milliseconds to tens of milliseconds each, after a build of the
    # graph's simple form and reverse (not interrupted) of some tenths of a second: Ctrl-C
    # comes 1 s in.
    dense = random_graph(100_000, 2_000_000, 2)
    check_searched_rows(thicket.bfs, dense, np.arange(0, 100_000, 200))
    weighted = random_graph(100_000, 300_000, 3, weighted=True)
    check_searched_rows(thicket.sssp, weighted, np.arange(0, 100_000, 200))
    assert thicket.bfs(dense, 0, backend="cpu")[0, 0] == 0


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
    assert plainly_interrupted(flow, after=1.0) < PROMPT


ETC = np.random.default_rng(1).uniform(1, 100, size=(400, 16))


def long_schedule():
    return thicket.schedule(ETC, time_limit=60.0, backend="cpu")


def check_schedule(answer):
    assert answer["stopped"] is True
    assignment = answer["assignment"]
    assert assignment.shape == (400,) and assignment.max() < 16
    loads = np.bincount(assignment, weights=ETC[np.arange(400), assignment], minlength=16)
    assert loads.max() == pytest.approx(answer["makespan"], rel=1e-9)
    assert 0 < answer["lower_bound"] <= answer["makespan"] * (1 + 1e-9)
    gap = (answer["makespan"] - answer["lower_bound"]) / answer["makespan"]
    assert answer["gap"] == pytest.approx(max(gap, 0.0), abs=1e-12)


def test_a_schedule_returns_its_best_schedule():
    error, seconds = interrupted(long_schedule)
    assert seconds < PROMPT
    assert isinstance(error, thicket.Interrupted) and error.finished is None
    check_schedule(error.partial)


def test_an_atsp_returns_its_best_tour_and_bound():
    # TSPLIB's ftv170 takes tens of seconds to prove on 2 cores; its subtour search watches
    # the stop flag between nodes, as it watches its deadline.
    _, costs = thicket.read_tsplib(os.path.join(ROOT, "crates", "thicket-atsp", "data", "ftv170.atsp"))
    error, seconds = interrupted(lambda: thicket.atsp(costs, backend="cpu"), after=1.0)
    assert seconds < PROMPT
    assert isinstance(error, thicket.Interrupted) and error.finished is None
    answer = error.partial
    assert answer["stopped"] is True and answer["proven_optimal"] is False
    tour = answer["tour"]
    assert tour[0] == 0 and sorted(tour.tolist()) == list(range(len(costs)))
    assert answer["cost"] == costs[tour, np.roll(tour, -1)].sum()
    assert 0 < answer["lower_bound"] <= answer["cost"]
    assert answer["lower_bound_source"] in ("search", "assignment", "one-tree")
    assert answer["gap"] == pytest.approx((answer["cost"] - answer["lower_bound"]) / answer["cost"])
    # ftv170's optimum (TSPLIB) lies between the bound and the tour.
    assert answer["lower_bound"] <= 2755 <= answer["cost"]


def test_a_handler_of_the_program_keeps_its_own_way():
    class Stop(Exception):
        pass

    def raise_stop(signum, frame):
        raise Stop

    previous = signal.signal(signal.SIGINT, raise_stop)
    try:
        timer = threading.Timer(AFTER, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(Stop):
            long_schedule()
        timer.join()
        # A handler that raises nothing: the call returns its answer so far.
        signal.signal(signal.SIGINT, lambda signum, frame: None)
        timer = threading.Timer(AFTER, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        answer = long_schedule()
        timer.join()
        assert time.monotonic() - started < AFTER + PROMPT
        check_schedule(answer)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_whole_answer_is_not_stopped():
    answer = thicket.schedule(np.ones((3, 2)), time_limit=0.1)
    assert answer["stopped"] is False
    assert thicket.atsp(np.array([[0, 1, 2], [2, 0, 1], [1, 2, 0]]))["stopped"] is False


def test_a_call_from_another_thread_is_not_watched():
    answers = []
    worker = threading.Thread(target=lambda: answers.append(thicket.queens(8, backend="cpu")))
    worker.start()
    worker.join()
    assert answers[0]["total"] == 92
