"""thicket's GPU/CPU solvers from numpy and scipy.

Every function runs its solver with the GIL released; Ctrl-C stops a long run at its next
check (between tasks, options, sources, search nodes, a lattice's layers: within half a
second) and raises ``KeyboardInterrupt``: :class:`Interrupted`, a subclass
carrying the answer so far, where the solver has one. Bad input raises ``ValueError`` with the one-line
message the ``thicket`` command prints; a missing or failing GPU (``backend="cuda"``) raises
``RuntimeError``. ``backend="auto"`` (the default) uses a GPU where one is usable and runs on
the CPU otherwise, saying why in the answer's ``notes``. Nothing is printed.

Arrays are borrowed without a copy where their dtype and layout are the ones the solver
reads (C-contiguous; the dtypes each function names), and converted once otherwise.
"""

from __future__ import annotations

from importlib import metadata as _metadata

import numpy as np

from . import _native

try:
    __version__ = _metadata.version("thicket-solve")
except _metadata.PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

__all__ = [
    "Interrupted",
    "devices",
    "queens",
    "lookback",
    "binomial",
    "implied_volatility",
    "price_book",
    "bfs",
    "sssp",
    "maxflow",
    "schedule",
    "atsp",
    "read_graph",
    "read_tsplib",
    "read_dimacs_flow",
]



class Interrupted(KeyboardInterrupt):
    """A call stopped by Ctrl-C, with the answer it had so far.

    Raised where a solver keeps a best answer while it runs: :func:`atsp` (its best tour and
    the lower bound proved so far), :func:`schedule` (its best schedule and the bound),
    :func:`price_book` (the options priced so far), :func:`bfs` and :func:`sssp` (the
    sources searched so far). The other calls (:func:`queens`, :func:`lookback`,
    :func:`binomial`, :func:`implied_volatility`, :func:`maxflow`) have no answer before
    their end and raise a plain ``KeyboardInterrupt``. A subclass of ``KeyboardInterrupt``,
    so ``except KeyboardInterrupt`` catches it as before; where a program's own SIGINT
    handler raises something else, that is raised instead, and where it raises nothing the
    call returns the answer so far.

    Attributes:
        partial: what the call would have returned, from the stopped run: the dict of
            :func:`atsp` or :func:`schedule` with ``stopped`` True; the array (or dict of
            arrays) of :func:`price_book`, NaN for the options not priced; the array (or
            tuple of arrays) of :func:`bfs` or :func:`sssp` with a row for each source
            searched, the first ``finished.sum()`` sources (no row for the others: they would
            cost the time and memory of a whole answer).
        finished: for :func:`price_book`, :func:`bfs` and :func:`sssp`, a bool array with
            one entry per option or source, True where it was priced or searched (the first
            ones); None for :func:`atsp` and :func:`schedule`.

    Example:
        >>> try:                                                    # doctest: +SKIP
        ...     result = atsp(costs)
        ... except Interrupted as stopped:
        ...     result = stopped.partial    # the best tour so far, result["stopped"] True
    """

    def __init__(self, message, partial, finished=None):
        super().__init__(message)
        self.partial = partial
        self.finished = finished

    def __reduce__(self):
        return type(self), (self.args[0], self.partial, self.finished)


# Arrays converted (copied) on the way in since the module was imported: the tests read it to
# check that arrays of the right dtype and layout are borrowed.
_conversions = 0

_INTEGER_KINDS = "iub"
_REAL_KINDS = "iubf"


def _array(value, name, dtype, kinds, ndim):
    """`value` as an aligned C-contiguous array of `dtype` with `ndim` dimensions, the same
    object where it already is one (no copy), converted once otherwise."""
    global _conversions
    array = np.asarray(value)
    if array.dtype.kind not in kinds:
        raise ValueError(
            f"invalid input: {name} has dtype {array.dtype}; it must hold "
            + ("integers" if kinds == _INTEGER_KINDS else "numbers")
        )
    if array.ndim != ndim:
        raise ValueError(
            f"invalid input: {name} has {array.ndim} dimensions (shape {array.shape}); "
            f"it must have {ndim}"
        )
    converted = np.require(array, dtype=dtype, requirements=["C_CONTIGUOUS", "ALIGNED"])
    if converted is not value:
        _conversions += 1
    return converted


