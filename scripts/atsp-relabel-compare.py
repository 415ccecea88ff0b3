#!/usr/bin/env python3
"""thicket builds side by side against LKH-3, each instance run several times with its cities
relabelled, so that a heuristic's effect can be told from a run's luck (issue 46).

Usage: python3 scripts/atsp-relabel-compare.py --builds BASE OTHER... [--runs R] [--fraction F]
                                               [--lkh-cache FILE] [--lkh-seeds "2 3 4"] INSTANCE...
An INSTANCE is a TSPLIB FULL_MATRIX .atsp file or a generator spec CLASS:N:SEED, as for
scripts/atsp-vs-lkh.py, whose LKH-3 call (elkai, runs=1) and cache this script shares: LKH-3
solves each instance once, and every build is given F times LKH-3's wall time (F = 1 by default,
0.1 for the tenth). Run r (0 to R-1, R = 3 by default) renumbers the cities by a permutation
seeded with r (run 0 keeps them): the same instance, another search path, since a build's
kicks are seeded and its lists break ties by city. A build is a thicket binary, or a script that
runs one (to set a build's environment). Each tour is checked and its cost recomputed here.

Prints one line a run (the ratio of each build's cost to LKH-3's), then a table per class and
size: each build's geometric mean ratio and, against the first build, the mean change of the
log-ratio with its standard error over the paired runs and how many runs were cheaper and
dearer. With --lkh-seeds, LKH-3 also solves each instance (as numbered, one at a time, its
default trials) with those random seeds beside its default 1, and a last table sets each build's
mean cost over its runs against LKH-3's mean over its seeds: one run of each solver against one
of the other is a coin toss where both are as good (LKH-3's other seeds are dearer than its
default on 8-9 of issue 46's 86 instances), the means are not. With one run an instance the
runs of a build vary by about 0.5% on stilt at n = 316, so a 40-run mean's standard error is
about 0.1%. Slow and machine-dependent: never run by CI.
"""
import argparse, importlib.util, math, random, re, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("vs_lkh", HERE / "atsp-vs-lkh.py")
vs_lkh = importlib.util.module_from_spec(spec)
# Registered before it runs, so that its LKH-3 worker pool can pickle its functions by name.
sys.modules["vs_lkh"] = vs_lkh
spec.loader.exec_module(vs_lkh)


def relabelled(d, run):
    """The matrix `d` with its cities renumbered by run `run`'s permutation (run 0: as is),
    and its TSPLIB text."""
    n = len(d)
    perm = list(range(n))
    if run:
        random.Random(run).shuffle(perm)
    matrix = [[d[perm[i]][perm[j]] for j in range(n)] for i in range(n)]
    rows = [" ".join(map(str, row)) for row in matrix]
    text = (f"NAME: relabelled\nTYPE: ATSP\nDIMENSION: {n}\nEDGE_WEIGHT_TYPE: EXPLICIT\n"
            "EDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n" + "\n".join(rows) + "\nEOF\n")
    return matrix, text


def summary(label, runs):
    """The class's row: each build's geometric mean, and each later build against the first."""
    gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    cells = [f"{gm([r[0] for r in runs]):.4f}"]
    for b in range(1, len(runs[0])):
        diffs = [math.log(r[b] / r[0]) for r in runs]
        mean = sum(diffs) / len(diffs)
        spread = math.sqrt(sum((x - mean) ** 2 for x in diffs) / max(len(diffs) - 1, 1))
        cells.append(f"{gm([r[b] for r in runs]):.4f} ({100 * mean:+.2f}% ± {100 * spread / math.sqrt(len(diffs)):.2f}, "
                     f"{sum(x < 0 for x in diffs)} cheaper, {sum(x > 0 for x in diffs)} dearer)")
    print(f"| {label} | {len(runs)} | " + " | ".join(cells) + " |")


def lkh_seed_costs(instances, seeds, cache_path):
    """LKH-3's cost on every instance with each of `seeds`, from the cache where it has them
    (keyed `instance@seed`)."""
    cache = vs_lkh.read_cache(cache_path)
    for name in instances:
        for seed in seeds:
            if f"{name}@{seed}" not in cache:
                _, c, seconds = vs_lkh.lkh_seeded((name, seed, None))
                cache[f"{name}@{seed}"] = [c, seconds]
                vs_lkh.write_cache(cache_path, cache)
    return {(name, seed): cache[f"{name}@{seed}"][0] for name in instances for seed in seeds}


