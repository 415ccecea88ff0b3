#!/usr/bin/env bash
# Two builds of the GPU scheduler's kernel (crates/thicket-schedule/kernels/ils.cu) on the same
# fixed work, for a change to it: every shipped Braun matrix with a header, 264 chains (two an
# SM of an H100) from the same MCT schedule, the same kicks and launches with the same seed
# (scripts/schedule-kernel/driver.cu). A change that only makes the search faster takes the
# same moves: the same makespans and assignments (`same`), in less time (`ratio`, new kicks a
# second over old). Needs nvcc and a GPU, not cargo (the device machine).
#
#   scripts/schedule-kernel-check.sh OLD.cu [NEW.cu] [--kicks K] [--launches L] [--chains C]
#                                    [--nvcc-flags "FLAGS"]
#
# FLAGS are added to both builds' nvcc line: `-Ofc min` compiles them as thicket's NVRTC does
# (src/kernels.rs: `--Ofast-compile=min`); without it nvcc's full optimisation.
# NEW.cu is the working tree's kernel by default; make OLD.cu from a revision with
#   git show REV:crates/thicket-schedule/kernels/ils.cu > old-ils.cu
# Exits 1 where any matrix's moves differ. docs/schedule.md, "The GPU's swap scan".
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
old="" new=$root/crates/thicket-schedule/kernels/ils.cu kicks=8 launches=2 chains=264 flags=""
positional=0
while [ $# -gt 0 ]; do
    case $1 in
        --kicks) kicks=$2; shift ;;
        --launches) launches=$2; shift ;;
        --chains) chains=$2; shift ;;
        --nvcc-flags) flags=$2; shift ;;
        *) case $positional in
               0) old=$1 ;;
               1) new=$1 ;;
               *) echo "schedule-kernel-check: unexpected argument $1" >&2; exit 2 ;;
           esac
           positional=$((positional + 1)) ;;
    esac
    shift
done
[ -n "$old" ] || { echo "usage: $0 OLD.cu [NEW.cu] [--kicks K] [--launches L] [--chains C] [--nvcc-flags F]" >&2; exit 2; }

# The defines are src/kernels.rs's ILS_THREADS and ILS_SURVIVORS (change them together); the
# driver sizes shared memory from them as src/gpu/ils.rs's shared_bytes does.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for build in old new; do
    src=$old; [ $build = new ] && src=$new
    cp "$src" "$work/ils_$build.cu"
    # shellcheck disable=SC2086 # the flags are words
    nvcc -O3 -arch=native $flags -DILS_THREADS=256 -DILS_SURVIVORS=512 -I "$root/crates/thicket-gpu/kernels" \
        -DILS_SOURCE="\"$work/ils_$build.cu\"" -o "$work/$build" "$root/scripts/schedule-kernel/driver.cu"
done

echo "| matrix | old kicks/s | new kicks/s | ratio | same |"
echo "|---|---:|---:|---:|---|"
differ=0
for file in "$root"/crates/thicket-schedule/data/braun/*.0 "$root"/crates/thicket-schedule/data/braun/larger/*; do
    case $file in *.sol) continue ;; esac
    a=$("$work/old" "$file" "$chains" "$kicks" "$launches")
    b=$("$work/new" "$file" "$chains" "$kicks" "$launches")
    same=yes
    [ "$(echo "$a" | cut -d' ' -f1-6)" = "$(echo "$b" | cut -d' ' -f1-6)" ] || { same=no; differ=1; }
    ra=$(echo "$a" | awk '{print $NF}') rb=$(echo "$b" | awk '{print $NF}')
    echo "| $(basename "$file") | $ra | $rb | $(awk -v a="$ra" -v b="$rb" 'BEGIN{printf "%.2f", b/a}') | $same |"
done
exit $differ
