#!/usr/bin/env bash
# Issue 33's GPU host paths on one GPU machine, an older build beside a newer one, the whole
# process of each timed (wall seconds) and the answers compared:
#   - bfs K24 --sources 64 --backend cuda (Kronecker scale 24, edge factor 16): the stages from
#     the JSON (read, build, upload, mean search) and every source's summary, which must be the
#     same for both builds;
#   - bfs K20 --sources 8 --backend cuda --output: every source's answer brought back, the
#     distances of both builds compared row by row (a BFS tree is not unique, so not parents);
#   - maxflow --generate genrmf:128:128:1:10000:1 --backend cuda: each stage's seconds.
#
# Usage: scripts/gpu-host-e2e.sh OLD_THICKET NEW_THICKET [WORK_DIR]
# WORK_DIR (default /tmp) keeps k24.tgr and k20.tgr between calls (made by NEW_THICKET).
set -euo pipefail

old=${1:?usage: $0 OLD_THICKET NEW_THICKET [WORK_DIR]}
new=${2:?usage: $0 OLD_THICKET NEW_THICKET [WORK_DIR]}
work=${3:-/tmp}
k24=$work/k24.tgr
k20=$work/k20.tgr
[ -f "$k24" ] || "$new" graph gen kron --scale 24 --edge-factor 16 -o "$k24"
[ -f "$k20" ] || "$new" graph gen kron --scale 20 --edge-factor 16 -o "$k20"

# Runs "$@" with --json --quiet into $work/out.json and prints "LABEL: wall S s".
timed() {
    local label=$1
    shift
    local started ended
    started=$(date +%s.%N)
    "$@" --json --quiet >"$work/out.json"
    ended=$(date +%s.%N)
    python3 -c "print('$label: wall %.2f s' % ($ended - $started))"
}

# Prints the JSON's KEYS and, with SEARCHES, writes every source's summary (no times) there.
show() {
    python3 - "$work/out.json" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keys, searches = sys.argv[2].split(), sys.argv[3] if len(sys.argv) > 3 else None
print({k: d.get(k) for k in keys})
if searches:
    with open(searches, "w") as f:
        for s in d.get("searches", []):
            f.write(" ".join(str(s[k]) for k in
                    ("source", "reached", "sum_distances", "max_distance", "arcs_traversed")) + "\n")
EOF
}

bfs_keys="seconds read_seconds build_seconds gpu_upload_seconds mean_search_seconds reached sum_distances max_distance"
flow_keys="flow seconds read_seconds solve_seconds residual_seconds device_setup_seconds upload_seconds download_seconds global_relabel_seconds push_relabel_seconds host_return_seconds return_relabel_seconds return_push_seconds global_relabels rounds grid_barriers certificate_seconds"

for round in 1 2; do
    for which in old new; do
        bin=${!which}
        timed "$which ($bin) bfs k24 cuda 64 sources, round $round" \
            "$bin" bfs "$k24" --sources 64 --backend cuda
        show "$bfs_keys" "$work/searches-$which.txt"
    done
    if cmp -s "$work/searches-old.txt" "$work/searches-new.txt"; then
        echo "round $round: the 64 summaries are identical"
    else
        echo "round $round: the 64 summaries DIFFER"
    fi
done

for which in old new; do
    bin=${!which}
    timed "$which bfs k20 cuda 8 sources --output" \
        "$bin" bfs "$k20" --sources 8 --backend cuda --output "$work/answers-$which.txt"
    show "$bfs_keys"
    awk '{print $1, $2, $3}' "$work/answers-$which.txt" >"$work/distances-$which.txt"
done
if cmp -s "$work/distances-old.txt" "$work/distances-new.txt"; then
    echo "bfs k20 --output: every distance identical ($(wc -l <"$work/distances-new.txt") rows)"
else
    echo "bfs k20 --output: the distances DIFFER"
fi
rm -f "$work"/answers-*.txt "$work"/distances-*.txt "$work"/searches-*.txt

for round in 1 2; do
    for which in old new; do
        bin=${!which}
        timed "$which maxflow genrmf 128x128 cuda, round $round" \
            "$bin" maxflow --generate genrmf:128:128:1:10000:1 --backend cuda
        show "$flow_keys"
    done
done
rm -f "$work/out.json"
