"""BFS and shortest paths against scipy.sparse.csgraph on random graphs."""

import numpy as np
import pytest

import thicket_solve as thicket
from conftest import needs_gpu

scipy_sparse = pytest.importorskip("scipy.sparse")
csgraph = pytest.importorskip("scipy.sparse.csgraph")


def random_graph(rng, n, m, max_weight=100):
    """A CSR matrix of m distinct arcs (no self-loops) with whole weights >= 1."""
    pairs = set()
    while len(pairs) < m:
        u, v = rng.integers(0, n, size=2)
        if u != v:
            pairs.add((int(u), int(v)))
    tails, heads = np.array(sorted(pairs)).T
    weights = rng.integers(1, max_weight + 1, size=m).astype(np.float64)
    return scipy_sparse.csr_matrix((weights, (tails, heads)), shape=(n, n))


@pytest.mark.parametrize("n,m", [(50, 120), (300, 900), (1000, 5000)])
def test_bfs_matches_scipy(rng, n, m):
    graph = random_graph(rng, n, m)
    sources = rng.choice(n, size=4, replace=False)
    hops = thicket.bfs(graph, sources)
    assert hops.dtype == np.int32 and hops.shape == (4, n)
    reference = csgraph.shortest_path(graph, directed=True, unweighted=True, indices=sources)
    np.testing.assert_array_equal(np.where(hops < 0, np.inf, hops), reference)


@pytest.mark.parametrize("n,m", [(50, 120), (300, 900), (1000, 5000)])
def test_sssp_matches_scipy(rng, n, m):
    graph = random_graph(rng, n, m)
    sources = rng.choice(n, size=3, replace=False)
    distances = thicket.sssp(graph, sources, backend="cpu")
    assert distances.dtype == np.float64 and distances.shape == (3, n)
    reference = csgraph.shortest_path(graph, method="D", directed=True, indices=sources)
    np.testing.assert_array_equal(distances, reference)


def test_csr_array_tuple_and_a_single_source(rng):
    graph = random_graph(rng, 100, 400)
    from_matrix = thicket.sssp(graph, 7)
    from_array = thicket.sssp(scipy_sparse.csr_array(graph), [7])
    from_tuple = thicket.sssp((graph.indptr, graph.indices, graph.data), [7])
    np.testing.assert_array_equal(from_matrix, from_array)
    np.testing.assert_array_equal(from_matrix, from_tuple)
    order = csgraph.breadth_first_order(graph, 7, directed=True, return_predecessors=False)
    reached = np.flatnonzero(thicket.bfs(graph, 7)[0] >= 0)
    assert set(order) == set(reached)


def test_delta_does_not_change_distances(rng):
    graph = random_graph(rng, 200, 800)
    np.testing.assert_array_equal(thicket.sssp(graph, 0, delta=1), thicket.sssp(graph, 0, delta=500))


def test_graph_errors_are_value_errors():
    indptr, indices = np.array([0, 2, 3, 3]), np.array([1, 2, 2])
    with pytest.raises(ValueError, match="source"):
        thicket.bfs((indptr, indices), [5])
    with pytest.raises(ValueError, match=r"weights"):
        thicket.sssp((indptr, indices, np.array([1.0, -2.0, 1.0])), 0)
    with pytest.raises(ValueError, match="dtype float64"):
        thicket.bfs((indptr.astype(float), indices), 0)
    with pytest.raises(ValueError, match="invalid input"):
        thicket.bfs((indptr, indices[:2]), 0)  # shape mismatch: indptr says 3 arcs
    with pytest.raises(ValueError, match="square"):
        thicket.bfs(scipy_sparse.csr_matrix(np.ones((2, 3))), 0)
    with pytest.raises(ValueError, match="sources\\[0\\] is -1"):
        thicket.bfs((indptr, indices), -1)


