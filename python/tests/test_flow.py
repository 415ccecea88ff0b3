"""Max flow against scipy's maximum_flow; the cut checked from its definition."""

import numpy as np
import pytest

import thicket
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