def _ints(value, name, ndim=1):
    """An integer array as the native module borrows it: int32, int64, uint32 and uint64
    arrays as they are, anything else converted to int64."""
    if isinstance(value, np.ndarray) and value.dtype in (
        np.int32,
        np.int64,
        np.uint32,
        np.uint64,
    ):
        return _array(value, name, value.dtype, _INTEGER_KINDS, ndim)
    return _array(value, name, np.int64, _INTEGER_KINDS, ndim)


def _reals(value, name, ndim=1):
    """A float64 array, borrowed where `value` is one."""
    return _array(value, name, np.float64, _REAL_KINDS, ndim)


def devices():
    """The CUDA devices thicket's GPU solvers can use.

    Returns a list with one dict per device: ``ordinal``, ``name``, ``sms`` (streaming
    multiprocessors), ``memory`` (bytes), ``shared_memory_per_sm`` (bytes),
    ``compute_capability`` and ``driver_version`` as ``(major, minor)``. Empty where there is
    no NVIDIA driver, NVRTC or device.
    """
    return _native.devices()


def queens(n, *, backend="auto"):
    """Counts the placements of ``n`` non-attacking queens on an n x n board.

    Args:
        n: the board size, 1 to 32 (counts past about 20 take hours on a CPU).
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        dict: ``total`` (OEIS A000170), ``unique`` (distinct under rotations and
        reflections, A002562), ``seconds`` (wall time), ``backend`` (where it ran),
        ``notes``.
    """
    return _native.queens(_count(n, "n"), backend)


