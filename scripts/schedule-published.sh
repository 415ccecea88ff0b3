#!/usr/bin/env bash
# thicket's default scheduler (lp-ils) against the published record: every instance in
# crates/thicket-schedule/data/braun with a best known assignment from chgogos/hcsp beside it
# (the eight Braun 512 x 16 files with their MIP solutions, Nesmachnow's five 1,024 x 32 and
# 2,048 x 64 files in larger/ with their column-pricing ones). The best known of an instance is
# the smallest makespan of its `.sol` files, recomputed here from the assignment (the name's
# is rounded to 0.1). Every thicket run is verified (`--verify --json`); prints a Markdown
# table, one row per run, and the worst gap. Needs only bash, awk and the thicket binary, so
# it runs on a device machine without cargo.
#
#   scripts/schedule-published.sh [options]
#     --bin FILE         the thicket binary (default $THICKET_BIN, else target/release/thicket)
#     --backend B        cpu (default), cuda or auto
#     --time-limit S     seconds per run (default 10)
#     --threads N        threads per run (default: thicket's, every core)
#     --seeds "S ..."    search seeds, one run per instance and seed (default 1)
#     --cold             every run from an empty private kernel cache (THICKET_CACHE_DIR), so
#                        each GPU run compiles its kernels inside its limit
#     --only PATTERN     only the instances whose name matches this grep -E pattern
#     --runs FILE        also append the raw runs here, one line each (instance seed makespan
#                        best tag bound seconds wall verified kicks)
#
# The lead's device commands (docs/schedule.md, "Against the published record"):
#   scripts/schedule-published.sh --backend cuda --time-limit 1 --cold --seeds "1 2 3"
#   scripts/schedule-published.sh --backend cuda --time-limit 10 --seeds "1 2"
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${THICKET_BIN:-$root/target/release/thicket}
backend=cpu limit=10 threads="" seeds="1" cold=0 only="" runs=""
data=$root/crates/thicket-schedule/data/braun
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift ;;
        --backend) backend=$2; shift ;;
        --time-limit) limit=$2; shift ;;
        --threads) threads=$2; shift ;;
        --seeds) seeds=$2; shift ;;
        --cold) cold=1 ;;
        --only) only=$2; shift ;;
        --runs) runs=$2; shift ;;
        *) echo "schedule-published: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "schedule-published: no thicket binary at $bin (--bin)" >&2; exit 2; }

# The makespan of assignment SOL on matrix ETC, f64 sums in task order (the header is
# `T M [x]`; the times follow, any number per line).
makespan_of() {
    awk 'FNR == NR { if (FNR == 1) { tasks = $1; machines = $2; next }
                     for (k = 1; k <= NF; k++) etc[n++] = $k; next }
         { for (k = 1; k <= NF; k++) on[j++] = $k }
         END { if (n != tasks * machines || j != tasks) { print "bad"; exit }
               for (t = 0; t < tasks; t++) load[on[t]] += etc[t * machines + on[t]]
               worst = 0; for (m in load) if (load[m] > worst) worst = load[m]
               printf "%.6f\n", worst }' "$1" "$2"
}

# Instances: a matrix with at least one `.sol` file named after it.
instances=()
for matrix in "$data"/u_*.0 "$data"/larger/*x*; do
    case $matrix in *.sol | *.md) continue ;; esac
    compgen -G "${matrix}_*.sol" >/dev/null || continue
    if [ -n "$only" ] && ! basename "$matrix" | grep -Eq -- "$only"; then continue; fi
    instances+=("$matrix")
done
[ ${#instances[@]} -gt 0 ] || { echo "schedule-published: no instance matches" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lines=$work/runs
: >"$lines"
for matrix in "${instances[@]}"; do
    name=$(basename "$matrix")
    best="" tag=""
    for sol in "${matrix}"_*.sol; do
        value=$(makespan_of "$matrix" "$sol")
        [ "$value" != bad ] || { echo "schedule-published: $sol does not fit $matrix" >&2; exit 1; }
        # The tag between the instance and the makespan (MS, CPR; none on one hcsp file).
        file_tag=${sol#"${matrix}"_}
        file_tag=${file_tag%.sol}
        case $file_tag in *_*) file_tag=${file_tag%_*} ;; *) file_tag=untagged ;; esac
        if [ -z "$best" ] || awk -v a="$value" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$value tag=$file_tag
        fi
    done
    for seed in $seeds; do
        env_cache=()
        if [ "$cold" = 1 ]; then
            cache=$(mktemp -d "$work/cache.XXXX")
            env_cache=(env THICKET_CACHE_DIR="$cache")
        fi
        t0=$(date +%s.%N)
        # A failed run (a GPU error, a wrong schedule) is a row of the table, not the end of it.
        rc=0
        json=$("${env_cache[@]}" "$bin" schedule "$matrix" --backend "$backend" \
            --time-limit "$limit" --seed "$seed" ${threads:+--threads "$threads"} \
            --json --verify --quiet) || rc=$?
        t1=$(date +%s.%N)
        if [ "$rc" != 0 ]; then
            echo "$name $seed nan $best $tag nan nan $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') exit-$rc null $backend" >>"$lines"
            continue
        fi
        awk -v name="$name" -v seed="$seed" -v best="$best" -v tag="$tag" -v t0="$t0" -v t1="$t1" '
            function field(key,   v) {
                if (match($0, "\"" key "\":[^,}]*")) { v = substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3); gsub(/"/, "", v); return v }
                return "null"
            }
            { print name, seed, field("makespan"), best, tag, field("lower_bound"), field("seconds"), t1 - t0, field("verified"), field("kicks"), field("backend") }' <<<"$json" >>"$lines"
    done
done
[ -z "$runs" ] || cat "$lines" >>"$runs"

awk -v limit="$limit" -v backend="$backend" -v cold="$cold" '
    function comma(x,   s, int_part, frac, out) {
        s = sprintf("%.1f", x); int_part = s; sub(/\..*/, "", int_part); frac = s; sub(/^[^.]*/, "", frac)
        out = ""
        while (length(int_part) > 3) { out = "," substr(int_part, length(int_part) - 2) out; int_part = substr(int_part, 1, length(int_part) - 3) }
        return int_part out frac
    }
    $3 == "nan" { bad++; row[NR] = sprintf("| %s | %s | %s (%s) | FAILED (%s) | | | | %.3f | | no |", $1, $2, comma($4), $5, $9, $8); next }
    { gap = 100 * ($3 / $4 - 1); runs++; sum += gap
      if (runs == 1 || gap > worst) { worst = gap; worst_at = $1 " (seed " $2 ")" }
      if ($8 > longest) longest = $8
      if ($9 != "true") bad++
      row[NR] = sprintf("| %s | %s | %s (%s) | %s | %.3f%% | %s | %.3f | %.3f | %s | %s |", $1, $2, comma($4), $5, comma($3), gap, comma($6), $7, $8, $10, $9) }
    END {
        printf "thicket schedule FILE --backend %s --time-limit %s --verify --json%s\n\n", backend, limit, cold ? " (every run from an empty kernel cache)" : ""
        print "| instance | seed | published best (source) | thicket | gap | LP lower bound | run s | process s | kicks | verified |"
        print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        for (i = 1; i <= NR; i++) print row[i]
        if (runs) printf "\nWorst gap %.3f%% (%s); mean %.3f%% over %d runs; longest process %.3f s; ", worst, worst_at, sum / runs, runs, longest
        print bad ? bad " runs failed or NOT verified" : "every run verified"
    }' "$lines"
