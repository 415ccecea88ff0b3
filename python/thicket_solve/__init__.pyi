"""Type stubs of the thicket package (docs/python.md has the documentation)."""

import os
from typing import Any, Literal, Optional, Sequence, Tuple, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

Backend = Literal["auto", "cpu", "cuda"]
Precision = Literal["f64", "f32"]
Payoff = Literal["lookback-put", "lookback-call", "put", "call"]
Style = Literal["american", "european"]

__version__: str

class RunInfo(TypedDict):
    """What every answer carries about its run."""

    seconds: float
    backend: str
    devices: list[str]
    notes: list[str]

class Device(TypedDict):
    """One GPU as :func:`devices` lists it."""

    ordinal: int
    name: str
    sms: int
    memory: int
    shared_memory_per_sm: int
    compute_capability: Tuple[int, int]
    driver_version: Tuple[int, int]

class QueensResult(RunInfo):
    n: int
    total: int
    unique: int

class PriceResult(RunInfo):
    """Price and sensitivities; vega and rho NaN unless ``greeks="all"``. ``tree`` and
    ``observed_extreme`` (a lookback's running extreme priced from, the spot where none was
    given; None for a vanilla) as the CLI's ``--json``."""

    price: float
    delta: float
    gamma: float
    theta: float
    vega: float
    rho: float
    tree: str
    observed_extreme: Optional[float]

class MaxflowResult(RunInfo):
    flow: int
    flows: npt.NDArray[np.int64]
    cut: npt.NDArray[np.bool_]
    cut_arcs: npt.NDArray[np.int64]
    verified: bool
    strategy: str

class ScheduleResult(RunInfo):
    """``gap``: (makespan - lower_bound) / makespan, a fraction. ``stopped``: True only in
    :class:`Interrupted`'s ``partial`` (the best schedule when Ctrl-C came)."""

    makespan: float
    assignment: npt.NDArray[np.uint32]
    lower_bound: float
    gap: float
    method: str
    stopped: bool

class AtspResult(RunInfo):
    """``gap``: (cost - lower_bound) / cost, a fraction. ``stopped``: True only in
    :class:`Interrupted`'s ``partial`` (the best tour when Ctrl-C came)."""

    cost: int
    tour: npt.NDArray[np.int64]
    proven_optimal: bool
    lower_bound: int
    lower_bound_source: Literal["optimal", "search", "assignment", "one-tree"]
    gap: float
    nodes: int
    stopped: bool

class Interrupted(KeyboardInterrupt):
    """A call stopped by Ctrl-C, with the answer it had so far (:func:`atsp`,
    :func:`schedule`, :func:`price_book`, :func:`bfs`, :func:`sssp`); the other calls raise
    a plain ``KeyboardInterrupt``."""

    partial: Any
    """What the call would have returned, from the stopped run (:func:`bfs` and
    :func:`sssp`: the rows of the sources searched, the first ones)."""
    finished: Optional[npt.NDArray[np.bool_]]
    """Which options (:func:`price_book`) or sources (:func:`bfs`, :func:`sssp`) were
    finished; None for :func:`atsp` and :func:`schedule`, whose ``partial["stopped"]`` is
    True."""
    def __init__(
        self, message: str, partial: Any, finished: Optional[npt.NDArray[np.bool_]] = None
    ) -> None: ...

Tree = Literal["crr", "jarrow-rudd", "tian", "leisen-reimer"]
IntArray = Union[int, Sequence[int], npt.NDArray[np.integer]]
RealArray = Union[float, Sequence[float], npt.NDArray[np.floating]]
# A scipy.sparse matrix or array of any format, a dense square array, or
# (indptr, indices[, weights]).
Graph = Union[Any, Tuple[npt.ArrayLike, npt.ArrayLike], Tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike]]

