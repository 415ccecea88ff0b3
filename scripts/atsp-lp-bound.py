#!/usr/bin/env python3
"""The subtour linear-programming bound of an ATSP, by HiGHS: the anchor of thicket's root LP.

The LP is the assignment problem relaxed to 0 <= x <= 1 with every subtour cut
x(out(S)) >= 1. The cuts are separated exactly in rounds: for the LP's solution x, a
minimum cut between city 0 and every other city k of the support graph (capacities x),
in both directions, gives every violated cut (cut value below 1); they are added and the LP
solved again until none is violated. The optimal value is the bound (the linear program
whose Lagrangian dual thicket's subtour search bounds its nodes with).

With --blossoms, once no subtour cut is violated, 2-matching (blossom) inequalities
y(delta(H) minus F) - y(F) >= 1 - |F| on the symmetrised solution y(u, v) = x(u, v) + x(v, u)
are separated too (handle H, an odd set F of at least three edges leaving it), after Padberg
and Rao's odd cuts, heuristically: edges weigh min(y, 1 - y), those with y > 1/2 are tooth
candidates, and the handles tried are the sides of the minimum cuts of Gusfield's Gomory-Hu
tree on those weights; a side with an even number of candidates swaps its cheapest edge.

    python3 scripts/atsp-lp-bound.py [--blossoms] FILE.atsp [FILE.atsp ...]

prints one line per file: name, cities, the assignment bound, the LP bound (to 4 decimals),
its ceiling, the cuts in the final LP (blossoms among them), rounds, seconds. Needs numpy and
scipy.
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


def violated_blossoms(n, x):
    """The blossoms (handle, teeth) that x violates, from a Gomory-Hu tree's cuts (above)."""
    y = x + x.T
    weight = np.minimum(y, 1 - y)
    weight[weight < 1e-9] = 0
    graph = csr_matrix(np.floor(weight * FLOW_SCALE).astype(np.int32))
    parent = [0] * n
    found = set()
    for s in range(1, n):
        t = parent[s]
        result = maximum_flow(graph, s, t)
        residual = (graph - result.flow).tocsr()
        residual.data[residual.data < 0] = 0
        residual.eliminate_zeros()
        side = set(breadth_first_order(residual, s, return_predecessors=False).tolist())
        for i in range(s + 1, n):
            if parent[i] == t and i in side:
                parent[i] = s
        inside = np.zeros(n, dtype=bool)
        inside[list(side)] = True
        crossing = np.triu(inside[:, None] != inside[None, :], 1) & (y > 1e-9)
        edges = list(zip(*np.nonzero(crossing)))
        teeth = {e for e in edges if y[e] > 0.5}
        lhs = weight[crossing].sum()
        if len(teeth) % 2 == 0 and edges:
            swap = min(edges, key=lambda e: abs(1 - 2 * y[e]))
            lhs += abs(1 - 2 * y[swap])
            teeth ^= {swap}
        if len(teeth) >= 3 and lhs < 1 - 1e-4:
            found.add((frozenset(side), frozenset(teeth)))
    return found


def blossom_row(n, handle, teeth, tails, heads):
    """The coefficients of y(delta(H) minus F) - y(F) on the arcs."""
    inside = np.zeros(n, dtype=bool)
    inside[list(handle)] = True
    row = (inside[tails] != inside[heads]).astype(float)
    index = {(a, b): k for k, (a, b) in enumerate(zip(tails.tolist(), heads.tolist()))}
    for u, v in teeth:
        row[index[(u, v)]] = -1
        row[index[(v, u)]] = -1
    return row


def lp_bound(cost, blossoms=False):
    """(assignment bound, LP bound, [(cut, its dual)], rounds, blossoms) of the cost matrix."""
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
    # Each row's subtour cut (None for a blossom's), for the duals.
    cuts, rows, rhs, rounds, assignment, added = [], [], [], 0, None, set()
    while True:
        ub = vstack(rows).tocsr() if rows else None
        result = linprog(
            c,
            A_ub=ub,
            b_ub=-np.array(rhs) if rows else None,
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
        if not new and blossoms:
            fresh = violated_blossoms(n, x) - added
            for handle, teeth in fresh:
                added.add((handle, teeth))
                # y(delta(H) minus F) - y(F) >= 1 - |F|, as its negation.
                rows.append(csr_matrix(-blossom_row(n, handle, teeth, tails, heads)))
                rhs.append(1.0 - len(teeth))
                cuts.append(None)
            if fresh:
                continue
        if not new:
            duals = -result.ineqlin.marginals if rows else np.zeros(0)
            subtours = [(side, dual) for side, dual in zip(cuts, duals) if side is not None]
            return assignment, result.fun, subtours, rounds, len(added)
        for side in new:
            cuts.append(side)
            inside = np.zeros(n, dtype=bool)
            inside[list(side)] = True
            leaving = np.flatnonzero(inside[tails] & ~inside[heads])
            # x(out(S)) >= 1 as -x(out(S)) <= -1.
            rows.append(coo_matrix((-np.ones(len(leaving)), ([0] * len(leaving), leaving)), shape=(1, m)))
            rhs.append(1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--duals", help="also write NAME.duals here: one subtour cut a line, its dual then its cities")
    parser.add_argument("--blossoms", action="store_true", help="also separate blossoms (above)")
    args = parser.parse_args()
    print("name cities assignment lp ceiling cuts blossoms rounds seconds")
    for path in args.files:
        name, rows = read_full_matrix(path)
        started = time.perf_counter()
        assignment, bound, cuts, rounds, blossoms = lp_bound(rows, args.blossoms)
        seconds = time.perf_counter() - started
        if args.duals:
            with open(f"{args.duals}/{name}.duals", "w") as out:
                for side, dual in cuts:
                    if dual > 0:
                        out.write(f"{dual:.9f} {' '.join(map(str, sorted(side)))}\n")
        print(
            f"{name} {len(rows)} {assignment:.4f} {bound:.4f} {math.ceil(bound - 1e-6)} {len(cuts) + blossoms} {blossoms} {rounds} {seconds:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
