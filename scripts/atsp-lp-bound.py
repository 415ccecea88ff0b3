#!/usr/bin/env python3
"""The subtour linear-programming bound of an ATSP, by HiGHS: the anchor of thicket's root LP.

The LP is the assignment problem relaxed to 0 <= x <= 1 with every subtour cut
x(out(S)) >= 1. The cuts are separated exactly in rounds: for the LP's solution x, a
minimum cut between city 0 and every other city k of the support graph (capacities x),
in both directions, gives every violated cut (cut value below 1); they are added and the LP
solved again until none is violated. The optimal value is the bound (the linear program
whose Lagrangian dual thicket's subtour search bounds its nodes with).

    python3 scripts/atsp-lp-bound.py FILE.atsp [FILE.atsp ...]

prints one line per file: name, cities, the assignment bound, the LP bound (to 4 decimals),
its ceiling, the cuts in the final LP, rounds, seconds. Needs numpy and scipy.
"""

import argparse
import math
import time

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix, csr_matrix, vstack
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from tsplib_matrix import read_full_matrix

# Capacities of the integer max-flow: x scaled by this, rounded down (a cut found violated
# at the scaled capacities is violated by at least the rounding, checked again in floats).
FLOW_SCALE = 1_000_000

# A cut is added where x(out(S)) is below 1 by more than this.
VIOLATION = 1e-6


def violated_sets(n, x):
    """The city sets S (frozensets) with x(out(S)) < 1 found by min cuts 0 -> k and k -> 0."""
    rows, cols = np.nonzero(x > 1e-9)
    caps = np.floor(x[rows, cols] * FLOW_SCALE).astype(np.int32)
    graph = csr_matrix((caps, (rows, cols)), shape=(n, n))
    found = set()
    for k in range(1, n):
        for source, sink in ((0, k), (k, 0)):
            result = maximum_flow(graph, source, sink)
            if result.flow_value >= (1 - VIOLATION) * FLOW_SCALE:
                continue
            # The source side: cities reachable in the residual graph (the flow is
            # antisymmetric, so capacity less flow also opens the reverse arcs).
            residual = (graph - result.flow).tocsr()
            residual.data[residual.data < 0] = 0
            residual.eliminate_zeros()
            side = set(breadth_first_order(residual, source, return_predecessors=False).tolist())
            inside = np.zeros(n, dtype=bool)
            inside[list(side)] = True
            leaving = x[np.ix_(inside, ~inside)].sum()
            if leaving < 1 - VIOLATION:
                found.add(frozenset(side))
    return found


def lp_bound(cost):
    """(assignment bound, LP bound, [(cut, its dual)], rounds) of the cost matrix."""
    n = len(cost)
    arcs = [(i, j) for i in range(n) for j in range(n) if i != j]
    c = np.array([cost[i][j] for i, j in arcs], dtype=float)
    m = len(arcs)
    tails = np.array([i for i, _ in arcs])
    heads = np.array([j for _, j in arcs])
    degree = coo_matrix(
        (np.ones(2 * m), (np.concatenate([tails, n + heads]), np.concatenate([np.arange(m)] * 2))),
        shape=(2 * n, m),
    ).tocsr()
    cuts, rows, rounds, assignment = [], [], 0, None
    while True:
        ub = vstack(rows).tocsr() if rows else None
        result = linprog(
            c,
            A_ub=ub,
            b_ub=-np.ones(len(rows)) if rows else None,
            A_eq=degree,
            b_eq=np.ones(2 * n),
            bounds=(0, 1),
            method="highs",
        )
        rounds += 1
        if assignment is None:
            assignment = result.fun
        x = np.zeros((n, n))
        x[tails, heads] = result.x
        new = violated_sets(n, x) - set(cuts)
        if not new:
            duals = -result.ineqlin.marginals if rows else np.zeros(0)
            return assignment, result.fun, list(zip(cuts, duals)), rounds
        for side in new:
            cuts.append(side)
            inside = np.zeros(n, dtype=bool)
            inside[list(side)] = True
            leaving = np.flatnonzero(inside[tails] & ~inside[heads])
            # x(out(S)) >= 1 as -x(out(S)) <= -1.
            rows.append(coo_matrix((-np.ones(len(leaving)), ([0] * len(leaving), leaving)), shape=(1, m)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--duals", help="also write NAME.duals here: one cut a line, its dual then its cities")
    args = parser.parse_args()
    print("name cities assignment lp ceiling cuts rounds seconds")
    for path in args.files:
        name, rows = read_full_matrix(path)
        started = time.perf_counter()
        assignment, bound, cuts, rounds = lp_bound(rows)
        seconds = time.perf_counter() - started
        if args.duals:
            with open(f"{args.duals}/{name}.duals", "w") as out:
                for side, dual in cuts:
                    if dual > 0:
                        out.write(f"{dual:.9f} {' '.join(map(str, sorted(side)))}\n")
        print(
            f"{name} {len(rows)} {assignment:.4f} {bound:.4f} {math.ceil(bound - 1e-6)} {len(cuts)} {rounds} {seconds:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
