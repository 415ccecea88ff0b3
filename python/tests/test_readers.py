"""The file readers: the command line's readers, their answers as numpy and scipy arrays,
checked against the files read here in Python and against the published answers."""

import os

import numpy as np
import pytest

import thicket_solve as thicket

scipy_sparse = pytest.importorskip("scipy.sparse")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GRAPH = os.path.join(ROOT, "crates", "thicket-graph", "data", "gapbs-4.gr")
ATSP = os.path.join(ROOT, "crates", "thicket-atsp", "data", "br17.atsp")
FLOW = os.path.join(ROOT, "crates", "thicket-flow", "data", "m10.max")


def arcs_of(graph):
    """The sorted (tail, head, weight) triples of a CSR matrix, duplicates kept."""
    coo = graph.tocoo()
    return sorted(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()))


def test_a_dimacs_graph_reads_as_its_arc_lines_say():
    graph = thicket.read_graph(GRAPH)
    assert graph.shape == (14, 14) and graph.format == "csr"
    expected = []
    with open(GRAPH) as f:
        for line in f:
            if line.startswith("a "):
                _, u, v, w = line.split()
                expected.append((int(u) - 1, int(v) - 1, float(w)))
    assert arcs_of(graph) == sorted(expected)
    graph, ids = thicket.read_graph(GRAPH, return_ids=True)
    assert ids == list(range(1, 15))
    np.testing.assert_array_equal(thicket.bfs(graph, 0), thicket.bfs(thicket.read_graph(GRAPH), 0))


def test_snap_names_are_the_files_bytes(tmp_path):
    path = tmp_path / "names.txt"
    path.write_bytes(b"\xef\xbb\xbfcaf\xe9 bob\ncaf\xc3\xa9 bob\nbob caf\xe9\n")
    graph, ids = thicket.read_graph(path, return_ids=True)
    assert ids == [b"caf\xe9", b"bob", b"caf\xc3\xa9"]
    assert graph.shape == (3, 3) and graph.nnz == 3
    assert graph[0, 1] == 1 and graph[2, 1] == 1 and graph[1, 0] == 1


def test_tsplib_and_dimacs_flow_files_give_the_published_answers():
    name, costs = thicket.read_tsplib(ATSP)
    assert name == "br17" and costs.shape == (17, 17) and costs.dtype == np.int64
    assert np.all(np.diag(costs) == 0)
    assert thicket.atsp(costs, backend="cpu")["cost"] == 39  # TSPLIB's optimum of br17
    n, tails, heads, capacities, source, sink = thicket.read_dimacs_flow(FLOW)
    assert tails.dtype == heads.dtype == capacities.dtype == np.int64
    with open(FLOW) as f:
        arcs = sum(1 for line in f if line.startswith("a "))
    assert len(tails) == arcs
    # The flow the command line reports for m10.max, checked there by a minimum cut.
    assert thicket.maxflow(*thicket.read_dimacs_flow(FLOW), backend="cpu")["flow"] == 9860177


def test_readers_refuse_as_the_command_line_does(tmp_path):
    with pytest.raises(ValueError, match="gone.gr"):
        thicket.read_graph(tmp_path / "gone.gr")
    with pytest.raises(ValueError, match="unknown graph format"):
        thicket.read_graph(GRAPH, format="png")
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 2 1\na 1 x 3\n")
    with pytest.raises(ValueError, match=r"bad.gr:2"):
        thicket.read_graph(bad)
    with pytest.raises(ValueError, match="path"):
        thicket.read_tsplib(17)
