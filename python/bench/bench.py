"""The Python package against the same work in Rust and against scipy.

    python bench/bench.py --thicket target/release/thicket \
        --same-work target/release/examples/same_work [--backend cpu|cuda] [--scale 20]

1. A Kronecker graph (Graph500, edge factor 16) searched by BFS from 8 sources: thicket.bfs
   on the graph's arrays against examples/same_work.rs (the same front doors called from
   Rust: Graph::from_csr, bfs, hop counts as int32), and, for reference, `thicket bfs
   graph.tgr` (its JSON `seconds`: the search alone, on a file marked symmetric, so no
   transpose is built) beside thicket.bfs(..., symmetric=True) (the graph is symmetric).
2. A book of 1,024 American puts (1,000 steps): thicket.price_book against same_work's
   price_book and `thicket binomial --batch book.csv` (its JSON `seconds`); and the same
   book of 1-step options, where the call's fixed cost is most of the time.
3. CPU BFS and SSSP against scipy.sparse.csgraph.shortest_path, and max flow against
   scipy.sparse.csgraph.maximum_flow, on the same graphs, as ratios (scipy time / thicket time).

Each time is the fastest of --trials runs. Prints a Markdown table.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import thicket


def fastest(trials, run):
    best = np.inf
    for _ in range(trials):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def cli_seconds(thicket_binary, args, trials):
    """The fastest trial's `seconds` of a CLI run (`--json --quiet --trials`)."""
    out = subprocess.run(
        [thicket_binary, *args, "--json", "--quiet", "--trials", str(trials)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)["seconds"]


def same_work(args, work):
    """The fastest trial's seconds of examples/same_work.rs."""
    out = subprocess.run(
        [args.same_work, *work],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "BACKEND": args.backend},
    ).stdout
    return json.loads(out)["seconds"]


