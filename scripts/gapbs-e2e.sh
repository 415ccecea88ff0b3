#!/usr/bin/env bash
# The whole process, from the file on disk to the answer, thicket beside GAPBS (sbeamer/gapbs)
# on the same files and roots: wall time of one process each, the two tools alternated round
# after round, medians compared.
#
#   scripts/gapbs-e2e.sh GAPBS_SRC [WORK_DIR]
#
# GAPBS_SRC is a copy of GAPBS's source (outside this repository); the script builds its
# `bfs`, `sssp` and `converter` there with GAPBS's own Makefile (`make bfs sssp converter`)
# and prints its commit and build line. WORK_DIR (default /tmp/thicket-gapbs-e2e) gets the
# graphs and the logs. thicket is target/release/thicket (or $THICKET_BIN).
# Settings (environment): THREADS (2; OMP_NUM_THREADS for GAPBS, RAYON_NUM_THREADS and
# --threads for thicket), SCALE (20), EDGE_FACTOR (16), DELTA (2), ROUNDS (3), ROOT (default:
# thicket's first random root of the graph, one with arcs).
#
# Rows (each the median wall time over ROUNDS processes, seconds):
#   gen      thicket `graph gen kron -o k.tgr`   | GAPBS `converter -g SCALE -k EF -b g.sg`
#   gen-el   thicket `graph gen kron -o k.el`    | GAPBS `converter -g SCALE -k EF -e g.el`
#   bfs-el   thicket `bfs k.el --source R`       | GAPBS `bfs -f k.el -r R -n 1`
#   sssp-wel thicket `sssp k.wel --source R --delta D` | GAPBS `sssp -f k.wel -r R -n 1 -d D`
#   bfs-bin  thicket `bfs k.tgr --source R`      | GAPBS `bfs -f k.sg -r R -n 1` (k.sg: GAPBS's
#            converter from k.el, so each tool reads its own serialized form of the same graph)
#   bfs-sg   thicket `bfs k.sg --source R` (thicket reading GAPBS's file) | as bfs-bin
# Files are read from the page cache (each was just written); compare on a quiet machine.
# thicket's generation stages (drawing, building, writing) are printed after the table.
set -euo pipefail

src=${1:?usage: scripts/gapbs-e2e.sh GAPBS_SRC [WORK_DIR]}
work=${2:-/tmp/thicket-gapbs-e2e}
thicket=$(realpath "${THICKET_BIN:-target/release/thicket}")
threads=${THREADS:-2}
scale=${SCALE:-20}
edge_factor=${EDGE_FACTOR:-16}
delta=${DELTA:-2}
rounds=${ROUNDS:-3}

[[ -x $thicket ]] || { echo "no executable $thicket" >&2; exit 2; }
make -C "$src" bfs sssp converter >&2
gapbs=$(realpath "$src")
echo "GAPBS: $(git -C "$src" rev-parse HEAD 2>/dev/null || echo 'commit unknown'), built with:" \
    "$(make -C "$src" -n -B bfs 2>/dev/null | grep -m1 -- '-o bfs' || echo 'its Makefile')"
echo "thicket: $("$thicket" --version | head -2 | tr "\n" " ")"
echo "threads $threads, Kronecker scale $scale, edge factor $edge_factor, $rounds rounds," \
    "$(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
export OMP_NUM_THREADS=$threads RAYON_NUM_THREADS=$threads
mkdir -p "$work"
cd "$work"
log=times.tsv
: >"$log"
: >stages.log

# Runs a command, its output to run.log, and appends `row tool seconds` to the log.
timed() {
    local row=$1 tool=$2
    shift 2
    local start end
    start=$(date +%s.%N)
    "$@" >run.log 2>&1 || { echo "failed: $*" >&2; cat run.log >&2; exit 1; }
    end=$(date +%s.%N)
    awk -v r="$row" -v t="$tool" -v s="$start" -v e="$end" 'BEGIN {printf "%s\t%s\t%.3f\n", r, t, e - s}' >>"$log"
}

gen() { "$thicket" graph gen kron --scale "$scale" --edge-factor "$edge_factor" --seed 1 -o "$1"; }

# The files both tools read: thicket's graph, and GAPBS's serialized form of it.
gen k.el
gen k.wel
"$gapbs/converter" -f k.el -b k.sg >/dev/null
root=${ROOT:-$("$thicket" bfs k.el --sources 1 --backend cpu --json --quiet |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["source"])')}
echo "root $root"

for round in $(seq "$rounds"); do
    timed gen thicket gen k.tgr
    grep -h -m1 'generated' run.log >>stages.log || true
    timed gen gapbs "$gapbs/converter" -g "$scale" -k "$edge_factor" -b g.sg
    timed gen-el thicket gen k-again.el
    timed gen-el gapbs "$gapbs/converter" -g "$scale" -k "$edge_factor" -e g.el
    rm -f k-again.el g.el g.sg
    timed bfs-el thicket "$thicket" bfs k.el --source "$root" --backend cpu --threads "$threads" --quiet
    timed bfs-el gapbs "$gapbs/bfs" -f k.el -r "$root" -n 1
    timed sssp-wel thicket "$thicket" sssp k.wel --source "$root" --delta "$delta" --backend cpu \
        --threads "$threads" --quiet
    timed sssp-wel gapbs "$gapbs/sssp" -f k.wel -r "$root" -n 1 -d "$delta"
    timed bfs-bin thicket "$thicket" bfs k.tgr --source "$root" --backend cpu --threads "$threads" --quiet
    timed bfs-bin gapbs "$gapbs/bfs" -f k.sg -r "$root" -n 1
    timed bfs-sg thicket "$thicket" bfs k.sg --source "$root" --backend cpu --threads "$threads" --quiet
    timed bfs-sg gapbs "$gapbs/bfs" -f k.sg -r "$root" -n 1
    echo "round $round of $rounds done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "thicket's gen stages (generated, built, written), one line a round:"
cat stages.log
ls -l k.el k.wel k.tgr k.sg | awk '{print $5, $9}'
python3 - "$log" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    row, tool, seconds = line.split()
    rows.setdefault(row, {}).setdefault(tool, []).append(float(seconds))
print("| row | thicket s | GAPBS s | thicket/GAPBS |")
print("|---|---:|---:|---:|")
for row, tools in rows.items():
    t, g = statistics.median(tools["thicket"]), statistics.median(tools["gapbs"])
    print(f"| {row} | {t:.2f} | {g:.2f} | {t / g:.2f} |")
EOF