def devices() -> list[Device]: ...
def queens(n: int, *, backend: Backend = "auto") -> QueensResult: ...
def lookback(
    spot: float,
    maturity: float,
    volatility: float,
    rate: float,
    steps: int,
    *,
    call: bool = False,
    european: bool = False,
    dividend_yield: float = 0.0,
    observed_max: Optional[float] = None,
    observed_min: Optional[float] = None,
    greeks: Literal["basic", "all"] = "basic",
    precision: Precision = "f64",
    backend: Backend = "auto",
) -> PriceResult: ...
def binomial(
    spot: float,
    strike: float,
    maturity: float,
    volatility: float,
    rate: float,
    steps: int,
    *,
    call: bool = False,
    european: bool = False,
    dividend_yield: float = 0.0,
    tree: Tree = "crr",
    greeks: Literal["basic", "all"] = "basic",
    precision: Precision = "f64",
    backend: Backend = "auto",
) -> PriceResult: ...
def implied_volatility(
    price: float,
    spot: float,
    maturity: float,
    rate: float,
    steps: int,
    *,
    payoff: Payoff = "put",
    strike: Optional[float] = None,
    european: bool = False,
    dividend_yield: float = 0.0,
    tree: Tree = "crr",
    observed_max: Optional[float] = None,
    observed_min: Optional[float] = None,
) -> float: ...
@overload
def price_book(
    payoff: Union[Payoff, Sequence[Payoff], npt.NDArray[np.str_], npt.NDArray[np.integer]],
    style: Union[Style, Sequence[Style], npt.NDArray[np.str_], npt.NDArray[np.integer]],
    spot: RealArray,
    strike: RealArray,
    maturity: RealArray,
    volatility: RealArray,
    rate: RealArray,
    steps: IntArray,
    *,
    dividend_yield: RealArray = 0.0,
    greeks: Literal[False] = False,
    precision: Precision = "f64",
    backend: Backend = "auto",
) -> npt.NDArray[np.float64]: ...
@overload
def price_book(
    payoff: Union[Payoff, Sequence[Payoff], npt.NDArray[np.str_], npt.NDArray[np.integer]],
    style: Union[Style, Sequence[Style], npt.NDArray[np.str_], npt.NDArray[np.integer]],
    spot: RealArray,
    strike: RealArray,
    maturity: RealArray,
    volatility: RealArray,
    rate: RealArray,
    steps: IntArray,
    *,
    dividend_yield: RealArray = 0.0,
    greeks: Literal[True],
    precision: Precision = "f64",
    backend: Backend = "auto",
) -> dict[str, npt.NDArray[np.float64]]: ...
@overload
def bfs(
    graph: Graph,
    sources: IntArray,
    *,
    directed: bool = True,
    symmetric: bool = False,
    return_predecessors: Literal[False] = False,
    backend: Backend = "auto",
) -> npt.NDArray[np.int32]: ...
@overload
def bfs(
    graph: Graph,
    sources: IntArray,
    *,
    directed: bool = True,
    symmetric: bool = False,
    return_predecessors: Literal[True],
    backend: Backend = "auto",
) -> Tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]: ...
@overload
def sssp(
    graph: Graph,
    sources: IntArray,
    *,
    directed: bool = True,
    delta: Optional[int] = None,
    return_predecessors: Literal[False] = False,
    backend: Backend = "auto",
) -> npt.NDArray[np.float64]: ...
@overload
def sssp(
    graph: Graph,
    sources: IntArray,
    *,
    directed: bool = True,
    delta: Optional[int] = None,
    return_predecessors: Literal[True],
    backend: Backend = "auto",
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
@overload
def maxflow(
    graph: Graph,
    /,
    source: int,
    sink: int,
    *,
    strategy: Optional[str] = None,
    backend: Backend = "auto",
) -> MaxflowResult: ...
@overload
def maxflow(
    n: int,
    tails: IntArray,
    heads: IntArray,
    capacities: IntArray,
    source: int,
    sink: int,
    *,
    strategy: Optional[str] = None,
    backend: Backend = "auto",
) -> MaxflowResult: ...
def schedule(
    etc: npt.ArrayLike,
    *,
    method: str = "lp-ils",
    time_limit: float = 10.0,
    seed: int = 1,
    backend: Backend = "auto",
) -> ScheduleResult: ...
def atsp(
    distances: npt.ArrayLike,
    *,
    time_limit: Optional[float] = None,
    backend: Backend = "auto",
) -> AtspResult: ...
@overload
def read_graph(
    path: Union[str, "os.PathLike[str]"],
    *,
    format: Optional[Literal["gr", "el", "wel", "txt", "mtx", "sg", "wsg", "tgr"]] = None,
    return_ids: Literal[False] = False,
) -> Any: ...
@overload
def read_graph(
    path: Union[str, "os.PathLike[str]"],
    *,
    format: Optional[Literal["gr", "el", "wel", "txt", "mtx", "sg", "wsg", "tgr"]] = None,
    return_ids: Literal[True],
) -> Tuple[Any, list[Union[int, bytes]]]: ...
def read_tsplib(path: Union[str, "os.PathLike[str]"]) -> Tuple[str, npt.NDArray[np.int64]]: ...
def read_dimacs_flow(
    path: Union[str, "os.PathLike[str]"],
) -> Tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int, int]: ...
