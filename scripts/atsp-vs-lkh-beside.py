#!/usr/bin/env python3
"""thicket's ATSP tour in a fixed time against LKH-3 run beside it, for sizes (n = 3,000) where
LKH-3's own time is minutes and running the two one after the other does not fit one session
on the GPU machine (issue 46); prints a Markdown table.

Usage: python3 scripts/atsp-vs-lkh-beside.py --seconds S [--lkh-time-limit L] [--lkh-cores K]
                                             [--out FILE] INSTANCE...
An INSTANCE is as in scripts/atsp-vs-lkh.py (a TSPLIB FULL_MATRIX file or CLASS:N:SEED). LKH-3
(PyPI's `elkai`, runs=1, with its own TIME_LIMIT parameter L where given: its preprocessing is
not counted in it) solves every instance at once, each pinned to one of the first K cores (its
own, where there are as many cores as instances); meanwhile thicket (the release binary) solves
them one after another with `--time-limit S`, pinned to the other cores with `--threads` set to
their number, the GPU as its default backend chooses. A row's `S / LKH-3 s` says which target
it speaks to: at most 0.1 is the "within 1% at a tenth of LKH-3's time" target (thicket had less
than a tenth), at most 1 the "no dearer in the same time" one. Each answer is appended to FILE
as a JSON line as it comes. Both tours' costs are recomputed here from the matrix. Slow and
machine-dependent: never run by CI.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import time
from multiprocessing import Pool
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("atsp_vs_lkh", HERE / "atsp-vs-lkh.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)


def pin(cores):
    """Pins the calling process to `cores` (one after another per worker of a pool)."""
    os.sched_setaffinity(0, cores)


def lkh_on_core(job):
    """LKH-3 on one instance, on the core the job names."""
    spec, time_limit, core = job
    pin({core})
    return base.lkh((spec, time_limit))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, required=True, help="thicket's time limit")
    parser.add_argument("--lkh-time-limit", type=float, default=None)
    parser.add_argument("--lkh-cores", type=int, default=None,
                        help="cores for LKH-3 (default: one per instance, at most half the cores)")
    parser.add_argument("--out", default=None, help="append each answer here as a JSON line")
    parser.add_argument("instances", nargs="+")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    k = args.lkh_cores or min(len(args.instances), max(len(cores) // 2, 1))
    lkh_cores, thicket_cores = cores[:k], cores[k:] or cores[-1:]

    def record(row):
        if args.out:
            with open(args.out, "a") as out:
                out.write(json.dumps(row) + "\n")

    lkh_answers = {}
    pool = Pool(k)
    jobs = [(spec, args.lkh_time_limit, lkh_cores[i % k]) for i, spec in enumerate(args.instances)]
    pending = pool.map_async(lkh_on_core, jobs, chunksize=1)

    thicket_answers = {}
    for spec in args.instances:
        path, name, text = base.instance(spec)
        d = base.full_matrix(text)
        command = ["taskset", "-c", ",".join(map(str, thicket_cores)), str(base.THICKET), "atsp", path,
                   "--json", "--quiet", "--threads", str(len(thicket_cores)),
                   "--time-limit", f"{args.seconds:.3f}"]
        start = time.perf_counter()
        run = subprocess.run(command, input=text, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        out = json.loads(run.stdout)
        assert sorted(out["tour"]) == list(range(len(d))) and base.cost(d, out["tour"]) == out["cost"]
        thicket_answers[spec] = (out, wall)
        record({"solver": "thicket", "instance": spec, "cost": out["cost"], "wall": wall,
                "lower_bound": out["lower_bound"], "source": out["lower_bound_source"]})

    for spec, answer in pending.get():
        lkh_answers[spec] = answer
        record({"solver": "LKH-3", "instance": spec, "cost": answer[0], "wall": answer[1]})
    pool.close()

    limit_note = f", TIME_LIMIT = {args.lkh_time_limit:g} s" if args.lkh_time_limit is not None else ""
    print(f"LKH-3 through elkai {base.version('elkai')} (runs=1{limit_note}) on cores {lkh_cores[0]}-{lkh_cores[-1]}, "
          f"one each; thicket --time-limit {args.seconds:g} --threads {len(thicket_cores)} on the others\n")
    print("| instance | LKH-3 cost | LKH-3 s | thicket cost | ratio | thicket s / LKH-3 s | lower bound (source) | gap |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    tenth, same = [], []
    for spec in args.instances:
        lkh_cost, lkh_seconds = lkh_answers[spec]
        out, wall = thicket_answers[spec]
        ratio = base.ratio(out["cost"], lkh_cost)
        share = wall / lkh_seconds
        (tenth if share <= 0.1 else same).append(ratio)
        print(f"| {spec} | {lkh_cost} | {lkh_seconds:.1f} | {out['cost']} | {ratio:.4f} | {share:.3f} | "
              f"{out['lower_bound']} ({out['lower_bound_source']}) | {100 * out['gap']:.2f}% |", flush=True)
    print()
    if tenth:
        print(f"at most a tenth of LKH-3's time: {len(tenth)} instances, "
              f"{sum(r <= 1.01 for r in tenth)} within 1% of LKH-3's cost, {sum(r <= 1.0 for r in tenth)} at most it")
    if same:
        print(f"more than a tenth of LKH-3's time: {len(same)} instances, {sum(r <= 1.0 for r in same)} at most LKH-3's cost")


if __name__ == "__main__":
    main()
