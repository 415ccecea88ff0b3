#!/usr/bin/env bash
# thicket's default scheduler (lp-ils) on generated Braun matrices it was never tuned on
# (issue 32): all 12 classes u_{c,i,s}_{hihi,hilo,lohi,lolo} at 512 x 16, several instance
# seeds each, every schedule verified; prints the spread per class of the gap to the best
# known makespan (crates/thicket-schedule/data/generated/best-known.txt) and to the LP bound.
# Needs only bash, awk and the thicket binary, so it runs on a device machine without cargo.
#
#   scripts/schedule-eval.sh [options]
#     --bin FILE         the thicket binary (default $THICKET_BIN, else target/release/thicket)
#     --backend B        cpu (default) or cuda
#     --time-limit S     seconds per run (default 10)
#     --threads N        threads per run (default: thicket's, every core)
#     --set NAME         dev (instance seed 11) or holdout (21 22; default), or
#                        --seeds "S ..." for others
#     --run-seeds "R .." search seeds per instance (default 1)
#     --jobs J           runs side by side (default 1)
#     --pin              with --jobs and --threads N: each run on N cores of its own
#                        (taskset), so J runs side by side each have N dedicated cores
#     --runs FILE        where the runs go, one line each (default schedule-eval-runs.tsv);
#                        appended to, so several calls build one table
#     --cold             start from an empty kernel cache (a private THICKET_CACHE_DIR), so the
#                        first GPU run pays the NVRTC compile inside its limit
#     --table-only       print the table of --runs without running anything
#     --update-best      fold the runs' makespans into the best-known file (the smaller wins)
#
# On a GPU machine with the carried release binary (docs/schedule.md, "Generated evaluation
# set"): the GPU at 1 s from a cold kernel cache, then 16 long single-core runs side by side
# that feed the best knowns, then the GPU's table again against them:
#   scripts/schedule-eval.sh --backend cuda --time-limit 1 --seeds "11 21 22" \
#       --run-seeds "1 2" --cold --runs gpu1.tsv
#   scripts/schedule-eval.sh --threads 1 --time-limit 120 --seeds "11 21 22" --run-seeds 7 \
#       --jobs 16 --pin --runs best.tsv --update-best
#   scripts/schedule-eval.sh --table-only --runs gpu1.tsv
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${THICKET_BIN:-$root/target/release/thicket}
backend=cpu limit=10 threads="" seeds="21 22" run_seeds="1" jobs=1
runs=schedule-eval-runs.tsv cold=0 table_only=0 update_best=0 pin=0
best_file=$root/crates/thicket-schedule/data/generated/best-known.txt
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift ;;
        --backend) backend=$2; shift ;;
        --time-limit) limit=$2; shift ;;
        --threads) threads=$2; shift ;;
        --set) case $2 in
                   dev) seeds="11" ;;
                   holdout) seeds="21 22" ;;
                   *) echo "schedule-eval: --set is dev or holdout, not $2" >&2; exit 2 ;;
               esac; shift ;;
        --seeds) seeds=$2; shift ;;
        --run-seeds) run_seeds=$2; shift ;;
        --jobs) jobs=$2; shift ;;
        --runs) runs=$2; shift ;;
        --cold) cold=1 ;;
        --pin) pin=1 ;;
        --table-only) table_only=1 ;;
        --update-best) update_best=1 ;;
        *) echo "schedule-eval: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

classes="u_c_hihi u_c_hilo u_c_lohi u_c_lolo u_i_hihi u_i_hilo u_i_lohi u_i_lolo \
u_s_hihi u_s_hilo u_s_lohi u_s_lolo"

# One run: CLASS SEED RUN_SEED -> a line "class seed run_seed makespan bound seconds verified
# backend kicks" on stdout.
run_one() {
    local class=$1 seed=$2 run_seed=$3 matrix json pinned=()
    matrix=$work/$class.$seed.etc
    if [ "$pin" = 1 ]; then
        pinned=(taskset -c "$((SLOT * threads))-$((SLOT * threads + threads - 1))")
    fi
    json=$("${pinned[@]}" "$bin" schedule "$matrix" --backend "$backend" --time-limit "$limit" \
        --seed "$run_seed" ${threads:+--threads "$threads"} --json --verify --quiet)
    awk -v class="$class" -v seed="$seed" -v run="$run_seed" '
        function field(name,   m) {
            if (match($0, "\"" name "\":[^,}]*")) return substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 3)
            return "null"
        }
        { b = field("backend"); gsub(/"/, "", b)
          print class, seed, run, field("makespan"), field("lower_bound"), field("seconds"), field("verified"), b, field("kicks") }' <<<"$json"
}