def test_every_index_dtype_gives_the_same_answers_and_negatives_are_refused(rng):
    # uint64/int64 offsets and uint32/int32 heads are read where they are (the signed ones
    # checked non-negative); the rest are converted. Every pairing answers alike.
    graph = random_graph(rng, 300, 1500)
    want = thicket.sssp(graph, [0, 9])
    for offsets in (np.int32, np.int64, np.uint32, np.uint64):
        for heads in (np.int32, np.int64, np.uint32, np.uint64):
            arrays = (graph.indptr.astype(offsets), graph.indices.astype(heads), graph.data)
            np.testing.assert_array_equal(thicket.sssp(arrays, [0, 9]), want)
    indptr, indices = np.array([0, 2, 3, 3]), np.array([1, 2, 2])
    with pytest.raises(ValueError, match=r"indices\[1\] is -1"):
        thicket.bfs((indptr, np.array([1, -1, 2], np.int32)), 0)
    with pytest.raises(ValueError, match=r"indptr\[1\] is -2"):
        thicket.bfs((np.array([0, -2, 3, 3]), indices), 0)
    with pytest.raises(ValueError, match="arc 2 ends at 3, outside 0..3"):
        thicket.bfs((indptr, np.array([1, 2, 3], np.uint32)), 0)


@needs_gpu
def test_gpu_searches_match_the_cpu(rng):
    graph = random_graph(rng, 5000, 40000)
    np.testing.assert_array_equal(
        thicket.bfs(graph, [0, 1], backend="cuda"), thicket.bfs(graph, [0, 1], backend="cpu")
    )
    np.testing.assert_array_equal(
        thicket.sssp(graph, [0, 1], backend="cuda"), thicket.sssp(graph, [0, 1], backend="cpu")
    )


def test_symmetric_graphs_give_the_same_answers_told_or_not(rng):
    directed = random_graph(rng, 800, 3000)
    graph = (directed + directed.T).tocsr()  # every arc both ways
    sources = rng.choice(800, size=5, replace=False)
    told = thicket.bfs(graph, sources, symmetric=True, backend="cpu")
    np.testing.assert_array_equal(told, thicket.bfs(graph, sources, backend="cpu"))
    reference = csgraph.shortest_path(graph, directed=True, unweighted=True, indices=sources)
    np.testing.assert_array_equal(np.where(told < 0, np.inf, told), reference)


def test_each_source_has_its_own_row(rng):
    graph = random_graph(rng, 300, 900)
    sources = np.array([5, 0, 5, 299])
    together = thicket.sssp(graph, sources, backend="cpu")
    for row, source in zip(together, sources):
        np.testing.assert_array_equal(row, thicket.sssp(graph, source, backend="cpu")[0])
    assert together.flags.c_contiguous and together.flags.owndata


# Every format scipy.sparse.csgraph takes: each scipy.sparse format, as a matrix and as an
# array, and dense numpy arrays and matrices (whose zeros are no arc).
FORMATS = {
    "coo": lambda g: g.tocoo(),
    "csc": lambda g: g.tocsc(),
    "lil": lambda g: g.tolil(),
    "dok": lambda g: g.todok(),
    "bsr": lambda g: g.tobsr(),
    "coo_array": lambda g: scipy_sparse.coo_array(g),
    "csc_array": lambda g: scipy_sparse.csc_array(g),
    "dense": lambda g: g.toarray(),
    "numpy matrix": lambda g: g.todense(),
}


@pytest.mark.parametrize("form", FORMATS)
def test_every_scipy_format_and_dense_arrays_answer_as_csr(rng, form):
    graph = random_graph(rng, 120, 500)
    sources = [0, 17, 119]
    given = FORMATS[form](graph)
    np.testing.assert_array_equal(thicket.bfs(given, sources), thicket.bfs(graph, sources))
    distances = thicket.sssp(given, sources)
    np.testing.assert_array_equal(distances, thicket.sssp(graph, sources))
    reference = csgraph.shortest_path(given, method="D", directed=True, indices=sources)
    np.testing.assert_array_equal(distances, reference)


def test_dense_inf_and_nan_are_no_arc_as_in_scipy():
    dense = np.array([[0, 2, np.inf], [np.nan, 0, 3], [1, 0, 0]], dtype=float)
    reference = csgraph.shortest_path(dense, method="D", indices=[0, 1, 2])
    np.testing.assert_array_equal(thicket.sssp(dense, [0, 1, 2]), reference)
    with pytest.raises(ValueError, match="shape \\(2, 3\\); it must be square"):
        thicket.bfs(np.ones((2, 3)), 0)
    with pytest.raises(ValueError, match="dtype complex128"):
        thicket.bfs(np.ones((2, 2), complex), 0)