def print_means(builds, costs, lkh):
    """Per instance, LKH-3's runs (`lkh[name]`, its default seed's first) against the first,
    their mean, and each build's mean cost over its runs (`costs[name]`, one list of costs a
    run) against that mean and how many of its runs cost at most LKH-3's dearest run; then per
    class the geometric mean of each build's mean against LKH-3's."""
    print("\n| instance | LKH-3's seeds: cost / seed 1's | mean |"
          + "".join(f" {b}: mean / LKH-3's mean | runs at most LKH-3's dearest |" for b in builds))
    print("|---|---|---:|" + "---:|---:|" * len(builds))
    by_class = {}
    for name, runs in costs.items():
        ours = lkh[name]
        mean = sum(ours) / len(ours)
        against = []
        cells = []
        for b in range(len(builds)):
            theirs = [run[b] for run in runs]
            against.append(sum(theirs) / len(theirs) / mean)
            cells.append(f" {against[-1]:.4f} | {sum(c <= max(ours) for c in theirs)} of {len(theirs)} |")
        for label in (vs_lkh.group(name), "all"):
            by_class.setdefault(label, []).append(against)
        spread = " / ".join(f"{vs_lkh.ratio(c, ours[0]):.4f}" for c in ours)
        print(f"| {name} | {spread} | {mean / ours[0]:.4f} |" + "".join(cells))
    by_class["all"] = by_class.pop("all")  # the last row
    print("\n| class | instances |" + "".join(f" {b}: geo. mean of mean / LKH-3's mean |" for b in builds))
    print("|---|---:|" + "---:|" * len(builds))
    for label, rows in by_class.items():
        print(f"| {label} | {len(rows)} |"
              + "".join(f" {vs_lkh.geometric_mean([row[b] for row in rows]):.4f} |" for b in range(len(builds))))


def main():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--builds", nargs="+", default=[])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fraction", type=float, default=1.0)
    parser.add_argument("--lkh-cache")
    parser.add_argument("--lkh-seeds", default="")
    parser.add_argument("instances", nargs="*")
    args = parser.parse_args()
    # --builds takes every word after it: the instances among them (specs, .atsp files) are
    # the instances.
    is_instance = lambda word: re.fullmatch(r"[a-z]+:\d+:\d+", word) or word.endswith(".atsp")
    args.instances += [word for word in args.builds if is_instance(word)]
    args.builds = [word for word in args.builds if not is_instance(word)]
    if args.help or not args.builds or not args.instances:
        print(__doc__)
        return
    if not vs_lkh.MATRIX.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "thicket-atsp", "--example", "atsp_matrix"], check=True)
    answers = vs_lkh.lkh_answers(args.instances, None, 1, args.lkh_cache)
    print(f"LKH-3 through elkai {vs_lkh.version('elkai')} (runs=1); each build given "
          f"{args.fraction:g} x LKH-3's time, {args.runs} relabelled runs an instance\n")
    seeds = [int(seed) for seed in args.lkh_seeds.split() if int(seed) != 1]
    others = lkh_seed_costs(args.instances, seeds, args.lkh_cache)
    by_class, costs = {}, {}
    for name in args.instances:
        d = vs_lkh.full_matrix(vs_lkh.instance(name)[2])
        lkh_cost, seconds = answers[name]
        limit = max(seconds * args.fraction, 0.01)
        for run in range(args.runs):
            dr, text = relabelled(d, run)
            found = [vs_lkh.thicket("-", text, dr, limit, build)["cost"] for build in args.builds]
            costs.setdefault(name, []).append(found)
            ratios = [c / lkh_cost for c in found]
            by_class.setdefault(vs_lkh.group(name), []).append(ratios)
            print(f"{name} run {run} ({limit:.2f} s): " + " ".join(f"{r:.4f}" for r in ratios), flush=True)
    print("\n| class | runs | " + " | ".join(args.builds) + " |")
    print("|---|---:|" + "---|" * len(args.builds))
    for label, runs in by_class.items():
        summary(label, runs)
    summary("all", [r for runs in by_class.values() for r in runs])
    if seeds:
        lkh = {name: [answers[name][0]] + [others[name, seed] for seed in seeds] for name in args.instances}
        print_means(args.builds, costs, lkh)


if __name__ == "__main__":
    main()
