#!/usr/bin/env python3
"""thicket's ATSP tour against LKH-3's in LKH-3's own wall time (issue 46); prints a Markdown table.

Usage: python3 scripts/atsp-vs-lkh.py [--before THICKET] [--backend B] [--before-backend B]
                                      [--tenth-only | --same-only] [--lkh-time-limit S]
                                      [--lkh-jobs J] [--lkh-cache FILE] [--lkh-only]
                                      [INSTANCE...]
An INSTANCE is a TSPLIB FULL_MATRIX .atsp file or a generator spec CLASS:N:SEED (written out
by the `atsp_matrix` example, so both solvers get the same matrix); the default set is ftv170
and coin, crane and tsmat at n = 100, 316 and 1,000 (two seeds). LKH-3 is PyPI's `elkai`
(`pip install elkai`), run as `elkai.DistanceMatrix(d).solve_tsp(runs=1)`; thicket is the
release binary (`cargo build --release -p thicket-cli`, under $CARGO_TARGET_DIR if set), given
LKH's wall time as --time-limit, and once more a tenth of it. With --before, another thicket
binary (an earlier build) runs beside it at both times, interleaved, and gets its own columns;
--backend and --before-backend pass `--backend B` to each (GPU against CPU: the same binary
as --before, `--backend cuda --before-backend cpu`).
--tenth-only runs thicket at a tenth of LKH's time alone (where LKH's own time is minutes), and
--same-only at LKH's time alone. Where LKH-3's default trials last too long (n = 3,000),
--lkh-time-limit S passes LKH-3's own TIME_LIMIT parameter through elkai's entry point, with the
problem written as elkai writes it (TYPE TSP where the matrix is symmetric; its measured wall
time is still what thicket gets), --lkh-jobs J runs the LKH-3 solves J at a time before thicket runs, and
--lkh-cache FILE keeps LKH-3's tours and times in FILE (read where it holds the instance), so that
one machine session can run LKH-3 and another thicket (--lkh-only: LKH-3's solves into the
cache, no thicket run). The last lines count, per column, the
instances at most LKH-3's cost (same time) or within 1% of it (a tenth). Both tours' costs are
recomputed here from the matrix; a table per class and size (TSPLIB files together) follows,
with the geometric mean and worst of the ratio and those counts. Slow and machine-dependent: never run by CI.
"""
import json, math, os, subprocess, sys, time
from multiprocessing import Pool
from pathlib import Path

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


def ratio(c, reference):
    """`c` over `reference`, the ratio every table prints; where the reference costs 0, 1 for a
    cost of 0 and 0 otherwise."""
    return c / reference if reference else float(c == 0)


def geometric_mean(ratios):
    """The geometric mean of `ratios`, NaN where one is not positive."""
    if not all(r > 0 for r in ratios):
        return float("nan")
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def thicket(path, text, d, seconds, binary=THICKET, backend=None):
    """thicket's answer (the JSON object) in `seconds` of wall time, its tour checked."""
    flags = ["--backend", backend] if backend else []
    run = subprocess.run([binary, "atsp", path, "--json", "--quiet", "--time-limit", f"{seconds:.3f}"] + flags,
                         input=text, capture_output=True, text=True, check=True)
    out = json.loads(run.stdout)
    assert sorted(out["tour"]) == list(range(len(d))) and cost(d, out["tour"]) == out["cost"]
    return out


def instance(spec):
    """An INSTANCE's (path for thicket, name, TSPLIB text)."""
    if Path(spec).exists():
        return spec, Path(spec).stem, Path(spec).read_text()
    text = subprocess.run([MATRIX, spec], check=True, capture_output=True, text=True).stdout
    return "-", spec, text


def lkh_problem(d):
    """The TSPLIB text elkai's `DistanceMatrix.solve_tsp` hands LKH-3 for matrix `d`: TYPE TSP
    where `d` is symmetric (tsmat), so that LKH-3 solves it as a symmetric problem, else ATSP
    (which LKH-3 solves on its 2n-city symmetric transformation)."""
    symmetric = all(d[i][j] == d[j][i] for i in range(len(d)) for j in range(i))
    return (f"TYPE : {'TSP' if symmetric else 'ATSP'}\nDIMENSION : {len(d)}\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
            "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
            + "".join(" ".join(map(str, row)) + "\n" for row in d))


