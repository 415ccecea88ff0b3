#!/usr/bin/env python3
"""The regression guard: a fixed set of GPU and CPU work run by two thicket builds in one call
on the GPU machine, the builds alternated round by round, each answer checked equal between
them, and one table of ratios (new / old, below 1 is faster).

    python3 scripts/gpu-regress.py OLD_THICKET NEW_THICKET [--rounds 3] [--only NAMES]
                                   [--work DIR] [--kluev BINARY_DIR] [--first-use]

Run it for every change to GPU code or a hot CPU path, against the last landed build (carry
both binaries to the device), and put its table in the closing note; a ratio above 1.05 is
fixed or explained before the work is called done (docs/benchmarks.md, "The regression
guard", keeps the latest table per card).

Each item's metric is the best over rounds of what the item names (a kernel's own time where
the JSON has one, else the command's `seconds`); `wall` is the best whole-process time. The
work (DIR keeps the generated inputs between calls):

  queens-20          thicket queens 20 --backend cuda (seconds; total checked against OEIS)
  lookback-100k-f64  lookback --steps 100000 --backend cuda, f64, price alone (kernel_seconds)
  lookback-100k-f32  the same in f32
  lookback-30k-f64   the same at 30,000 steps
  nvidia-book-f32    binomial --batch (NVIDIA binomialOptions' 1,024 calls x 2,048 steps), f32
                     (span_seconds)
  nvidia-book-f64    the same in f64
  lookback-book      lookback --batch (4,096 random options, 64-256 steps, every payoff), f64
                     (span_seconds)
  bfs-kron22         bfs on Kronecker scale 22 (edge factor 16), 64 sources (mean_search_seconds)
  sssp-kron22        sssp on the same graph, 8 sources (mean_search_seconds)
  maxflow-genrmf     maxflow --generate genrmf:128:128:1:10000:1 --backend cuda (2M vertices;
                     solve_seconds)
  schedule-braun     schedule u_c_hihi.0 --time-limit 1 --backend cuda (makespan: lower is
                     better; a schedule, not a time)
  atsp-proof         atsp ftv70 (proven optimal; seconds)
  queens-cpu-16..18  queens N --backend cpu --threads 1 (seconds), beside Kluev's counter when
                     --kluev names a folder holding kluev-16, kluev-17 and kluev-18 (its binaries
                     built per size, `./kluev-N 1`)
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOOKBACK = ["lookback", "--spot", "50", "--maturity", "0.35", "--volatility", "0.3",
            "--rate", "0.1", "--backend", "cuda", "--trials", "4"]
# The price alone (no bumped lattices): builds between fd08fba and --greeks priced vega and
# rho unless told not to (`price_alone` asks each build's help).
PRICE_ALONE = "{price-alone}"


def items(work):
    """Every item: name, arguments (list), metric key, answer keys that must agree."""
    braun = os.path.join(REPO, "crates/thicket-schedule/data/braun/u_c_hihi.0")
    ftv70 = os.path.join(REPO, "crates/thicket-atsp/data/ftv70.atsp")
    kron = os.path.join(work, "kron22.sg")
    wkron = os.path.join(work, "kron22.wsg")
    priced = os.path.join(work, "priced.csv")
    return [
        ("queens-20", ["queens", "20", "--backend", "cuda"], "seconds", ["total"]),
        ("lookback-100k-f64", LOOKBACK + ["--steps", "100000", "--precision", "f64"] + [PRICE_ALONE],
         "kernel_seconds", ["price"]),
        ("lookback-100k-f32", LOOKBACK + ["--steps", "100000", "--precision", "f32"] + [PRICE_ALONE],
         "kernel_seconds", ["price"]),
        ("lookback-30k-f64", LOOKBACK + ["--steps", "30000", "--precision", "f64"] + [PRICE_ALONE],
         "kernel_seconds", ["price"]),
        # A book's prices go to a file: --json on stdout is the run's summary.
        ("nvidia-book-f32", ["binomial", "--batch", os.path.join(work, "nvidia-book.csv"),
                             "-o", priced, "--strategy", "tiles", "--precision", "f32",
                             "--backend", "cuda", "--trials", "3"] + [PRICE_ALONE],
         "span_seconds", ["options"]),
        ("nvidia-book-f64", ["binomial", "--batch", os.path.join(work, "nvidia-book.csv"),
                             "-o", priced, "--strategy", "tiles", "--precision", "f64",
                             "--backend", "cuda", "--trials", "3"] + [PRICE_ALONE],
         "span_seconds", ["options"]),
        ("lookback-book", ["lookback", "--batch", os.path.join(work, "book-4096.csv"),
                           "-o", priced, "--backend", "cuda", "--trials", "3"] + [PRICE_ALONE],
         "span_seconds", ["options"]),
        ("bfs-kron22", ["bfs", kron, "--sources", "64", "--backend", "cuda"],
         "mean_search_seconds", ["reached", "sum_distances"]),
        ("sssp-kron22", ["sssp", wkron, "--sources", "8", "--backend", "cuda"],
         "mean_search_seconds", ["reached", "sum_distances"]),
        ("maxflow-genrmf", ["maxflow", "--generate", "genrmf:128:128:1:10000:1",
                            "--backend", "cuda"], "solve_seconds", ["flow"]),
        ("schedule-braun", ["schedule", braun, "--time-limit", "1", "--backend", "cuda"],
         "makespan", []),
        ("atsp-proof", ["atsp", ftv70], "seconds", ["cost", "proven_optimal"]),
    ] + [
        (f"queens-cpu-{n}", ["queens", str(n), "--backend", "cpu", "--threads", "1"], "seconds",
         ["total"]) for n in (16, 17, 18)
    ]


def prepare(new, work):
    """The generated inputs, made once by the new build (kept in `work` between calls)."""
    os.makedirs(work, exist_ok=True)
    book = os.path.join(work, "nvidia-book.csv")
    if not os.path.exists(book):
        # NVIDIA's binomialOptions sample's book, as scripts/gpu-check.sh draws it.
        rng = random.Random(123)
        with open(book, "w") as f:
            f.write("payoff,style,spot,strike,maturity,volatility,rate,steps\n")
            for _ in range(1024):
                s, k, t = rng.uniform(5, 30), rng.uniform(1, 100), rng.uniform(0.25, 10)
                f.write(f"call,european,{s:.6f},{k:.6f},{t:.6f},0.10,0.06,2048\n")
    lookbacks = os.path.join(work, "book-4096.csv")
    if not os.path.exists(lookbacks):
        with open(lookbacks, "w") as f:
            subprocess.run([sys.executable, os.path.join(REPO, "scripts/gen-book.py"), "4096",
                            "--seed", "7", "--steps", "64:256"], stdout=f, check=True)
    for name in ("kron22.sg", "kron22.wsg"):
        path = os.path.join(work, name)
        if not os.path.exists(path):
            subprocess.run([new, "graph", "gen", "kron", "--scale", "22", "--edge-factor", "16",
                            "-o", path, "--quiet"], check=True)


def price_alone(binary):
    """The flags that make `binary` price a lattice's price alone (see PRICE_ALONE)."""
    help_text = subprocess.run([binary, "lookback", "--help"], capture_output=True,
                               text=True).stdout
    if "--greeks" in help_text or "--no-vega-rho" not in help_text:
        return []
    return ["--no-vega-rho"]


