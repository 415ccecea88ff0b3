#!/usr/bin/env python3
"""The integer-programming anchor of `thicket atsp`: an ATSP solved exactly by HiGHS.

The model is the assignment problem (one arc out of and one arc into every city, binary
arc variables) to which Dantzig-Fulkerson-Johnson subtour cuts are added in rounds: solve
the integer program, and while its solution falls apart into several cycles, add for each
cycle S the cut "at most |S| - 1 arcs inside S" and solve again. The first solution that is
one cycle is an optimal tour. HiGHS runs through scipy.optimize.milp.

    python3 scripts/atsp-ilp.py FILE.atsp [FILE.atsp ...] [--time-limit S]

prints one line per file: name, cities, the tour's cost (or `-`), seconds, cut rounds,
status. It reads TSPLIB files with EXPLICIT FULL_MATRIX weights (every TSPLIB ATSP file).
Needs numpy and scipy (pip install scipy).
"""

import argparse
import sys
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix, vstack

from tsplib_matrix import read_full_matrix


def read_tsplib(path):
    """The name and the full cost matrix of a TSPLIB EXPLICIT FULL_MATRIX file."""
    name, rows = read_full_matrix(path)
    return name, np.array(rows, dtype=np.int64)


def cycles(n, arcs):
    """The cycles that the chosen arcs (one out of every city) form."""
    succ = dict(arcs)
    seen, found = [False] * n, []
    for start in range(n):
        if seen[start]:
            continue
        cycle, at = [], start
        while not seen[at]:
            seen[at] = True
            cycle.append(at)
            at = succ[at]
        found.append(cycle)
    return found


def solve(cost, time_limit):
    """(cost or None, seconds, rounds, status) of the ATSP with matrix `cost`."""
    n = len(cost)
    started = time.perf_counter()
    arcs = [(i, j) for i in range(n) for j in range(n) if i != j]
    index = {arc: k for k, arc in enumerate(arcs)}
    c = np.array([cost[i][j] for i, j in arcs], dtype=float)
    m = len(arcs)
    rows = np.array([i for i, _ in arcs] + [n + j for _, j in arcs])
    cols = np.concatenate([np.arange(m), np.arange(m)])
    degree = coo_matrix((np.ones(2 * m), (rows, cols)), shape=(2 * n, m)).tocsr()
    cut_rows = []
    rounds = 0
    while True:
        left = time_limit - (time.perf_counter() - started)
        if left <= 0:
            return None, time.perf_counter() - started, rounds, "time limit"
        constraints = [LinearConstraint(degree, 1, 1)]
        if cut_rows:
            matrix = vstack(cut_rows).tocsr()
            upper = np.array(matrix.sum(axis=1)).ravel()
            # Each cut row holds the arcs inside S, |S|(|S|-1) of them: at most |S|-1 may be chosen.
            sizes = (1 + np.sqrt(1 + 4 * upper)) / 2
            constraints.append(LinearConstraint(matrix, -np.inf, np.round(sizes) - 1))
        result = milp(
            c,
            constraints=constraints,
            integrality=np.ones(m),
            bounds=Bounds(0, 1),
            options={"time_limit": left, "disp": False},
        )
        rounds += 1
        if result.x is None:
            return None, time.perf_counter() - started, rounds, result.message
        chosen = [arcs[k] for k in np.flatnonzero(result.x > 0.5)]
        found = cycles(n, chosen)
        if len(found) == 1:
            status = "optimal" if result.status == 0 else result.message
            tour_cost = int(sum(cost[i][j] for i, j in chosen))
            return tour_cost, time.perf_counter() - started, rounds, status
        for cycle in found:
            inside = [index[(i, j)] for i in cycle for j in cycle if i != j]
            cut_rows.append(coo_matrix((np.ones(len(inside)), ([0] * len(inside), inside)), shape=(1, m)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per instance")
    args = parser.parse_args()
    print("name cities cost seconds rounds status")
    for path in args.files:
        name, cost = read_tsplib(path)
        value, seconds, rounds, status = solve(cost, args.time_limit)
        shown = "-" if value is None else str(value)
        print(f"{name} {len(cost)} {shown} {seconds:.2f} {rounds} {status}", flush=True)


if __name__ == "__main__":
    main()
