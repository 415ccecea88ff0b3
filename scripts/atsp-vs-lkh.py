#!/usr/bin/env python3
"""thicket's ATSP tour against LKH-3's in LKH-3's own wall time (issue 46); prints a Markdown table.

Usage: python3 scripts/atsp-vs-lkh.py [--before THICKET] [--backend B] [--before-backend B]
                                      [--tenth-only] [INSTANCE...]
An INSTANCE is a TSPLIB FULL_MATRIX .atsp file or a generator spec CLASS:N:SEED (written out
by the `atsp_matrix` example, so both solvers get the same matrix); the default set is ftv170
and coin, crane and tsmat at n = 100, 316 and 1,000 (two seeds). LKH-3 is PyPI's `elkai`
(`pip install elkai`), run as `elkai.DistanceMatrix(d).solve_tsp(runs=1)`; thicket is the
release binary (`cargo build --release -p thicket-cli`, under $CARGO_TARGET_DIR if set), given
LKH's wall time as --time-limit, and once more a tenth of it. With --before, another thicket
binary (an earlier build) runs beside it at both times, interleaved, and gets its own columns;
--backend and --before-backend pass `--backend B` to each (GPU against CPU: the same binary
as --before, `--backend cuda --before-backend cpu`).
--tenth-only runs thicket at a tenth of LKH's time alone (where LKH's own time is minutes). The
last lines count, per column, the instances at most LKH-3's cost (same time) or within 1% of it
(a tenth). Both tours' costs are recomputed here from the matrix. Slow and machine-dependent: never run by CI.
"""
import json, os, subprocess, sys, time
from pathlib import Path

import elkai
from importlib.metadata import version

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
THICKET = TARGET / "release/thicket"
MATRIX = TARGET / "release/examples/atsp_matrix"
DEFAULT = [str(ROOT / "crates/thicket-atsp/data/ftv170.atsp")] + [
    f"{c}:{n}:{s}" for n in (100, 316, 1000) for c in ("coin", "crane", "tsmat") for s in (1, 2)
]


def full_matrix(text):
    """The matrix of a TSPLIB EXPLICIT FULL_MATRIX text."""
    head, body = text.split("EDGE_WEIGHT_SECTION")
    n = int(next(l.split(":")[1] for l in head.splitlines() if l.startswith("DIMENSION")))
    values = [int(v) for v in body.replace("EOF", "").split()][: n * n]
    return [[0 if i == j else values[i * n + j] for j in range(n)] for i in range(n)]


def cost(d, tour):
    return sum(d[a][b] for a, b in zip(tour, tour[1:] + tour[:1]))


def thicket(path, text, d, seconds, binary=THICKET, backend=None):
    """thicket's answer (the JSON object) in `seconds` of wall time, its tour checked."""
    flags = ["--backend", backend] if backend else []
    run = subprocess.run([binary, "atsp", path, "--json", "--quiet", "--time-limit", f"{seconds:.3f}"] + flags,
                         input=text, capture_output=True, text=True, check=True)
    out = json.loads(run.stdout)
    assert sorted(out["tour"]) == list(range(len(d))) and cost(d, out["tour"]) == out["cost"]
    return out


def main(instances, before=None, backend=None, before_backend=None, tenth_only=False):
    if not MATRIX.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "thicket-atsp", "--example", "atsp_matrix"], check=True)
    print(f"LKH-3 through elkai {version('elkai')}\n")
    extra = " before, same | ratio | before, a tenth | ratio |" if before else ""
    print("| instance | n | LKH-3 cost | LKH-3 s | thicket, same time | ratio | thicket, a tenth | ratio |"
          + extra + " lower bound (source) | gap | wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * (4 if before else 0) + "---:|---:|---:|")
    tally = {}
    for spec in instances:
        if Path(spec).exists():
            path, name = spec, Path(spec).stem
            text = Path(spec).read_text()
        else:
            text = subprocess.run([MATRIX, spec], check=True, capture_output=True, text=True).stdout
            path, name = "-", spec
        d = full_matrix(text)
        start = time.perf_counter()
        lkh = elkai.DistanceMatrix(d).solve_tsp(runs=1)
        seconds = time.perf_counter() - start
        lkh = lkh[:-1] if len(lkh) == len(d) + 1 else lkh
        assert sorted(lkh) == list(range(len(d)))
        lkh_cost = cost(d, lkh)
        ratio = lambda c: c / lkh_cost if lkh_cost else float(c == 0)
        runs = {}
        limits = (("same", max(seconds, 0.01)), ("tenth", max(seconds / 10, 0.01)))
        limits = limits[1:] if tenth_only else limits
        shown = limits[0][0]  # the column whose bound, gap and wall time the row prints
        for label, limit in limits:
            if before:
                runs["before " + label] = thicket(path, text, d, limit, before, before_backend)
            start = time.perf_counter()
            runs[label] = thicket(path, text, d, limit, THICKET, backend)
            if label == shown:
                wall = time.perf_counter() - start
        first = runs[shown]
        columns = ["same", "tenth"] + (["before same", "before tenth"] if before else [])
        cells = [f"{runs[c]['cost']} | {ratio(runs[c]['cost']):.4f}" if c in runs else "- | -" for c in columns]
        print(f"| {name} | {len(d)} | {lkh_cost} | {seconds:.2f} | " + " | ".join(cells)
              + f" | {first['lower_bound']} ({first['lower_bound_source']}) | {100 * first['gap']:.2f}% | {wall:.2f} |",
              flush=True)
        for label, run in runs.items():
            tally.setdefault(label, []).append(ratio(run["cost"]))
    print()
    for label, ratios in tally.items():
        line = f"{label}: {len(ratios)} instances, worst ratio {max(ratios):.4f}, "
        if label.endswith("same"):
            line += f"{sum(r <= 1.0 for r in ratios)} at most LKH-3's cost"
        else:
            line += f"{sum(r <= 1.01 for r in ratios)} within 1% of LKH-3's cost"
        print(line)


if __name__ == "__main__":
    args = sys.argv[1:]
    flags = {"--before": None, "--backend": None, "--before-backend": None}
    tenth_only = "--tenth-only" in args
    args = [a for a in args if a != "--tenth-only"]
    while args[:1] and args[0] in flags:
        flags[args[0]], args = args[1], args[2:]
    main(args or DEFAULT, flags["--before"], flags["--backend"], flags["--before-backend"], tenth_only)