def lkh(job):
    """LKH-3's (cost, wall seconds) on one instance: `elkai`'s call, or with LKH-3's TIME_LIMIT
    parameter passed through elkai's own entry point (the one its DistanceMatrix calls)."""
    import elkai  # here, so that --help works without it

    spec, time_limit = job
    if time_limit is not None:
        # LKH-3's default seed, as elkai's call.
        _, c, seconds = lkh_seeded((spec, 1, time_limit))
        return spec, (c, seconds)
    d = full_matrix(instance(spec)[2])
    start = time.perf_counter()
    tour = elkai.DistanceMatrix(d).solve_tsp(runs=1)
    tour = tour[:-1] if len(tour) == len(d) + 1 else tour
    seconds = time.perf_counter() - start
    assert sorted(tour) == list(range(len(d)))
    return spec, (cost(d, tour), seconds)


def lkh_seeded(job):
    """LKH-3's (cost, wall seconds) on one instance with one random seed (RUNS = 1, its default
    trials, the problem elkai's call passes) and, where given, its TIME_LIMIT: the job is
    `(spec, seed, time_limit)` and comes back as `((spec, seed or "quickest"), cost, seconds)`."""
    from elkai import _elkai  # here, so that --help works without it

    spec, seed, time_limit = job
    d = full_matrix(instance(spec)[2])
    limit = f"TIME_LIMIT = {time_limit}\n" if time_limit is not None else ""
    params = f"RUNS = 1\nSEED = {seed}\n{limit}PROBLEM_FILE = :stdin:\n"
    start = time.perf_counter()
    tour = [c - 1 for c in _elkai.solve_problem(params, lkh_problem(d))]
    seconds = time.perf_counter() - start
    assert sorted(tour) == list(range(len(d)))
    return (spec, seed if time_limit is None else "quickest"), cost(d, tour), seconds


def read_cache(cache_path):
    """The LKH-3 answers kept in `cache_path` (none where it is not given or not there yet)."""
    return json.loads(Path(cache_path).read_text()) if cache_path and Path(cache_path).exists() else {}


def write_cache(cache_path, cache):
    """Keeps `cache` in `cache_path`, where one is given (after every solve: a long sweep that
    stops keeps what it had)."""
    if cache_path:
        Path(cache_path).write_text(json.dumps(cache, indent=1))


def lkh_answers(instances, time_limit, jobs, cache_path):
    """LKH-3's (cost, seconds) for every instance, from the cache where it has them."""
    cache = read_cache(cache_path)
    missing = [spec for spec in instances if spec not in cache]
    with Pool(max(jobs, 1)) as pool:
        for spec, answer in pool.imap_unordered(lkh, [(spec, time_limit) for spec in missing]):
            cache[spec] = answer
            write_cache(cache_path, cache)
    return {spec: tuple(cache[spec]) for spec in instances}


def group(spec):
    """The row of the per-class table an instance counts in: `class:n` for a generator spec,
    `TSPLIB` for a file."""
    parts = spec.split(":")
    return ":".join(parts[:2]) if len(parts) == 3 and not Path(spec).exists() else "TSPLIB"


def target(label):
    """The ratio a column's runs are counted against: LKH-3's cost at its time, 1% more at a
    tenth."""
    return 1.0 if label.endswith("same") else 1.01


