#!/usr/bin/env bash
# thicket's CPU BFS and SSSP beside GAPBS's reference code (sbeamer/gapbs) on the same file and
# the same roots, the two tools' processes alternated round after round, medians compared.
#
#   scripts/gapbs-compare.sh GAPBS_DIR [WORK_DIR]
#
# GAPBS_DIR holds GAPBS's `bfs` and `sssp`, built OUTSIDE this repository with its own Makefile
# (`git clone https://github.com/sbeamer/gapbs && make -C gapbs bfs sssp`); WORK_DIR (default
# /tmp/thicket-gapbs) gets the graph files and the logs. thicket is target/release/thicket (or
# $THICKET_BIN). Settings (environment): SCALE (20), EDGE_FACTOR (16), THREADS (2), DELTA (2),
# ROUNDS (5), TRIALS (searches per process and root, 3), BFS_ROOTS ("629889 842131 99441
# 10301"), SSSP_ROOTS ("629889 10301"), RUN (a prefix for both tools' processes, e.g.
# "nice -n -5" or "chrt -f 10"; default none). Prints the medians per search and root; the load
# average is printed before and after (compare only on a quiet machine).
set -euo pipefail

gapbs=${1:?usage: scripts/gapbs-compare.sh GAPBS_DIR [WORK_DIR]}
work=${2:-/tmp/thicket-gapbs}
thicket=${THICKET_BIN:-target/release/thicket}
scale=${SCALE:-20}
edge_factor=${EDGE_FACTOR:-16}
threads=${THREADS:-2}
delta=${DELTA:-2}
rounds=${ROUNDS:-5}
trials=${TRIALS:-3}
bfs_roots=${BFS_ROOTS:-629889 842131 99441 10301}
sssp_roots=${SSSP_ROOTS:-629889 10301}
read -r -a run <<<"${RUN:-}"

for tool in "$gapbs/bfs" "$gapbs/sssp" "$thicket"; do
    [[ -x $tool ]] || { echo "no executable $tool" >&2; exit 2; }
done
mkdir -p "$work"
graph="$work/k$scale-$edge_factor.wel"
# One weighted edge list (weights 1..255), read by both tools; BFS ignores the weights.
[[ -s $graph ]] || "$thicket" graph gen kron --scale "$scale" --edge-factor "$edge_factor" \
    --seed 1 -o "$graph"
export OMP_NUM_THREADS=$threads
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
log="$work/times.tsv"
: >"$log"

# GAPBS: the per-trial times of one process (-n trials from root -r).
gapbs_times() {
    local kernel=$1 root=$2
    shift 2
    "${run[@]}" "$gapbs/$kernel" -f "$graph" -r "$root" -n "$trials" "$@" | awk '/^Trial Time:/ {print $3}'
}

# thicket: the per-search times of one process (the root repeated `trials` times).
thicket_times() {
    local kernel=$1 root=$2
    shift 2
    local repeated=()
    for _ in $(seq "$trials"); do repeated+=(--source "$root"); done
    "${run[@]}" "$thicket" "$kernel" "$graph" "${repeated[@]}" --backend cpu --threads "$threads" --json \
        --quiet "$@" | python3 -c 'import json, sys
d = json.load(sys.stdin)
for s in d.get("searches", [d]):
    print(s.get("seconds", d.get("mean_search_seconds")))'
}

for round in $(seq "$rounds"); do
    for root in $bfs_roots; do
        gapbs_times bfs "$root" | sed "s/^/bfs\t$root\tgapbs\t/" >>"$log"
        thicket_times bfs "$root" | sed "s/^/bfs\t$root\tthicket\t/" >>"$log"
    done
    for root in $sssp_roots; do
        gapbs_times sssp "$root" -d "$delta" | sed "s/^/sssp\t$root\tgapbs\t/" >>"$log"
        thicket_times sssp "$root" --delta "$delta" | sed "s/^/sssp\t$root\tthicket\t/" >>"$log"
    done
    echo "round $round of $rounds done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$log" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kernel, root, tool, seconds = line.split()
    rows.setdefault((kernel, root), {}).setdefault(tool, []).append(float(seconds))
print("| search | root | GAPBS median (min) | thicket median (min) | thicket / GAPBS |")
print("|---|---:|---:|---:|---:|")
for (kernel, root), tools in rows.items():
    g, t = tools["gapbs"], tools["thicket"]
    gm, tm = statistics.median(g), statistics.median(t)
    print(f"| {kernel} | {root} | {gm * 1e3:.1f} ms ({min(g) * 1e3:.1f}) "
          f"| {tm * 1e3:.1f} ms ({min(t) * 1e3:.1f}) | {tm / gm:.2f} |")
EOF