def run(binary, args, env=None):
    """(wall seconds, JSON) of one run, or (wall, None) with the error printed."""
    args = [a for arg in args for a in (price_alone(binary) if arg == PRICE_ALONE else [arg])]
    started = time.perf_counter()
    done = subprocess.run([binary] + args + ["--json", "--quiet"], capture_output=True, text=True,
                          env=env)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        print(f"  {os.path.basename(binary)} {' '.join(args)}: exit {done.returncode}: "
              f"{done.stderr.strip()}", flush=True)
        return wall, None
    return wall, json.loads(done.stdout)


def metric_of(answer, key):
    value = answer.get(key)
    if value is None:
        # Builds without the key report the command's seconds.
        value = answer.get("seconds")
    return value


def first_use(builds, work):
    """Whole-process seconds of a first GPU call on a machine whose kernel cache is empty (a
    fresh THICKET_CACHE_DIR per build and command): what a new user waits."""
    commands = [
        ("first lookback", [a for a in LOOKBACK if a != "4"][:-1] + ["--trials", "1", "--steps",
                                                                     "1000"]),
        ("first queens 16", ["queens", "16", "--backend", "cuda"]),
        ("first bfs", ["bfs", os.path.join(work, "kron22.sg"), "--sources", "1",
                       "--backend", "cuda"]),
    ]
    print()
    print("| first use (empty kernel cache) | " + " | ".join(builds) + " |")
    print("|---|" + "---:|" * len(builds))
    for label, argv in commands:
        cells = []
        for which, binary in builds.items():
            env = dict(os.environ, THICKET_CACHE_DIR=tempfile.mkdtemp(prefix="thicket-first-"))
            wall, answer = run(binary, argv, env)
            cells.append(f"{wall:.2f} s" if answer is not None else "failed")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def kluev_seconds(folder, n):
    binary = os.path.join(folder, f"kluev-{n}")
    if not os.access(binary, os.X_OK):
        return None
    started = time.perf_counter()
    subprocess.run([binary, "1"], capture_output=True, check=True)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated item names (default: all)")
    parser.add_argument("--work", default="/tmp/thicket-regress")
    parser.add_argument("--kluev", default="", help="a folder of kluev-16, -17, -18")
    parser.add_argument("--first-use", action="store_true",
                        help="also time first calls with an empty kernel cache")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    work_items = [i for i in items(args.work) if not only or i[0] in only]
    prepare(args.new, args.work)
    builds = {"old": args.old, "new": args.new}
    best = {}
    for round_ in range(args.rounds):
        for name, argv, key, answer_keys in work_items:
            answers = {}
            # Alternated: old first in even rounds, new first in odd ones.
            order = ["old", "new"] if round_ % 2 == 0 else ["new", "old"]
            for which in order:
                wall, answer = run(builds[which], argv)
                if answer is None:
                    continue
                value = metric_of(answer, key)
                answers[which] = [answer.get(k) for k in answer_keys]
                slot = best.setdefault((name, which), [float("inf"), float("inf")])
                slot[0] = min(slot[0], value if value is not None else float("inf"))
                slot[1] = min(slot[1], wall)
                print(f"round {round_ + 1} {name} {which}: {key} {value} wall {wall:.3f} s "
                      f"{dict(zip(answer_keys, answers[which]))}", flush=True)
            if len(answers) == 2 and answers["old"] != answers["new"]:
                print(f"  ANSWERS DIFFER for {name}: old {answers['old']} new {answers['new']}",
                      flush=True)
    print()
    print("| work | metric | old | new | new / old | wall old | wall new | wall new / old |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    for name, _, key, _ in work_items:
        old, new = best.get((name, "old")), best.get((name, "new"))
        if not old or not new or old[0] in (0, float("inf")) or new[0] == float("inf"):
            print(f"| {name} | {key} | {old} | {new} | failed | | | |")
            continue
        ratio, wall_ratio = new[0] / old[0], new[1] / old[1]
        worst = max(worst, ratio)
        flag = " **" if ratio > 1.05 else ""
        print(f"| {name} | {key} | {old[0]:.6g} | {new[0]:.6g} | {ratio:.3f}{flag} | "
              f"{old[1]:.3f} | {new[1]:.3f} | {wall_ratio:.3f} |")
    if args.first_use:
        first_use(builds, args.work)
    if args.kluev:
        print()
        print("| N | Kluev, one thread (s) |")
        print("|---|---:|")
        for n in (16, 17, 18):
            seconds = kluev_seconds(args.kluev, n)
            if seconds is not None:
                print(f"| {n} | {seconds:.3f} |")
    print(f"\nworst ratio {worst:.3f} (above 1.05: fix or explain)")


if __name__ == "__main__":
    main()