if [ "$table_only" = 0 ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    if [ "$cold" = 1 ]; then
        export THICKET_CACHE_DIR=$work/cache
    fi
    for class in $classes; do
        for seed in $seeds; do
            "$bin" schedule --generate "$class:512x16" --seed "$seed" \
                --write-etc "$work/$class.$seed.etc"
        done
    done
    export -f run_one
    if [ "$pin" = 1 ] && [ -z "$threads" ]; then
        echo "schedule-eval: --pin needs --threads" >&2
        exit 2
    fi
    export bin backend limit threads work pin
    for class in $classes; do
        for seed in $seeds; do
            for run_seed in $run_seeds; do
                echo "$class $seed $run_seed"
            done
        done
    done | xargs -P "$jobs" --process-slot-var=SLOT -n 3 bash -c 'run_one "$@"' _ >>"$runs"
fi

if [ "$update_best" = 1 ]; then
    command_line="$(basename "$0") --backend $backend --time-limit $limit${threads:+ --threads $threads} --seeds \"$seeds\" --run-seeds \"$run_seeds\""
    tmp=$(mktemp)
    awk -v source="$command_line" '
        FNR == NR { if ($0 ~ /^#/) { header = header $0 "\n"; next }
                    key = $1 " " $2; best[key] = $3; bound[key] = $4; from[key] = $5
                    for (i = 6; i <= NF; i++) from[key] = from[key] " " $i; next }
        $7 == "true" { key = $1 " " $2
                       if (!(key in best) || $4 + 0 < best[key] + 0) { best[key] = $4; from[key] = source " (run seed " $3 ")" }
                       if (!(key in bound) || $5 + 0 > bound[key] + 0) bound[key] = $5 }
        END { printf "%s", header
              n = 0; for (key in best) keys[++n] = key
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
              for (i = 1; i <= n; i++) print keys[i], best[keys[i]], bound[keys[i]], from[keys[i]] }
    ' "$best_file" "$runs" >"$tmp"
    mv "$tmp" "$best_file"
fi

# The table: per class, over its instances and run seeds, the gap to the best known and to
# the LP bound (min / median / max, percent), the longest run and whether every run verified.
awk -v limit="$limit" '
    FNR == NR { if ($0 !~ /^#/) best[$1 " " $2] = $3; next }
    /^#/ { next }
    { key = $1 " " $2; class = $1; count[class]++
      if ($7 != "true") bad[class]++
      g = (key in best) ? 100 * ($4 / best[key] - 1) : "nan"
      b = 100 * ($4 / $5 - 1)
      gaps[class, count[class]] = g; bounds[class, count[class]] = b
      if ($6 + 0 > longest[class]) longest[class] = $6 + 0 }
    function sorted_stat(arr, class, n, which,   v, i, j, t) {
        for (i = 1; i <= n; i++) v[i] = arr[class, i] + 0
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        if (which == "min") return v[1]
        if (which == "max") return v[n]
        return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    END {
        print "| class | runs | gap to best known: min / median / max | gap to LP bound: min / median / max | longest run (s) | verified |"
        print "|---|---:|---:|---:|---:|---|"
        n = 0; for (c in count) names[++n] = c
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (names[j] < names[i]) { t = names[i]; names[i] = names[j]; names[j] = t }
        for (i = 1; i <= n; i++) { c = names[i]; k = count[c]
            printf "| %s | %d | %.3f%% / %.3f%% / %.3f%% | %.3f%% / %.3f%% / %.3f%% | %.3f | %s |\n", c, k,
                sorted_stat(gaps, c, k, "min"), sorted_stat(gaps, c, k, "median"), sorted_stat(gaps, c, k, "max"),
                sorted_stat(bounds, c, k, "min"), sorted_stat(bounds, c, k, "median"), sorted_stat(bounds, c, k, "max"),
                longest[c], (c in bad) ? "NO" : "all" }
    }' "$best_file" "$runs"
