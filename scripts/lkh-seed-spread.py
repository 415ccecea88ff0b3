#!/usr/bin/env python3
"""LKH-3 against itself: how often a run of LKH-3 with another random seed is at most the cost of
its default run (SEED = 1), the yardstick issue 46 holds thicket to (a cost at most LKH-3's in the
same time). Prints a Markdown table.

Usage: python3 scripts/lkh-seed-spread.py [--seeds "2 3 4"] [--jobs J] [--quickest] [INSTANCE...]
An INSTANCE is a TSPLIB FULL_MATRIX .atsp file or a generator spec CLASS:N:SEED, as for
scripts/atsp-vs-lkh.py, whose matrices and LKH-3 problem text this script shares. Every
instance is solved by LKH-3 3.0.8 through PyPI's `elkai` (RUNS = 1, its default trials, the
parameters and problem elkai's DistanceMatrix.solve_tsp passes plus `SEED = s`), first with
LKH-3's default seed 1, then with each seed of --seeds (default "2 3 4"), J solves at a time
(default 1: quiet timings). Each run's own wall time is printed beside its cost: the seeds' runs
take about as long as the default's, since the trials are the same in number. The last lines count, per seed and per class and size, the
instances where that seed's cost is at most the default's, and the geometric mean of the ratio.
With --quickest, LKH-3 also runs once with TIME_LIMIT = 0.001, its quickest answer: LKH-3
counts that limit from the end of its preprocessing and subgradient ascent (a limit of 1 us
returned no tour), so the run is the ascent and the tour its first trial holds when the limit
strikes. Its time is printed beside a tenth of the default run's (issue 46's second yardstick:
within 1% of LKH-3's cost in a tenth of its time).
Both tours are checked and their costs recomputed here. Slow: never run by CI.
"""
import argparse, importlib.util, sys
from multiprocessing import Pool
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("vs_lkh", HERE / "atsp-vs-lkh.py")
vs_lkh = importlib.util.module_from_spec(spec)
# Registered before it runs, so that the worker pool can pickle its functions by name.
sys.modules["vs_lkh"] = vs_lkh
spec.loader.exec_module(vs_lkh)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="2 3 4", help="LKH-3's seeds beside its default 1")
    parser.add_argument("--jobs", type=int, default=1, help="LKH-3 solves at a time")
    parser.add_argument("--quickest", action="store_true",
                        help="also LKH-3's quickest answer (TIME_LIMIT = 0.001)")
    parser.add_argument("instances", nargs="*", default=vs_lkh.DEFAULT)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split()]
    if not seeds:
        parser.error("--seeds needs at least one seed")
    if not vs_lkh.MATRIX.exists():
        print(f"lkh-seed-spread.py: build {vs_lkh.MATRIX} first (cargo build --release --examples "
              "-p thicket-atsp)", file=sys.stderr)
        sys.exit(2)
    print(f"LKH-3 through elkai {vs_lkh.version('elkai')} (RUNS = 1), seed 1 against seeds "
          f"{', '.join(map(str, seeds))}, {args.jobs} at a time\n")
    jobs = [(instance, seed, None) for instance in args.instances for seed in [1] + seeds]
    jobs += [(instance, 1, "0.001") for instance in args.instances if args.quickest]
    answers = {}
    with Pool(max(args.jobs, 1)) as pool:
        for key, cost, seconds in pool.imap(vs_lkh.lkh_seeded, jobs):
            answers[key] = (cost, seconds)
    quickest = " quickest | ratio | s | a tenth, s |" if args.quickest else ""
    print("| instance | seed 1 cost | s |" + "".join(f" seed {s} | ratio | s |" for s in seeds) + quickest)
    print("|---|---:|---:|" + "---:|---:|---:|" * len(seeds) + "---:|---:|---:|---:|" * args.quickest)
    by_class = {}
    for instance in args.instances:
        base, base_s = answers[instance, 1]
        cells = []
        for s in seeds:
            cost, seconds = answers[instance, s]
            ratio = vs_lkh.ratio(cost, base)
            cells.append(f" {cost} | {ratio:.4f} | {seconds:.2f} |")
            by_class.setdefault(vs_lkh.group(instance), {}).setdefault(s, []).append(ratio)
            by_class.setdefault("all", {}).setdefault(s, []).append(ratio)
        if args.quickest:
            cost, seconds = answers[instance, "quickest"]
            ratio = vs_lkh.ratio(cost, base)
            cells.append(f" {cost} | {ratio:.4f} | {seconds:.3f} | {base_s / 10:.3f} |")
            by_class[vs_lkh.group(instance)].setdefault("quickest", []).append((ratio, seconds <= base_s / 10))
            by_class["all"].setdefault("quickest", []).append((ratio, seconds <= base_s / 10))
        print(f"| {instance} | {base} | {base_s:.2f} |" + "".join(cells))
    by_class["all"] = by_class.pop("all")  # the last row
    print("\n| class | instances |" + "".join(f" seed {s}: geo. mean | worst | at most seed 1 |" for s in seeds))
    print("|---|---:|" + "---:|---:|---:|" * len(seeds))
    for name, runs in by_class.items():
        cells = []
        for s in seeds:
            ratios = runs[s]
            cells.append(f" {vs_lkh.geometric_mean(ratios):.4f} | {max(ratios):.4f} | {sum(r <= 1.0 for r in ratios)} of {len(ratios)} |")
        print(f"| {name} | {len(runs[seeds[0]])} |" + "".join(cells))
    if args.quickest:
        print("\n| class | instances | quickest: geo. mean | worst | within 1% | in a tenth of the default's time |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, runs in by_class.items():
            trials = runs["quickest"]
            geo = vs_lkh.geometric_mean([r for r, _ in trials])
            print(f"| {name} | {len(trials)} | {geo:.4f} | {max(r for r, _ in trials):.4f} | "
                  f"{sum(r <= 1.01 for r, _ in trials)} of {len(trials)} | {sum(t for _, t in trials)} of {len(trials)} |")


if __name__ == "__main__":
    main()
