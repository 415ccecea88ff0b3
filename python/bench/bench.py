"""The Python package against the same work in Rust and against scipy.

    python bench/bench.py --thicket target/release/thicket \
        --same-work target/release/examples/same_work [--backend cpu|cuda] [--scale 20] \
        [--trials 3] [--rounds 5] [--only bfs|book]

1. A Kronecker graph (Graph500, edge factor 16) searched by BFS from 8 sources: thicket.bfs
   on the graph's arrays against examples/same_work.rs (the same front doors called from
   Rust: Graph::from_csr, bfs, hop counts as int32), and, for reference, `thicket bfs
   graph.tgr` (its JSON `seconds`: the search alone, on a file marked symmetric, so no
   transpose is built) beside thicket.bfs(..., symmetric=True) (the graph is symmetric).
2. A book of 1,024 American puts (1,000 steps): thicket.price_book against same_work's
   price_book and `thicket binomial --batch book.csv` (its JSON `seconds`); and the same
   book of 1-step options and one 1-step option, where the call's fixed cost is most of the
   time.
3. CPU BFS and SSSP against scipy.sparse.csgraph.shortest_path, and max flow against
   scipy.sparse.csgraph.maximum_flow, on the same graphs, as ratios (scipy time / thicket time).

Python against Rust (the first table) is measured in interleaved rounds: each round runs
--trials Python calls and one same_work process of --trials trials (after an untimed warm-up
call on each side), Python first in even rounds and Rust first in odd ones, so that both
sides see the same drift of a shared machine. Each side's median over every round is
reported with its spread (the interquartile range as a percentage of the median), the
ratio of the medians with a 95% bootstrap interval, and the verdict on the 5% target. The 1-step books take 100 times --trials calls a round. Every other
time (the second table) is the fastest of --trials runs. Prints Markdown tables. `--only`
runs one work's rows of the first table and nothing else, so that many rounds of it fit in
the time the whole bench takes.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import thicket_solve as thicket


def timed(trials, run):
    """Seconds of each of `trials` calls of `run`."""
    times = []
    for _ in range(trials):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return times


def fastest(trials, run):
    return min(timed(trials, run))


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
    """Every timed trial's seconds of one examples/same_work.rs process (its warm-up run
    is not among them)."""
    out = subprocess.run(
        [args.same_work, *work],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "BACKEND": args.backend},
    ).stdout
    return json.loads(out)["trials"]


def interleaved(args, trials, python, rust_work):
    """(Python's, Rust's) seconds per call over --rounds rounds: `trials` calls of `python`
    and one same_work process of `trials` trials of `rust_work` (a list of arguments after
    which the trial count goes) a round, the order alternating."""
    ours, theirs = [], []

    def python_round():
        # Each same_work process times its calls after an untimed one, so each Python round
        # does the same: the first call after the other side's process ran pays for the
        # GPU's switch back (and, the first time, for opening it and loading the kernels).
        python()
        ours.extend(timed(trials, python))

    for round_ in range(args.rounds):
        sides = [
            python_round,
            lambda: theirs.extend(same_work(args, rust_work(trials))),
        ]
        for side in sides if round_ % 2 == 0 else reversed(sides):
            side()
    return ours, theirs


def summary(times):
    """(median, interquartile range as a percentage of the median) of `times`."""
    low, median, high = np.percentile(times, [25, 50, 75])
    return median, 100 * (high - low) / median


def ratio_interval(python, rust, resamples=2000):
    """A 95% bootstrap interval of Rust's median / Python's (each side resampled with
    replacement, a fixed seed so that a table can be reproduced from its times)."""
    rng = np.random.default_rng(0)
    python, rust = np.asarray(python), np.asarray(rust)
    ratios = np.median(rng.choice(rust, (resamples, len(rust))), axis=1) / np.median(
        rng.choice(python, (resamples, len(python))), axis=1
    )
    return tuple(np.percentile(ratios, [2.5, 97.5]))


def verdict(low, high, target=0.95):
    """Whether the Python call is within 5% of Rust's: met where the whole interval of
    Rust / Python is at or above 0.95, not met where it is all below, else undecided."""
    if low >= target:
        return "met"
    if high < target:
        return "not met"
    return "undecided"


def kronecker(thicket_binary, scale, path):
    """`path`, after `thicket graph gen kron --scale SCALE` wrote a Kronecker graph there."""
    subprocess.run(
        [thicket_binary, "graph", "gen", "kron", "--scale", str(scale), "-o", path],
        check=True,
        capture_output=True,
    )
    return path


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
    parser.add_argument("--trials", type=int, default=3, help="calls per side and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds against Rust")
    parser.add_argument(
        "--only",
        choices=["bfs", "book"],
        help="only this work's rows of the first table (more --rounds for its verdict)",
    )
    args = parser.parse_args()
    pairs = []  # (work, Python's seconds per call, Rust's, judged by the 5% target)
    rows = []  # (work, thicket from Python, other, what the other is)
    with tempfile.TemporaryDirectory() as scratch:
        if args.only != "book":
            graph_file = kronecker(args.thicket, args.scale, os.path.join(scratch, "kron.tgr"))
            indptr, indices, _ = read_tgr(graph_file)
            degrees = np.diff(indptr.astype(np.int64))
            sources = np.random.default_rng(1).choice(np.flatnonzero(degrees > 0), 8, replace=False)
            label = f"BFS, Kronecker scale {args.scale}, 8 sources ({args.backend})"
            pairs.append(
                (
                    label,
                    *interleaved(
                        args,
                        args.trials,
                        lambda: thicket.bfs((indptr, indices), sources, backend=args.backend),
                        lambda trials: ["bfs", graph_file, str(trials), *map(str, sources)],
                    ),
                    True,
                )
            )
            source_flags = [flag for s in sources for flag in ("--source", str(s))]
            cli = cli_seconds(args.thicket, ["bfs", graph_file, *source_flags, "--backend", args.backend], args.trials)
            python = fastest(
                args.trials,
                lambda: thicket.bfs((indptr, indices), sources, symmetric=True, backend=args.backend),
            )
            rows.append((label + ", symmetric=True", python, cli, "`thicket bfs` (search only, symmetric file)"))

        if args.only != "bfs":
            book = os.path.join(scratch, "book.csv")
            spot = np.linspace(80, 120, 1024)  # same_work's spots
            with open(book, "w") as out:
                out.write("payoff,style,spot,strike,maturity,volatility,rate,steps\n")
                for s in spot:
                    out.write(f"put,american,{float(s)!r},100,1,0.25,0.05,1000\n")
            for options, steps, trials in ((1024, 1000, args.trials), (1024, 1, 100 * args.trials), (1, 1, 100 * args.trials)):
                spots = np.linspace(80, 120, options)
                label = f"{options:,} American put{'s' if options > 1 else ''}, {steps:,} step{'s' if steps > 1 else ''} ({args.backend})"
                pairs.append(
                    (
                        label,
                        *interleaved(
                            args,
                            trials,
                            lambda: thicket.price_book(
                                "put", "american", spots, 100.0, 1.0, 0.25, 0.05, steps, backend=args.backend
                            ),
                            lambda trials: ["book", str(options), str(steps), str(trials)],
                        ),
                        steps > 1,
                    )
                )
                if steps == 1000:
                    python = fastest(
                        args.trials,
                        lambda: thicket.price_book(
                            "put", "american", spot, 100.0, 1.0, 0.25, 0.05, 1000, backend=args.backend
                        ),
                    )
                    # The priced book to a file: beside --json it may not go to stdout.
                    priced = os.path.join(scratch, "priced.csv")
                    cli = cli_seconds(
                        args.thicket, ["binomial", "--batch", book, "-o", priced, "--backend", args.backend], args.trials
                    )
                    rows.append((label, python, cli, "`thicket binomial --batch`"))

        if args.only is None:
            try:
                import scipy.sparse as sparse
                from scipy.sparse import csgraph
            except ImportError:
                sparse = None
            if sparse is not None:
                small = kronecker(args.thicket, args.scipy_scale, os.path.join(scratch, "kron-small.tgr"))
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

    print(f"Python against the same work in Rust: medians of {args.rounds} interleaved rounds")
    print()
    print(
        "| work | calls a side | from Python (s) | IQR | from Rust (s) | IQR | Python - Rust (µs) "
        "| Rust / Python | 95% interval | within 5% |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for work, ours, theirs, judged in pairs:
        (python, python_spread), (rust, rust_spread) = summary(ours), summary(theirs)
        low, high = ratio_interval(ours, theirs)
        within = verdict(low, high) if judged else "(fixed cost)"
        print(
            f"| {work} | {len(ours)} | {python:.4g} | {python_spread:.1f}% | {rust:.4g} | "
            f"{rust_spread:.1f}% | {1e6 * (python - rust):.1f} | {rust / python:.3f} | "
            f"{low:.3f}-{high:.3f} | {within} |"
        )
    print()
    print(
        "Judge 'within 5% of Rust' on the ratio of the medians, Rust / Python, and its 95% "
        "bootstrap interval: met where the whole interval is at or above 0.95, not met where "
        "it is all below, undecided otherwise (more --rounds narrow it). IQR: each side's "
        "interquartile range over its median, how much the machine moved. The 1-step books "
        "measure the call's fixed cost: judge those by the difference, Python - Rust."
    )
    print()
    print("| work | thicket from Python (s) | other (s) | other | other / Python |")
    print("|---|---:|---:|---|---:|")
    for work, ours, theirs, other in rows:
        print(f"| {work} | {ours:.6f} | {theirs:.6f} | {other} | {theirs / ours:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
