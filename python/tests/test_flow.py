"""Max flow against scipy's maximum_flow; the cut checked from its definition."""

import numpy as np
import pytest

import thicket_solve as thicket
from conftest import needs_gpu

scipy_sparse = pytest.importorskip("scipy.sparse")
csgraph = pytest.importorskip("scipy.sparse.csgraph")


def random_network(rng, n, m):
    pairs = set()
    while len(pairs) < m:
        u, v = rng.integers(0, n, size=2)
        if u != v:
            pairs.add((int(u), int(v)))
    tails, heads = np.array(sorted(pairs)).T
    return tails, heads, rng.integers(0, 50, size=m)


@pytest.mark.parametrize("n,m", [(10, 30), (100, 600), (1000, 8000)])
def test_maxflow_matches_scipy(rng, n, m):
    tails, heads, capacities = random_network(rng, n, m)
    answer = thicket.maxflow(n, tails, heads, capacities, 0, n - 1)
    matrix = scipy_sparse.csr_matrix(
        (capacities.astype(np.int32), (tails, heads)), shape=(n, n)
    )
    assert answer["flow"] == csgraph.maximum_flow(matrix, 0, n - 1).flow_value
    assert answer["verified"]
    flows, cut = answer["flows"], answer["cut"]
    assert np.all(flows <= capacities)
    assert cut[0] and not cut[n - 1]
    crossing = cut[tails] & ~cut[heads]
    assert capacities[crossing].sum() == answer["flow"]


def test_strategies_agree(rng):
    tails, heads, capacities = random_network(rng, 200, 1500)
    values = {
        strategy: thicket.maxflow(200, tails, heads, capacities, 0, 199, strategy=strategy)["flow"]
        for strategy in ("push-relabel", "mpm-serial")
    }
    assert len(set(values.values())) == 1


def test_flow_errors_are_value_errors():
    with pytest.raises(ValueError, match="one of each per arc"):
        thicket.maxflow(3, [0, 1], [1], [1, 1], 0, 2)
    with pytest.raises(ValueError, match="dtype float64"):
        thicket.maxflow(3, [0, 1], [1, 2], [1.5, 1.0], 0, 2)
    with pytest.raises(ValueError, match="invalid input"):
        thicket.maxflow(3, [0, 1], [1, 2], [1, -1], 0, 2)
    with pytest.raises(ValueError, match="invalid input"):
        thicket.maxflow(3, [0, 1], [1, 2], [1, 1], 0, 7)
    with pytest.raises(ValueError, match="unknown max-flow strategy"):
        thicket.maxflow(3, [0, 1], [1, 2], [1, 1], 0, 2, strategy="fast")


@needs_gpu
def test_gpu_flow_matches_the_cpu(rng):
    tails, heads, capacities = random_network(rng, 2000, 16000)
    cpu = thicket.maxflow(2000, tails, heads, capacities, 0, 1999, backend="cpu")
    gpu = thicket.maxflow(2000, tails, heads, capacities, 0, 1999, backend="cuda")
    assert gpu["flow"] == cpu["flow"]


@pytest.mark.parametrize("form", ["csr", "coo", "csc", "csr_array", "dense"])
def test_a_capacity_matrix_as_scipys_maximum_flow_takes_it(rng, form):
    n = 150
    tails, heads, capacities = random_network(rng, n, 900)
    matrix = scipy_sparse.csr_matrix((capacities.astype(np.int32), (tails, heads)), shape=(n, n))
    given = {
        "csr": matrix,
        "coo": matrix.tocoo(),
        "csc": matrix.tocsc(),
        "csr_array": scipy_sparse.csr_array(matrix),
        "dense": matrix.toarray(),
    }[form]
    answer = thicket.maxflow(given, 0, n - 1)
    assert answer["flow"] == csgraph.maximum_flow(matrix, 0, n - 1).flow_value
    assert thicket.maxflow(given, source=0, sink=n - 1)["flow"] == answer["flow"]
    assert answer["verified"]
    # The flows follow the CSR's entries: as a matrix, within the capacities and conserved.
    csr = matrix if form != "dense" else scipy_sparse.csr_matrix(given)
    flow = scipy_sparse.csr_matrix((answer["flows"], csr.indices, csr.indptr), shape=(n, n))
    assert (flow.toarray() <= csr.toarray()).all()
    net = np.asarray(flow.sum(axis=1)).ravel() - np.asarray(flow.sum(axis=0)).ravel()
    assert net[0] == answer["flow"] and net[n - 1] == -answer["flow"]
    assert not net[1 : n - 1].any()


def test_index_and_flow_outputs_are_int64():
    answer = thicket.maxflow(4, [0, 0, 1, 2], [1, 2, 3, 3], [3, 2, 2, 3], 0, 3)
    assert answer["flows"].dtype == np.int64 and answer["cut_arcs"].dtype == np.int64
    # The minimum cut {0, 1}: arcs 0 -> 2 and 1 -> 3, capacity 2 + 2, the flow.
    np.testing.assert_array_equal(answer["cut_arcs"], [1, 2])
    assert thicket.atsp(np.ones((5, 5)))["tour"].dtype == np.int64


def test_the_two_forms_are_not_mixed():
    matrix = scipy_sparse.csr_matrix(np.array([[0, 2], [0, 0]]))
    with pytest.raises(ValueError, match="source and the sink"):
        thicket.maxflow(matrix, 0)
    with pytest.raises(ValueError, match=r"maxflow\(graph, source, sink\)"):
        thicket.maxflow(matrix, 0, 1, [2])
    with pytest.raises(ValueError, match=r"maxflow\(graph, source, sink\)"):
        thicket.maxflow(matrix, 0, 1, source=0)
    with pytest.raises(ValueError, match="takes \\(n, tails, heads, capacities, source, sink\\)"):
        thicket.maxflow(2, [0], [1], [2])
    with pytest.raises(ValueError, match="dtype float64; it must hold integers"):
        thicket.maxflow(matrix.astype(float), 0, 1)
    with pytest.raises(ValueError, match="square"):
        thicket.maxflow(np.ones((2, 3), np.int64), 0, 1)