def test_explicit_zeros_of_a_sparse_graph_are_arcs_as_in_scipy():
    graph = scipy_sparse.csr_matrix(
        (np.array([0.0, 4.0, 0.0]), np.array([1, 2, 2]), np.array([0, 2, 3, 3])), shape=(3, 3)
    )
    assert graph.nnz == 3  # the zeros stored
    reference = csgraph.shortest_path(graph, method="D", indices=[0, 1])
    np.testing.assert_array_equal(thicket.sssp(graph, [0, 1]), reference)
    np.testing.assert_array_equal(thicket.bfs(graph, 1), [[-1, 0, 1]])


@pytest.mark.parametrize("n,m", [(60, 150), (400, 1200)])
def test_undirected_searches_match_scipy(rng, n, m):
    # An upper-triangular graph reaches every vertex of its component when read undirected,
    # as scipy's directed=False; the other graph has arcs both ways of different weights,
    # where the lighter is the edge's.
    full = random_graph(rng, n, m)
    upper = scipy_sparse.triu(full, k=1, format="csr")
    both = (full + scipy_sparse.triu(full, k=1).T * 3).tocsr()
    sources = rng.choice(n, size=4, replace=False)
    for graph in (upper, both):
        hops = thicket.bfs(graph, sources, directed=False)
        reference = csgraph.shortest_path(graph, directed=False, unweighted=True, indices=sources)
        np.testing.assert_array_equal(np.where(hops < 0, np.inf, hops), reference)
        distances = thicket.sssp(graph, sources, directed=False)
        reference = csgraph.shortest_path(graph, method="D", directed=False, indices=sources)
        np.testing.assert_array_equal(distances, reference)
        order = csgraph.breadth_first_order(graph, int(sources[0]), directed=False,
                                            return_predecessors=False)
        assert set(order) == set(np.flatnonzero(hops[0] >= 0))
    # The directed search of the upper-triangular graph does not go back up.
    assert (thicket.bfs(upper, n - 1)[0] >= 0).sum() == 1


def test_no_source_gives_no_row(rng):
    graph = random_graph(rng, 20, 40)
    for nothing in ([], (), np.array([])):
        hops = thicket.bfs(graph, nothing)
        assert hops.shape == (0, 20) and hops.dtype == np.int32
        distances, tree = thicket.sssp(graph, nothing, return_predecessors=True)
        assert distances.shape == tree.shape == (0, 20)
        assert distances.dtype == np.float64 and tree.dtype == np.int64


def check_tree(graph, sources, distances, tree, weighted):
    """Every reached vertex's predecessor is an arc on a shortest path; the source and the
    unreached have scipy's -9999."""
    dense = graph.toarray()
    for row, source in enumerate(sources):
        for v in range(graph.shape[0]):
            p = tree[row, v]
            if v == source or not np.isfinite(distances[row, v]):
                assert p == -9999, (source, v, p)
                continue
            assert dense[p, v] != 0, (source, v, p)
            step = dense[p, v] if weighted else 1
            assert distances[row, p] + step == distances[row, v], (source, v, p)


@pytest.mark.parametrize("n,m", [(50, 120), (400, 1500)])
def test_predecessors_are_shortest_path_trees_as_scipy_returns_them(rng, n, m):
    graph = random_graph(rng, n, m)
    sources = rng.choice(n, size=3, replace=False)
    hops, tree = thicket.bfs(graph, sources, return_predecessors=True)
    assert tree.dtype == np.int64 and tree.shape == (3, n)
    np.testing.assert_array_equal(hops, thicket.bfs(graph, sources))
    check_tree(graph, sources, np.where(hops < 0, np.inf, hops), tree, weighted=False)
    distances, tree = thicket.sssp(graph, sources, return_predecessors=True, backend="cpu")
    reference, scipy_tree = csgraph.shortest_path(
        graph, method="D", indices=sources, return_predecessors=True
    )
    np.testing.assert_array_equal(distances, reference)
    check_tree(graph, sources, distances, tree, weighted=True)
    # Where scipy's shortest path tree is unique, the same (its -9999 marks the same places).
    np.testing.assert_array_equal(tree == -9999, scipy_tree == -9999)
    symmetric = graph + graph.T
    hops, tree = thicket.bfs(graph, sources, directed=False, return_predecessors=True)
    check_tree(symmetric, sources, np.where(hops < 0, np.inf, hops), tree, weighted=False)