def _count(value, name):
    """A non-negative Python int from an int-like scalar."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"invalid input: {name} is {value!r}; it must be an integer")
    if value < 0:
        raise ValueError(f"invalid input: {name} is {value}; it must be at least 0")
    return int(value)


def _optional(value):
    """A float, or None where the keyword was left out."""
    return None if value is None else float(value)


def _price(
    payoff,
    style,
    spot,
    strike,
    maturity,
    volatility,
    rate,
    dividend_yield,
    steps,
    tree,
    observed_max,
    observed_min,
    greeks,
    precision,
    backend,
):
    if greeks not in ("basic", "all"):
        raise ValueError(f"invalid input: greeks is {greeks!r}; it must be 'basic' or 'all'")
    return _native.price_one(
        payoff,
        style,
        float(spot),
        _optional(strike),
        float(maturity),
        float(volatility),
        float(rate),
        float(dividend_yield),
        _count(steps, "steps"),
        tree,
        _optional(observed_max),
        _optional(observed_min),
        greeks == "all",
        precision,
        backend,
    )


def lookback(
    spot,
    maturity,
    volatility,
    rate,
    steps,
    *,
    call=False,
    european=False,
    dividend_yield=0.0,
    observed_max=None,
    observed_min=None,
    greeks="basic",
    precision="f64",
    backend="auto",
):
    """Prices a floating-strike lookback option on an N-step Cox-Ross-Rubinstein lattice.

    The put pays the running maximum of the stock (monitored at the lattice dates, from the
    spot, or from ``observed_max``) minus the stock; the call pays the stock minus its
    running minimum (from the spot, or from ``observed_min``).

    Args:
        spot: the stock price today (> 0).
        maturity: time to maturity in years (> 0).
        volatility: annual volatility, e.g. 0.4 for 40% (> 0).
        rate: continuously compounded risk-free rate per year, e.g. 0.1.
        steps: lattice steps N (1 to 100,000,000).
        call: the lookback call instead of the put.
        european: exercise at maturity only (default: American, at every step).
        dividend_yield: continuous dividend yield per year (default 0).
        observed_max: a put already alive: the running maximum of the stock observed so far
            (at or above the spot; None, the default: the spot, a put that starts today).
            Between two states of the lattice the price is interpolated linearly in log
            maximum. As ``thicket lookback --observed-max``.
        observed_min: a call (``call=True``) already alive: the running minimum observed so
            far (at or below the spot; None: the spot). As ``--observed-min``.
        greeks: ``"basic"`` (default): the sensitivities the lattice gives at no extra
            lattice (delta, gamma, theta); ``"all"`` adds vega and rho, which re-price four
            bumped lattices (five lattices instead of one).
        precision: ``"f64"`` or ``"f32"`` (the lattice's working precision).
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        dict: ``price``, ``delta`` (d price / d spot), ``gamma`` (d2 price / d spot2),
        ``theta`` (d price / d t, per year), ``vega`` (per unit of volatility) and ``rho``
        (per unit of rate), each a float (vega and rho NaN unless ``greeks="all"``, or where
        a bumped lattice is invalid); ``tree`` (``"crr"``) and ``observed_extreme`` (the
        running extreme priced from: ``observed_max``/``observed_min``, or the spot where
        neither is given), as ``thicket lookback --json`` has them; with ``seconds``,
        ``backend`` and ``notes``.
    """
    payoff = "lookback-call" if call else "lookback-put"
    style = "european" if european else "american"
    return _price(
        payoff,
        style,
        spot,
        None,
        maturity,
        volatility,
        rate,
        dividend_yield,
        steps,
        "crr",
        observed_max,
        observed_min,
        greeks,
        precision,
        backend,
    )


def binomial(
    spot,
    strike,
    maturity,
    volatility,
    rate,
    steps,
    *,
    call=False,
    european=False,
    dividend_yield=0.0,
    tree="crr",
    greeks="basic",
    precision="f64",
    backend="auto",
):
    """Prices a vanilla put (or call) on an N-step binomial lattice (Cox-Ross-Rubinstein by
    default).

    Args:
        spot: the stock price today (> 0).
        strike: the strike price (> 0).
        maturity: time to maturity in years (> 0).
        volatility: annual volatility, e.g. 0.2 for 20% (> 0).
        rate: continuously compounded risk-free rate per year.
        steps: lattice steps N (1 to 100,000,000).
        call: a call instead of a put.
        european: exercise at maturity only (default: American).
        dividend_yield: continuous dividend yield per year (default 0).
        tree: the lattice's tree: ``"crr"`` (Cox-Ross-Rubinstein, default),
            ``"jarrow-rudd"`` (risk-neutral p), ``"tian"`` (three moments matched) or
            ``"leisen-reimer"`` (Peizer-Pratt inversion, centred on the strike; odd
            ``steps`` only). As ``thicket binomial --tree``; docs/lattice.md defines each.
        greeks: ``"basic"`` (default) or ``"all"`` (as for :func:`lookback`).
        precision: ``"f64"`` or ``"f32"``.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        dict: ``price``, ``delta``, ``gamma``, ``theta``, ``vega`` and ``rho`` (as for
        :func:`lookback`), ``tree``, ``observed_extreme`` (None: a vanilla has none, as in
        ``thicket binomial --json``), with ``seconds``, ``backend`` and ``notes``.
    """
    payoff = "call" if call else "put"
    style = "european" if european else "american"
    return _price(
        payoff,
        style,
        spot,
        strike,
        maturity,
        volatility,
        rate,
        dividend_yield,
        steps,
        tree,
        None,
        None,
        greeks,
        precision,
        backend,
    )


def implied_volatility(
    price,
    spot,
    maturity,
    rate,
    steps,
    *,
    payoff="put",
    strike=None,
    european=False,
    dividend_yield=0.0,
    tree="crr",
    observed_max=None,
    observed_min=None,
):
    """The volatility at which an option's lattice price equals a quoted price.

    Brent's method on the f64 lattice of :func:`binomial` or :func:`lookback` (one thread,
    the CPU), over the volatilities whose lattice is valid up to 10 (1,000% a year), to 1e-10
    or better; as ``thicket implied-vol``.

    Args:
        price: the quoted price: above the option's lower no-arbitrage bound (0, its exercise
            today for an American, the forward part of its payoff) and below its upper one
            (the stock for a call, the strike for a put).
        spot: the stock price today (> 0).
        maturity: time to maturity in years (> 0).
        rate: continuously compounded risk-free rate per year.
        steps: lattice steps N.
        payoff: ``"put"`` (default), ``"call"``, ``"lookback-put"`` or ``"lookback-call"``.
        strike: the strike of a put or call (required for them; a lookback's floats, so it
            takes none).
        european: exercise at maturity only (default: American).
        dividend_yield: continuous dividend yield per year (default 0).
        tree: the tree of a put or call (as for :func:`binomial`; lookbacks are ``"crr"``).
        observed_max: a seasoned lookback put's running maximum (as for :func:`lookback`).
        observed_min: a seasoned lookback call's running minimum.

    Returns:
        float: the implied volatility (per year, 0.2 for 20%).

    Raises:
        ValueError: bad input, or a price no volatility gives, in the CLI's words: one at or
        past a no-arbitrage bound (naming the bound and its formula), or below the lowest
        volatility's lattice price (about the intrinsic value) or above the highest's.
    """
    return _native.implied_volatility(
        payoff,
        "european" if european else "american",
        float(price),
        float(spot),
        _optional(strike),
        float(maturity),
        float(rate),
        float(dividend_yield),
        _count(steps, "steps"),
        tree,
        _optional(observed_max),
        _optional(observed_min),
    )


def price_book(
    payoff,
    style,
    spot,
    strike,
    maturity,
    volatility,
    rate,
    steps,
    *,
    dividend_yield=0.0,
    greeks=False,
    precision="f64",
    backend="auto",
):
    """Prices a book of options in one call (on the GPU, a block per option).

    Every argument is a scalar or a 1-D array; they are broadcast together numpy-style.

    Args:
        payoff: ``"lookback-put"``, ``"lookback-call"``, ``"put"`` or ``"call"``: a name,
            a sequence or array of names, or an integer array of codes 0-3 in that order
            (the fastest for a large book of mixed payoffs).
        style: ``"american"`` or ``"european"``: a name, names, or codes 0-1 in that order.
        spot: stock prices today (> 0), float64.
        strike: strikes (> 0) of vanillas; ignored (NaN is fine) for lookbacks.
        maturity: times to maturity in years (> 0).
        volatility: annual volatilities (> 0).
        rate: continuously compounded risk-free rates per year.
        steps: lattice steps per option (integers, 1 to 100,000,000).
        dividend_yield: continuous dividend yields per year (default 0).
        greeks: return every sensitivity, not only prices (vega and rho re-price four bumped
            lattices an option, so this costs about five times the prices alone).
        precision: ``"f64"`` or ``"f32"``.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        numpy.ndarray: float64 prices, one per option; with ``greeks=True`` a dict of such
        arrays: ``price``, ``delta``, ``gamma``, ``theta``, ``vega`` and ``rho``.

    Raises:
        Interrupted: Ctrl-C stopped the book (``backend="cpu"``; a book on the GPU raises a
            plain ``KeyboardInterrupt``); its ``partial`` is the array (or dict of arrays)
            with the options priced so far, the first ones of the book, and NaN for the
            others; its ``finished`` says which were priced.
    """
    # Scalars, names and arrays of the dtypes read (float64, uint8 codes, int64 steps) are
    # read by the native module where they are; it hands anything else to _book_column.
    return _native.price_book(
        payoff,
        style,
        spot,
        strike,
        maturity,
        volatility,
        rate,
        dividend_yield,
        steps,
        bool(greeks),
        precision,
        backend,
        _book_column,
    )


# The payoffs and styles by name, with their codes in the native module's order.
_PAYOFFS = {"lookback-put": 0, "lookback-call": 1, "put": 2, "call": 3}
_STYLES = {"american": 0, "european": 1}


def _book_column(value, name):
    """A column of a book that the native module does not read where it is, converted once:
    payoffs and styles to uint8 codes, steps to int64, the numbers to float64; a 1-D array
    of one value or one per option."""
    if name == "payoff":
        return _codes(value, _PAYOFFS, name)
    if name == "style":
        return _codes(value, _STYLES, name)
    if name == "steps":
        if isinstance(value, (bool, np.bool_)):
            raise ValueError(f"invalid input: steps is {value!r}; it must be an integer")
        return _array(np.atleast_1d(value), name, np.int64, _INTEGER_KINDS, 1)
    return _reals(np.atleast_1d(value), name)


def _codes(value, codes, name):
    """A payoff or style column as uint8 codes: a sequence or array of names, or an integer
    array of codes (the order of `codes`); a single name is looked up by the native module."""
    array = np.asarray(value)
    if array.ndim > 1:
        raise ValueError(
            f"invalid input: {name} has shape {array.shape}; it must be a name or a 1-D array"
        )
    array = np.atleast_1d(array)
    if array.dtype.kind in "iu":
        if array.size and (array.min() < 0 or array.max() >= len(codes)):
            raise ValueError(
                f"invalid input: {name} codes must be 0..={len(codes) - 1} ({', '.join(codes)})"
            )
        return np.ascontiguousarray(array, dtype=np.uint8)
    if array.dtype.kind not in "USO":
        raise ValueError(f"invalid input: {name} has dtype {array.dtype}; it must hold names")
    # Each distinct name looked up once, the codes gathered in C.
    names, inverse = np.unique(array.astype(str), return_inverse=True)
    lookup = np.empty(len(names), dtype=np.uint8)
    for at, known in enumerate(names.tolist()):
        code = codes.get(known)
        if code is None:
            option = int(np.flatnonzero(inverse.reshape(-1) == at)[0])
            raise ValueError(
                f"invalid input: option {option + 1} of {array.size}: unknown {name} "
                f"{known!r} ({', '.join(codes)})"
            )
        lookup[at] = code
    return lookup[inverse.reshape(-1)]


def _square(shape):
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"invalid input: graph has shape {tuple(shape)}; it must be square")


def _is_sparse(graph):
    """Whether `graph` is a scipy.sparse matrix or array (of any format), told without
    importing scipy (the package does not depend on it)."""
    return hasattr(graph, "tocsr") and hasattr(graph, "format") and hasattr(graph, "shape")


def _csr(graph):
    """(indptr, indices, values or None) of a graph: a scipy.sparse matrix or array of any
    format (converted to CSR where it is another), a dense square array or numpy matrix (its
    non-zero finite entries are the arcs, as scipy.sparse.csgraph reads one), or a tuple
    (indptr, indices[, weights])."""
    global _conversions
    if isinstance(graph, tuple):
        if len(graph) in (2, 3):
            return graph[0], graph[1], graph[2] if len(graph) == 3 else None
    elif _is_sparse(graph):
        _square(graph.shape)
        if graph.format != "csr":
            graph = graph.tocsr()
            _conversions += 1
        return graph.indptr, graph.indices, graph.data
    else:
        dense = np.asarray(graph)
        if dense.ndim == 2:
            _square(dense.shape)
            if dense.dtype.kind not in _REAL_KINDS:
                raise ValueError(
                    f"invalid input: graph has dtype {dense.dtype}; it must hold numbers"
                )
            # scipy.sparse.csgraph's dense convention: 0, inf and NaN are no arc.
            arcs = (dense != 0) & np.isfinite(dense)
            # Flat positions in row order, so that the heads come out contiguous.
            at = np.flatnonzero(arcs)
            indptr = np.zeros(dense.shape[0] + 1, dtype=np.int64)
            np.cumsum(np.count_nonzero(arcs, axis=1), out=indptr[1:])
            _conversions += 1
            return indptr, at % dense.shape[1], dense.ravel()[at]
    raise ValueError(
        "invalid input: graph must be a scipy.sparse matrix or array (any format), a square "
        "numpy array, or a tuple (indptr, indices[, weights])"
    )


def _sources(sources):
    array = np.atleast_1d(sources)
    # An empty list is float64 to numpy: as no source at all (not the dtype of nothing).
    if array.size == 0 and array.dtype.kind not in _INTEGER_KINDS:
        array = array.astype(np.int64)
    return _ints(array, "sources")


def _no_search(indptr, dtype, predecessors):
    """The answer of a search from no source: no row, as numpy and scipy answer an empty
    input."""
    rows = np.empty((0, len(indptr) - 1), dtype=dtype)
    return (rows, np.empty(rows.shape, dtype=np.int64)) if predecessors else rows


def bfs(
    graph, sources, *, directed=True, symmetric=False, return_predecessors=False, backend="auto"
):
    """Breadth-first search from every source: hop counts.

    Args:
        graph: a graph as ``scipy.sparse.csgraph`` takes one: a scipy.sparse matrix or array
            of any format (CSR is read as it is, COO, CSC and the others converted to CSR
            once; the values are ignored, an explicitly stored 0 is an arc), a dense square
            numpy array or matrix (its non-zero finite entries are the arcs), or a tuple
            ``(indptr, indices[, weights])`` of CSR integer arrays (int32 or int64 are
            borrowed as they are). Row u's columns are the arcs u -> v.
        sources: a vertex id or a sequence of them (at least one).
        directed: False reads every arc both ways, as ``scipy.sparse.csgraph``'s
            ``directed=False``: an upper-triangular graph reaches every vertex of its
            component. Default True.
        symmetric: the graph is symmetric (every arc u -> v has its v -> u: an undirected
            graph stored both ways), as the caller knows. The search then reads the graph as
            its own reverse instead of building the reverse (the direction-optimizing BFS
            needs every vertex's in-arcs), which on a large graph costs more than the
            search. Answers are wrong if the graph is not symmetric; default False.
            ``directed=False`` implies it.
        return_predecessors: also return each vertex's predecessor on a shortest path, as
            ``scipy.sparse.csgraph`` does.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        numpy.ndarray: int32 hop counts of shape (len(sources), n), -1 where a vertex is
        unreachable; with ``return_predecessors=True`` a tuple of those and an int64 array
        of the same shape, each vertex's predecessor (-9999 for the source and unreached
        vertices, scipy's mark).

    Example:
        >>> import scipy.sparse as sp
        >>> hops, tree = bfs(sp.csr_matrix(([1, 1], ([0, 1], [1, 2])), shape=(3, 3)), 0,
        ...                  return_predecessors=True)
        >>> hops.tolist(), tree.tolist()
        ([[0, 1, 2]], [[-9999, 0, 1]])

    Raises:
        Interrupted: Ctrl-C stopped the searches; its ``partial`` holds the rows of the
            sources searched so far, the first ones (shape (searched, n)), and its
            ``finished`` says which.
    """
    indptr, indices, _weights = _csr(graph)
    sources = _sources(sources)
    if len(sources) == 0:
        return _no_search(indptr, np.int32, return_predecessors)
    return _native.search(
        "bfs",
        _ints(indptr, "indptr"),
        _ints(indices, "indices"),
        None,
        sources,
        None,
        bool(directed),
        bool(symmetric),
        bool(return_predecessors),
        backend,
    )


def sssp(graph, sources, *, directed=True, delta=None, return_predecessors=False, backend="auto"):
    """Single-source shortest paths from every source (delta-stepping).

    Args:
        graph: a graph as for :func:`bfs` whose values are the arc weights (a tuple
            ``(indptr, indices, weights)``; one without weights gives every arc weight 1);
            weights are whole numbers 0 to 4,294,967,295 (float64 borrowed; negative
            weights are refused).
        sources: a vertex id or a sequence of them (at least one).
        directed: False reads every arc both ways, as ``scipy.sparse.csgraph``'s
            ``directed=False``: the edge u-v weighs the lesser of ``graph[u, v]`` and
            ``graph[v, u]`` where both are arcs. Default True.
        delta: delta-stepping's bucket width (a positive integer); None picks it from the
            weights.
        return_predecessors: also return each vertex's predecessor on a shortest path (int64,
            -9999 where none), as ``scipy.sparse.csgraph`` does.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        numpy.ndarray: float64 distances of shape (len(sources), n), inf where a vertex is
        unreachable; with ``return_predecessors=True`` a tuple of those and the predecessors.

    Raises:
        Interrupted: Ctrl-C stopped the searches; its ``partial`` holds the rows of the
            sources searched so far, the first ones (shape (searched, n)), and its
            ``finished`` says which.
    """
    indptr, indices, weights = _csr(graph)
    sources = _sources(sources)
    if len(sources) == 0:
        return _no_search(indptr, np.float64, return_predecessors)
    if weights is not None:
        weights = _reals(weights, "weights")
    if delta is not None:
        delta = _count(delta, "delta")
    return _native.search(
        "sssp",
        _ints(indptr, "indptr"),
        _ints(indices, "indices"),
        weights,
        sources,
        delta,
        bool(directed),
        False,
        bool(return_predecessors),
        backend,
    )


def _is_matrix(value):
    """Whether `value` is a capacity matrix (scipy.sparse, or a 2-D numpy array or matrix)
    rather than the number of vertices."""
    return _is_sparse(value) or (isinstance(value, np.ndarray) and value.ndim == 2)


def maxflow(
    n,
    tails=None,
    heads=None,
    capacities=None,
    source=None,
    sink=None,
    *,
    strategy=None,
    backend="auto",
):
    """A maximum flow and a minimum cut, checked by the min-cut certificate.

    Two forms: ``maxflow(n, tails, heads, capacities, source, sink)``, a network given as its
    arcs, and ``maxflow(graph, source, sink)``, a capacity matrix as
    ``scipy.sparse.csgraph.maximum_flow(graph, source, sink)`` takes one.

    Args:
        n: the number of vertices; or, in the second form, the capacity matrix: a
            scipy.sparse matrix or array of any format (each stored entry an arc, an
            explicit 0 one of capacity 0) or a dense square integer array (its non-zero
            entries the arcs), converted to CSR; its entries are the arcs, row by row.
        tails: the arcs' tail vertices (integers; uint32 is borrowed as it is); the source
            in the second form.
        heads: the arcs' head vertices; the sink in the second form.
        capacities: the arcs' capacities (non-negative integers; int64 is borrowed).
        source: the source vertex.
        sink: the sink vertex.
        strategy: ``None`` (the backend's default), ``"push-relabel"``, ``"mpm-serial"``
            or a GPU strategy (``"mpm"``, ``"mpm-active"``, ``"mpm-scan"``,
            ``"push-relabel-gpu"``).
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        dict: ``flow`` (int), ``flows`` (int64 per arc, in input order; of a matrix, in the
        order of its CSR entries, so ``csr_matrix((flows, csr.indices, csr.indptr))`` is the
        flow matrix), ``cut`` (bool per vertex: the source side of a minimum cut),
        ``cut_arcs`` (int64 indices of the arcs across it), ``verified``, ``strategy``,
        ``seconds``, ``backend``, ``notes``.
    """
    if _is_matrix(n):
        # maxflow(graph, s, t) fills tails and heads; maxflow(graph, source=s, sink=t) names
        # them, as scipy's maximum_flow(csgraph, source, sink) may be called.
        twice = (tails is not None and source is not None) or (
            heads is not None and sink is not None
        )
        if capacities is not None or twice:
            raise ValueError(
                "invalid input: a capacity matrix takes maxflow(graph, source, sink); "
                "tails, heads and capacities are for maxflow(n, tails, heads, capacities, "
                "source, sink)"
            )
        source = tails if source is None else source
        sink = heads if sink is None else sink
        if source is None or sink is None:
            raise ValueError(
                "invalid input: maxflow(graph, source, sink) needs the source and the sink"
            )
        graph = n
        indptr, indices, capacities = _csr(graph)
        n = len(indptr) - 1
        tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        heads = indices
    elif any(v is None for v in (tails, heads, capacities, source, sink)):
        raise ValueError(
            "invalid input: maxflow takes (n, tails, heads, capacities, source, sink), or a "
            "capacity matrix (graph, source, sink)"
        )
    tails = _ints(tails, "tails")
    heads = _ints(heads, "heads")
    capacities = _array(capacities, "capacities", np.int64, _INTEGER_KINDS, 1)
    return _native.maxflow(
        _count(n, "n"),
        tails,
        heads,
        capacities,
        _count(source, "source"),
        _count(sink, "sink"),
        strategy,
        backend,
    )


def schedule(etc, *, method="lp-ils", time_limit=10.0, seed=1, backend="auto"):
    """Assigns independent tasks to heterogeneous machines, minimising the makespan.

    Args:
        etc: a (tasks, machines) float64 array: row t holds task t's time on each machine
            (borrowed where it is float64 and C-contiguous).
        method: ``"lp-ils"`` (the LP bound and an iterated local search, default), ``"ils"``,
            a list heuristic (``"min-min"``, ``"max-min"``, ``"sufferage"``, ``"mct"``,
            ``"met"``, ``"olb"``, ``"fcfs"``) or a particle swarm (``"pso"``, ``"mspso"``).
        time_limit: seconds the search may run.
        seed: seed of the randomised methods.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        dict: ``makespan``, ``assignment`` (uint32 machine per task), ``lower_bound`` (no
        schedule is shorter), ``gap`` ((makespan - lower_bound) / makespan, a fraction as
        :func:`atsp`'s; 0 once the bound is reached), ``method``, ``stopped`` (True only in
        :class:`Interrupted`'s ``partial``), ``seconds``, ``backend``, ``notes``.

    Raises:
        Interrupted: Ctrl-C stopped the search; its ``partial`` is this dict with the best
            schedule found so far, the bound proven so far and ``stopped`` True.
    """
    return _native.schedule(
        _reals(etc, "etc", ndim=2),
        method,
        float(time_limit),
        _count(seed, "seed"),
        backend,
    )


def atsp(distances, *, time_limit=None, backend="auto"):
    """The cheapest tour of an asymmetric travelling salesman instance, proven optimal, or
    the best one found within a time limit with a proven lower bound.

    Args:
        distances: a square (n, n) array; row i holds the cost of each arc from city i,
            whole numbers (the diagonal is ignored). float64 is borrowed as it is.
        time_limit: seconds the search may run (None: until the tour is proven optimal).
            A search stopped by it returns its best tour, ``proven_optimal`` False and the
            lower bound it proved.
        backend: ``"auto"`` or ``"cpu"`` (Held-Karp bound, every core), or ``"cuda"``
            (the thesis's GPU strategy).

    Returns:
        dict: ``cost``, ``tour`` (int64 cities from city 0), ``proven_optimal``,
        ``lower_bound`` (no tour costs less; the cost when proven), ``gap`` ((cost -
        lower_bound) / cost), ``nodes``, ``stopped`` (True only in :class:`Interrupted`'s
        ``partial``), ``seconds``, ``backend``, ``notes``.

    Raises:
        Interrupted: Ctrl-C stopped the search (``backend="cpu"``; a GPU search raises a
            plain ``KeyboardInterrupt``); its ``partial`` is this dict with the best tour
            found so far, the lower bound proven so far and ``stopped`` True.
    """
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.number)):
            raise ValueError(
                f"invalid input: time_limit is {time_limit!r}; it must be a number of seconds"
            )
        time_limit = float(time_limit)
    matrix = _reals(distances, "distances", ndim=2)
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"invalid input: distances has shape {matrix.shape}; it must be square")
    return _native.atsp(matrix, time_limit, backend)


def read_graph(path, *, format=None, return_ids=False):
    """Reads a graph file as ``thicket bfs FILE`` reads it, into a scipy CSR matrix.

    Every format the command line reads: DIMACS ``.gr``, edge lists ``.el``/``.wel``, SNAP
    ``.txt`` (any ids), Matrix Market ``.mtx``, GAPBS ``.sg``/``.wsg``, thicket's ``.tgr``,
    any of them gzipped; with the same bounds and one-line errors (``ValueError`` naming file
    and line). Needs scipy.

    Args:
        path: the file (a str or path-like; ``"-"`` reads standard input).
        format: ``"gr"``, ``"el"``, ``"wel"``, ``"txt"``, ``"mtx"``, ``"sg"``, ``"wsg"`` or
            ``"tgr"``; None (default) goes by the extension.
        return_ids: also return each vertex's id in the file.

    Returns:
        scipy.sparse.csr_matrix: n x n, row u's columns the arcs u -> v, float64 weights (1
        where the file has none), vertices numbered from 0; with ``return_ids=True`` a tuple
        of it and a list of the file's ids (ints, or bytes for SNAP names: compared as the
        file's bytes), so that ``ids[v]`` is what the file calls vertex v.

    Example:
        >>> graph = read_graph("crates/thicket-graph/data/gapbs-4.gr")   # doctest: +SKIP
        >>> bfs(graph, 0)                                                  # doctest: +SKIP
    """
    import scipy.sparse

    n, indptr, indices, weights, first_id, _symmetric, ids = _native.read_graph(
        _path(path), format
    )
    data = weights if weights is not None else np.ones(len(indices))
    graph = scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))
    if not return_ids:
        return graph
    return graph, ids if ids is not None else list(range(first_id, first_id + n))


def read_tsplib(path):
    """Reads a TSPLIB ATSP file (``.atsp``, explicit full matrix) as ``thicket atsp FILE``
    does, for :func:`atsp`.

    Args:
        path: the file (a str or path-like).

    Returns:
        tuple: the instance's ``NAME`` and its (n, n) int64 cost matrix (0 on the diagonal).

    Example:
        >>> name, costs = read_tsplib("crates/thicket-atsp/data/br17.atsp")  # doctest: +SKIP
        >>> atsp(costs)["cost"]                                                # doctest: +SKIP
        39
    """
    return _native.read_tsplib(_path(path))


def read_dimacs_flow(path):
    """Reads a DIMACS max-flow file (``.max``) as ``thicket maxflow FILE`` does, into the
    arguments of :func:`maxflow`.

    Args:
        path: the file (a str or path-like).

    Returns:
        tuple: ``(n, tails, heads, capacities, source, sink)``, the arcs as int64 arrays with
        0-based vertices, so that ``maxflow(*read_dimacs_flow(path))`` solves it.
    """
    return _native.read_dimacs_flow(_path(path))


def _path(path):
    """A file path as a str, from a str or any path-like."""
    import os

    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ValueError(f"invalid input: path is {path!r}; it must be a file path")
    return os.fsdecode(path)