def read_tgr(path):
    """(indptr uint64, indices uint32, weights or None) of a thicket .tgr file."""
    data = open(path, "rb").read()
    vertices, arcs = np.frombuffer(data, np.uint64, 2, 8)
    flags = data[24]
    at = 26
    # The arrays start at unaligned offsets: copied once here, as a reader would.
    indptr = np.frombuffer(data, np.uint64, int(vertices) + 1, at).copy()
    at += indptr.nbytes
    indices = np.frombuffer(data, np.uint32, int(arcs), at).copy()
    at += indices.nbytes
    weights = np.frombuffer(data, np.uint32, int(arcs), at).astype(np.float64) if flags & 1 else None
    return indptr, indices, weights


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thicket", required=True, help="the thicket binary (release)")
    parser.add_argument("--same-work", required=True, help="examples/same_work (release)")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--scale", type=int, default=20, help="Kronecker scale of the BFS graph")
    parser.add_argument("--scipy-scale", type=int, default=18, help="scale of the scipy graphs")
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        graph_file = os.path.join(scratch, "kron.tgr")
        subprocess.run(
            [args.thicket, "graph", "gen", "kron", "--scale", str(args.scale), "-o", graph_file],
            check=True,
            capture_output=True,
        )
        indptr, indices, _ = read_tgr(graph_file)
        degrees = np.diff(indptr.astype(np.int64))
        sources = np.random.default_rng(1).choice(np.flatnonzero(degrees > 0), 8, replace=False)
        python = fastest(args.trials, lambda: thicket.bfs((indptr, indices), sources, backend=args.backend))
        source_flags = [flag for s in sources for flag in ("--source", str(s))]
        label = f"BFS, Kronecker scale {args.scale}, 8 sources ({args.backend})"
        rust = same_work(args, ["bfs", graph_file, str(args.trials), *map(str, sources)])
        rows.append((label, python, rust, "the same calls from Rust"))
        rust = cli_seconds(args.thicket, ["bfs", graph_file, *source_flags, "--backend", args.backend], args.trials)
        rows.append((label, python, rust, "`thicket bfs` (search only, symmetric file)"))
        python = fastest(
            args.trials,
            lambda: thicket.bfs((indptr, indices), sources, symmetric=True, backend=args.backend),
        )
        rows.append((label + ", symmetric=True", python, rust, "`thicket bfs` (search only, symmetric file)"))

        book = os.path.join(scratch, "book.csv")
        spot = np.linspace(80, 120, 1024)  # same_work's spots
        with open(book, "w") as out:
            out.write("payoff,style,spot,strike,maturity,volatility,rate,steps\n")
            for s in spot:
                out.write(f"put,american,{float(s)!r},100,1,0.25,0.05,1000\n")
        python = fastest(
            args.trials,
            lambda: thicket.price_book(
                "put", "american", spot, 100.0, 1.0, 0.25, 0.05, 1000, backend=args.backend
            ),
        )
        label = f"1,024 American puts, 1,000 steps ({args.backend})"
        rust = same_work(args, ["book", "1024", "1000", str(args.trials)])
        rows.append((label, python, rust, "the same calls from Rust"))
        rust = cli_seconds(args.thicket, ["binomial", "--batch", book, "--backend", args.backend], args.trials)
        rows.append((label, python, rust, "`thicket binomial --batch`"))
        # The fixed cost of a call: 1-step options, many trials.
        many = max(args.trials, 1000)
        python = fastest(
            many,
            lambda: thicket.price_book(
                "put", "american", spot, 100.0, 1.0, 0.25, 0.05, 1, backend=args.backend
            ),
        )
        rust = same_work(args, ["book", "1024", "1", str(many)])
        rows.append((f"1,024 American puts, 1 step ({args.backend})", python, rust, "the same calls from Rust"))

        try:
            import scipy.sparse as sparse
            from scipy.sparse import csgraph
        except ImportError:
            sparse = None
        if sparse is not None:
            small = os.path.join(scratch, "kron-small.tgr")
            subprocess.run(
                [args.thicket, "graph", "gen", "kron", "--scale", str(args.scipy_scale), "-o", small],
                check=True,
                capture_output=True,
            )
            indptr, indices, weights = read_tgr(small)
            n = len(indptr) - 1
            if weights is None:
                weights = np.random.default_rng(2).integers(1, 256, len(indices)).astype(np.float64)
            graph = sparse.csr_matrix(
                (weights, indices.astype(np.int32), indptr.astype(np.int32)), shape=(n, n)
            )
            graph.sum_duplicates()
            graph.eliminate_zeros()
            degrees = np.diff(graph.indptr)
            sources = np.random.default_rng(3).choice(np.flatnonzero(degrees > 0), 8, replace=False)
            ours = fastest(args.trials, lambda: thicket.bfs(graph, sources, backend="cpu"))
            theirs = fastest(
                1, lambda: csgraph.shortest_path(graph, directed=True, unweighted=True, indices=sources)
            )
            rows.append((f"BFS scale {args.scipy_scale}, 8 sources (CPU)", ours, theirs, "scipy shortest_path(unweighted)"))
            ours = fastest(args.trials, lambda: thicket.sssp(graph, sources, backend="cpu"))
            theirs = fastest(1, lambda: csgraph.shortest_path(graph, method="D", directed=True, indices=sources))
            rows.append((f"SSSP scale {args.scipy_scale}, 8 sources (CPU)", ours, theirs, "scipy shortest_path(D)"))

            coo = graph.tocoo()
            capacities = coo.data.astype(np.int64)
            source, sink = int(sources[0]), int(sources[1])
            ours = fastest(
                args.trials,
                lambda: thicket.maxflow(n, coo.row, coo.col, capacities, source, sink, backend="cpu"),
            )
            int_graph = sparse.csr_matrix((capacities.astype(np.int32), (coo.row, coo.col)), shape=(n, n))
            theirs = fastest(1, lambda: csgraph.maximum_flow(int_graph, source, sink))
            rows.append((f"max flow scale {args.scipy_scale} (CPU)", ours, theirs, "scipy maximum_flow"))

    print("| work | thicket from Python (s) | other (s) | other | other / Python |")
    print("|---|---:|---:|---|---:|")
    for work, ours, theirs, other in rows:
        print(f"| {work} | {ours:.6f} | {theirs:.6f} | {other} | {theirs / ours:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