def print_classes(by_class):
    """One row per class and size: the instances, the geometric mean and worst of the ratio
    at LKH-3's time and how many at most its cost, and the same at a tenth (within 1%)."""
    labels = [label for label in ("same", "tenth", "before same", "before tenth")
              if any(label in runs for runs in by_class.values())]
    head = "".join(f" {label}: geo. mean | worst | {'<= LKH-3' if label.endswith('same') else 'within 1%'} |"
                   for label in labels)
    print("| class | instances |" + head)
    print("|---|---:|" + "---:|---:|---:|" * len(labels))
    for name, runs in by_class.items():
        cells = []
        for label in labels:
            ratios = runs.get(label, [])
            if not ratios:
                cells.append(" - | - | - |")
                continue
            cells.append(f" {geometric_mean(ratios):.4f} | {max(ratios):.4f} | {sum(r <= target(label) for r in ratios)} of {len(ratios)} |")
        print(f"| {name} | {max(len(r) for r in runs.values())} |" + "".join(cells))
    print()


def main(instances, before=None, backend=None, before_backend=None, only=None,
         lkh_time_limit=None, lkh_jobs=1, lkh_cache=None):
    if not MATRIX.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "thicket-atsp", "--example", "atsp_matrix"], check=True)
    limit_note = f", TIME_LIMIT = {lkh_time_limit} s" if lkh_time_limit is not None else ""
    print(f"LKH-3 through elkai {version('elkai')} (runs=1{limit_note}, {lkh_jobs} at a time)\n")
    answers = lkh_answers(instances, lkh_time_limit, lkh_jobs, lkh_cache)
    if only == "lkh":
        for spec, (lkh_cost, seconds) in answers.items():
            print(f"{spec}: {lkh_cost} in {seconds:.2f} s")
        return
    extra = " before, same | ratio | before, a tenth | ratio |" if before else ""
    print("| instance | n | LKH-3 cost | LKH-3 s | thicket, same time | ratio | thicket, a tenth | ratio |"
          + extra + " lower bound (source) | gap | wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * (4 if before else 0) + "---:|---:|---:|")
    tally, by_class = {}, {}
    for spec in instances:
        path, name, text = instance(spec)
        d = full_matrix(text)
        lkh_cost, seconds = answers[spec]
        runs = {}
        limits = [(label, limit) for label, limit in (("same", max(seconds, 0.01)), ("tenth", max(seconds / 10, 0.01)))
                  if only in (None, label)]
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
        cells = [f"{runs[c]['cost']} | {ratio(runs[c]['cost'], lkh_cost):.4f}" if c in runs else "- | -" for c in columns]
        print(f"| {name} | {len(d)} | {lkh_cost} | {seconds:.2f} | " + " | ".join(cells)
              + f" | {first['lower_bound']} ({first['lower_bound_source']}) | {100 * first['gap']:.2f}% | {wall:.2f} |",
              flush=True)
        for label, run in runs.items():
            tally.setdefault(label, []).append(ratio(run["cost"], lkh_cost))
            by_class.setdefault(group(spec), {}).setdefault(label, []).append(ratio(run["cost"], lkh_cost))
    print()
    print_classes(by_class)
    for label, ratios in tally.items():
        counted = "at most LKH-3's cost" if label.endswith("same") else "within 1% of LKH-3's cost"
        print(f"{label}: {len(ratios)} instances, worst ratio {max(ratios):.4f}, "
              f"{sum(r <= target(label) for r in ratios)} {counted}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        sys.exit(0)
    flags = {"--before": None, "--backend": None, "--before-backend": None,
             "--lkh-time-limit": None, "--lkh-jobs": "1", "--lkh-cache": None}
    only = next((o for o in ("tenth", "same", "lkh") if f"--{o}-only" in args), None)
    args = [a for a in args if a not in ("--tenth-only", "--same-only", "--lkh-only")]
    while args[:1] and args[0] in flags:
        flags[args[0]], args = args[1], args[2:]
    unknown = [a for a in args if a.startswith("-")]
    if unknown:
        print(f"atsp-vs-lkh.py: unknown option {unknown[0]} (flags come before the instances; --help)",
              file=sys.stderr)
        sys.exit(2)
    main(args or DEFAULT, flags["--before"], flags["--backend"], flags["--before-backend"], only,
         flags["--lkh-time-limit"], int(flags["--lkh-jobs"]), flags["--lkh-cache"])
