#!/usr/bin/env bash
# The GPU checks and timings of thicket on a GPU machine, from the repository root.
#
# The checks are cargo tests (the `gpu` module of the CLI's test binary,
# crates/thicket-cli/tests/cli/gpu/, a module per problem): every GPU path against OEIS,
# Carneiro's Table 1, the reference prices, the max-flow and graph references or the CPU's
# answer. Each mode below runs its part of them, selected by test name (`gpu::` and the
# module, then the start of the function's name: `gpu::queens::queens_on_the_gpu…`), the
# #[ignore]d larger sizes included, with
#     cargo test --release -p thicket-cli --test cli -- --include-ignored --nocapture --test-threads 1 gpu::...
# and then its timings with the release binary target/release/thicket (or $THICKET_BIN). On a
# GPU machine without cargo, build the test binary where cargo is (`cargo test --release -p
# thicket-cli --test cli --no-run` prints its path), copy it and target/release/thicket over,
# and pass --test-binary FILE with THICKET_BIN=path/to/thicket. Exit status 1 when a check fails.
#
#   scripts/gpu-check.sh           the N-Queens checks: N = 4..21 on the GPU against OEIS, and a
#                                  GPU ledger killed, resumed, checked and verified
#   scripts/gpu-check.sh --all     every GPU check (tests/cli/gpu/), nothing else
#   scripts/gpu-check.sh --bench   Markdown rows for docs/benchmarks.md: N = 16..21, wall time
#                                  of the whole process, the CPU backend beside it up to N = 18,
#                                  and the first-compile versus cached start-up cost
#   --multi                        (with either) also N = 20, 21 on all GPUs versus --devices 0,
#                                  $MULTI_REPEAT times each (default 3; 5 at N = 21), medians
#                                  compared, each run after a warm-up count on all GPUs
#                                  (MULTI_WAKE=0: without)
#   --devices LIST                 GPUs for the N-Queens checks (THICKET_GPU_DEVICES) and the
#                                  bench runs (default: all)
#   --test-binary FILE             run the checks with this prebuilt tests/cli/ binary
#   scripts/gpu-check.sh --perm [--out DIR]
#                                  the permutation searches (Carneiro 2017): the checks of every
#                                  GPU strategy on perm-queens (Table 1 / OEIS) and ATSP (against
#                                  the CPU search); then perm-queens N = 18 on bp-dfs-pool,
#                                  `thicket bench perm` for N = 13..18 and the d_cpu sweep 3..7
#                                  of bp-dfs at N = 17, written under DIR (default: perm-out)
#   scripts/gpu-check.sh --strategies [DIR]
#                                  the papers' kernels (docs/reproduction.md): where libcudadevrt
#                                  is; the checks of every strategy at N = 8..18 against OEIS;
#                                  then `thicket bench queens --strategies all --n 15..19` (boards
#                                  predicted slower than $MAX_SECONDS s, default 3, capped;
#                                  $BENCH_TIMEOUT s, default 50) writing table, CSV, JSON, SVG
#                                  chart and log into DIR (default strategies-out)
#   scripts/gpu-check.sh --lattice the checks of every GPU lattice strategy (f32, f64) against the
#                                  reference prices and of books on the GPU against the CPU; then
#                                  NVIDIA's binomialOptions book (with NVIDIA_SAMPLE=DIR holding
#                                  that sample built as binomialOptions_f32 and
#                                  binomialOptions_f64, each is run 3 times beside thicket; see
#                                  docs/benchmarks.md), and N = 30,000 / 100,000 against serial
#   scripts/gpu-check.sh --maxflow the checks of every GPU max-flow strategy (push-relabel-gpu,
#                                  mpm, mpm-active, mpm-scan) on the DIMACS and generated
#                                  networks against the outside references or the CPU, each flow
#                                  certified by its min cut (times: `thicket bench maxflow`)
#   scripts/gpu-check.sh --graph   the checks of every GPU BFS (thesis, thesis-active, gpu) and
#                                  the GPU shortest paths on rome99, GAPBS's tiny graph and
#                                  generated graphs; then the times per search on Kronecker scale
#                                  $GRAPH_SCALE (default 22) and a $GRAPH_GRID^2 grid (default
#                                  2048), 8 sources each, the CPU's (multicore, delta-stepping)
#                                  beside them unless GRAPH_CPU=0; with GRAPH_ROOTS_SCALE=S
#                                  (e.g. 24) also the GPU BFS's mean over 64 roots on Kronecker
#                                  scale S, edge factor 16, every answer verified, in both GTEPS
#                                  conventions (arcs traversed, and Graph500's input edges: half)
#   scripts/gpu-check.sh --schedule the checks of the thesis's GPU swarms against the serial CPU
#                                  swarms (the same assignment, both verified) and of the default
#                                  (lp-ils) on the GPU on every Braun file (verified, bound <=
#                                  makespan); SCHEDULE_SWEEP=1: also Table 6.1's phase shares
#                                  (--profile) and the swarm and machine sweeps
#
# Changed from the script's earlier form: the checks print the tests' rows (`ok`, `WRONG`,
# `NOTE`) instead of Markdown tables, and --perm and --strategies no longer write their check
# tables under DIR (the bench outputs still go there). MAXFLOW_STRATEGIES, MAXFLOW_TIMEOUT,
# MAXFLOW_SLOW_TIMEOUT, MAXFLOW_DATA, SCHEDULE_DATA, SCHEDULE_SWARMS, SCHEDULE_DEFAULT_SECONDS,
# THICKET_PERM_DATA, CHECK_TIMEOUT, DP_TIMEOUT and CHECK_MAX_SECONDS are gone with the checks
# they tuned: the tests fix their sizes, and the GPU MPMs on the long, thin genrmf a=64 b=8 and
# RLG 256 x 256 (minutes) are left to push-relabel there.
set -uo pipefail

bin="${THICKET_BIN:-target/release/thicket}"
test_binary=""
every=0
bench=0
multi=0
perm=0
lattice=0
graph=0
maxflow=0
schedule=0
out=perm-out
devices=()
strategies=""
while (($# > 0)); do
    case "$1" in
        --strategies)
            strategies="${2:-strategies-out}"
            [[ $# -gt 1 ]] && shift
            ;;
        --all) every=1 ;;
        --bench) bench=1 ;;
        --multi) multi=1 ;;
        --perm) perm=1 ;;
        --lattice) lattice=1 ;;
        --graph) graph=1 ;;
        --maxflow) maxflow=1 ;;
        --schedule) schedule=1 ;;
        --out) out="$2"; shift ;;
        --devices) devices=(--devices "$2"); export THICKET_GPU_DEVICES="$2"; shift ;;
        --test-binary) test_binary="$2"; shift ;;
        *) echo "usage: $0 [--all] [--bench] [--multi] [--devices LIST] [--test-binary FILE] | --perm [--out DIR] | --strategies [DIR] | --lattice | --graph | --maxflow | --schedule" >&2; exit 2 ;;
    esac
    shift
done

# Runs the GPU checks (tests/cli/gpu/) whose names contain `gpu::` and one of the arguments
# (every GPU check without one), the ignored ones included, each one's rows printed; fails when
# one of them fails. The filter's `gpu::` keeps out the binary's other tests.
gpu_tests() {
    local filters=("${@/#/gpu::}")
    ((${#filters[@]} > 0)) || filters=(gpu::)
    local flags=(--include-ignored --nocapture --test-threads 1 "${filters[@]}")
    if [[ -n $test_binary ]]; then
        THICKET_BIN="$bin" THICKET_REPO="${THICKET_REPO:-$PWD}" "$test_binary" "${flags[@]}"
    else
        cargo test --release -p thicket-cli --test cli -- "${flags[@]}"
    fi
}

# OEIS A000170 (total) and A002562 (unique), N = 1..21.
totals=(0 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596 2279184 14772512 95815104
    666090624 4968057848 39029188884 314666222712)
uniques=(0 1 0 0 1 2 1 6 12 46 92 341 1787 9233 45752 285053 1846955 11977939 83263591
    621012754 4878666808 39333324973)

# The value of a top-level numeric key in thicket's one-line JSON.
field() {
    sed -n "s/.*[{,]\"$1\":\([0-9.e+-]*\).*/\1/p" <<<"$2"
}

now() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

failures=0

# Runs `thicket queens N ARGS...`; prints "total unique seconds wall ok" or a failure line and
# keeps the JSON in $scratch/last.json.
run_one() {
    local n="$1"
    shift
    local started json ended
    started=$(now)
    if ! json=$(timeout 120 "$bin" queens "$n" --json --quiet "$@"); then
        echo "FAILED"
        return 1
    fi
    ended=$(now)
    echo "$json" >"$scratch/last.json"
    local total unique seconds ok=no
    total=$(field total "$json")
    unique=$(field unique "$json")
    seconds=$(field seconds "$json")
    [[ "$total" == "${totals[$n]}" && "$unique" == "${uniques[$n]}" ]] && ok=yes
    printf '%s %s %s %.3f %s\n' "$total" "$unique" "$seconds" "$(minus "$ended" "$started")" "$ok"
    [[ $ok == yes ]]
}

# Every GPU check and nothing else.
if [[ $every == 1 ]]; then
    gpu_tests
    exit $?
fi

# The permutation searches: the checks, then the timings of bp-dfs-pool, the bench and the
# d_cpu sweep.
if [[ $perm == 1 ]]; then
    gpu_tests perm::perm_queens atsp:: || failures=$((failures + 1))
    "$bin" devices || exit 1
    mkdir -p "$out"
    echo "== perm-queens N = 18, bp-dfs-pool (the target: >= 3e9 nodes/s)"
    timeout 120 "$bin" perm-queens 18 --strategy bp-dfs-pool --json --quiet | tee "$out/perm-queens-18.json"

    echo "== thicket bench perm, N = 13..18, every strategy"
    timeout 400 "$bin" bench perm --n 13..18 --max-seconds 25 --cpu-max-seconds 8 --out-dir "$out/bench" ||
        failures=$((failures + 1))

    echo "== d_cpu sweep, bp-dfs, N = 17"
    timeout 200 "$bin" bench perm --n 17 --strategies bp-dfs --d-cpu 3..7 --max-seconds 60 --out-dir "$out/sweep" ||
        failures=$((failures + 1))
    if ((failures > 0)); then
        echo "gpu-check --perm: $failures check(s) failed" >&2
        exit 1
    fi
    exit 0
fi

# The graphs: the checks (every GPU BFS and the GPU shortest paths against the references
# computed outside thicket and the CPU's answer), then times per search.
if [[ $graph == 1 ]]; then
    command -v python3 >/dev/null || { echo "gpu-check --graph needs python3" >&2; exit 2; }
    gpu_tests graph::bfs_and_sssp || failures=$((failures + 1))
    "$bin" devices || exit 1
    work=$(mktemp -d)
    scale="${GRAPH_SCALE:-22}"
    side="${GRAPH_GRID:-2048}"
    echo "== times per search (8 sources, verified): Kronecker scale $scale (edge factor 16) and a ${side}x${side} grid"
    "$bin" graph gen kron --scale "$scale" --edge-factor 16 --seed 1 -o "$work/kron.tgr" 2>/dev/null
    "$bin" graph gen grid --rows "$side" --cols "$side" --seed 1 -o "$work/grid.tgr" 2>/dev/null
    for g in kron grid; do
        for run in "bfs gpu" "bfs thesis" "bfs multicore" "sssp gpu" "sssp delta-stepping"; do
            read -r search strategy <<<"$run"
            backend=cuda; [[ $strategy == multicore || $strategy == delta-stepping ]] && backend=cpu
            [[ $g == grid && $strategy == thesis ]] && continue
            [[ $backend == cpu && ${GRAPH_CPU:-1} == 0 ]] && continue
            "$bin" $search "$work/$g.tgr" --sources 8 --seed 2 --strategy "$strategy" --backend "$backend" --verify --json --quiet \
                | python3 -c "import json,sys; r=json.load(sys.stdin); s=r['searches']; print(f'| $g | $search $strategy | {r[\"vertices\"]} vertices, {r[\"arcs\"]} arcs | mean {r[\"mean_search_seconds\"]*1e3:.3f} ms | {r[\"teps\"]/1e9:.2f} G arcs/s | max distance {[x[\"max_distance\"] for x in s]} | verified {r[\"verified\"]} |')"
        done
    done
    if [[ -n ${GRAPH_ROOTS_SCALE:-} ]]; then
        s="$GRAPH_ROOTS_SCALE"
        echo "== BFS gpu, Kronecker scale $s (edge factor 16), 64 roots, every answer verified"
        rm -f "$work/kron.tgr" "$work/grid.tgr"
        "$bin" graph gen kron --scale "$s" --edge-factor 16 --seed 1 -o "$work/roots.tgr" 2>/dev/null
        "$bin" bfs "$work/roots.tgr" --sources 64 --seed 2 --strategy gpu --backend cuda --verify --json --quiet >"$work/roots.json"
        python3 - "$work/roots.json" "$s" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
s = r["searches"]
ms = [x["seconds"] * 1e3 for x in s]
arcs = sum(x["arcs_traversed"] for x in s) / sum(x["seconds"] for x in s)
print(f"| kron {sys.argv[2]} | bfs gpu | {r['vertices']} vertices, {r['arcs']} arcs | mean {r['mean_search_seconds']*1e3:.3f} ms over {len(s)} roots ({min(ms):.3f}-{max(ms):.3f}) | {arcs/1e9:.1f} G arcs/s, {arcs/2e9:.1f} GTEPS (Graph500) | verified {r['verified']} |")
sys.exit(0 if r["verified"] is True else 1)
PY
    fi
    rm -rf "$work"
    if ((failures > 0)); then
        echo "gpu-check --graph: $failures check(s) failed" >&2
        exit 1
    fi
    exit 0
fi

# Max flow: the checks alone (every GPU strategy against the references of
# crates/thicket-flow/data/SOURCE.md or the CPU, each flow certified by its min cut).
if [[ $maxflow == 1 ]]; then
    gpu_tests flow::maxflow
    exit $?
fi

# Task matching: the checks (the GPU swarms against the serial CPU swarms, the default on the
# GPU on every Braun file), then with SCHEDULE_SWEEP=1 the thesis's sweeps.
if [[ $schedule == 1 ]]; then
    command -v python3 >/dev/null || { echo "gpu-check --schedule needs python3" >&2; exit 2; }
    gpu_tests schedule::schedule_ || failures=$((failures + 1))
    "$bin" devices || exit 1
    work=$(mktemp -d)
    "$bin" schedule --generate thesis:80x8 --seed 1 --write-etc "$work/t80.etc"
    # SCHEDULE_SWEEP=1: the thesis's experiments on the GPU (kernel seconds, verified):
    # Table 6.1's phase shares (--profile), swarms 1..240 at 80 x 8, machines 2..100 at
    # 80 tasks with the shared and the global scratch.
    if [[ ${SCHEDULE_SWEEP:-0} == 1 ]]; then
        row() { python3 -c "import json,sys; d=json.load(sys.stdin); p=d.get('phase_seconds') or {}; k=d['kernel_seconds']; print('| $1 | %d | %d | %s | %.4f | %.1f | %s | %s |' % (d['swarm']['swarms'], d['machines'], d['scratch'], k, d['makespan'], ' '.join('%s %.0f%%' % (n, 100 * v / k) for n, v in p.items()), d['verified']))"; }
        echo "| run | swarms | machines | scratch | kernels s | makespan | phase shares | verified |"
        echo "|---|---:|---:|---|---:|---:|---|---|"
        "$bin" schedule --generate thesis:1000x10 --seed 1 --write-etc "$work/1000x10.etc"
        "$bin" schedule --generate thesis:1000x100 --seed 1 --write-etc "$work/1000x100.etc"
        for file in 1000x10 1000x100; do
            "$bin" schedule "$work/$file.etc" --method mspso --swarms 60 --iterations 200 --backend cuda --profile --verify --json --quiet | row "shares $file"
        done
        for swarms in 1 10 20 30 40 50 54 56 58 60 120 240; do
            "$bin" schedule "$work/t80.etc" --method mspso --swarms "$swarms" --backend cuda --verify --json --quiet | row "swarms 80x8"
        done
        for machines in 2 8 16 30 32 64 96 100; do
            "$bin" schedule --generate "thesis:80x$machines" --seed 1 --write-etc "$work/m.etc"
            for scratch in shared global; do
                [[ $scratch == shared && $machines -gt 96 ]] && continue
                "$bin" schedule "$work/m.etc" --method mspso --scratch "$scratch" --backend cuda --verify --json --quiet | row "machines 80x$machines"
            done
        done
    fi
    rm -rf "$work"
    if ((failures > 0)); then
        echo "gpu-check --schedule: $failures check(s) failed" >&2
        exit 1
    fi
    exit 0
fi

# The lattices: the checks (every GPU strategy in f32 and f64 against the reference prices,
# books on the GPU against the CPU), then NVIDIA's sample's book and the speed-ups at
# N = 30,000 and 100,000 over serial.
if [[ $lattice == 1 ]]; then
    command -v python3 >/dev/null || { echo "gpu-check --lattice needs python3" >&2; exit 2; }
    gpu_tests lattice::lattice_ lattice_trees:: || failures=$((failures + 1))
    "$bin" devices || exit 1
    check=$(mktemp -d)
    echo "== NVIDIA's binomialOptions book: 1,024 European calls x 2,048 steps (S 5..30, K 1..100, T 0.25..10,"
    echo "   r 0.06, sigma 0.10), upload + kernels + download, best of 3"
    python3 - "$check/nvidia-book.csv" <<'PY'
import random, sys
rng = random.Random(123)
with open(sys.argv[1], "w") as f:
    f.write("payoff,style,spot,strike,maturity,volatility,rate,steps\n")
    for _ in range(1024):
        s, k, t = rng.uniform(5, 30), rng.uniform(1, 100), rng.uniform(0.25, 10)
        f.write(f"call,european,{s:.6f},{k:.6f},{t:.6f},0.10,0.06,2048\n")
PY
    for precision in f32 f64; do
        "$bin" binomial --batch "$check/nvidia-book.csv" -o "$check/nvidia-priced.csv" --strategy tiles \
            --precision "$precision" --backend cuda --json --quiet --trials 3 | python3 -c "import json,sys; r=json.load(sys.stdin); print(f'| thicket tiles | $precision | span {r[\"span_seconds\"]*1e3:.3f} ms | kernel {r[\"kernel_seconds\"]*1e3:.3f} ms | {r[\"nodes\"]/r[\"span_seconds\"]:.3e} nodes/s |')"
        sample="${NVIDIA_SAMPLE:-}/binomialOptions_$precision"
        if [[ -n "${NVIDIA_SAMPLE:-}" && -x "$sample" ]]; then
            for run in 1 2 3; do
                "$sample" | sed -n 's/binomialOptionsGPU() time: *\([0-9.]*\) msec/| NVIDIA binomialOptions | '"$precision"' | \1 ms (its timer) |/p'
            done
        fi
    done

    echo "== one lookback put, f64: serial (CPU, one thread) against the GPU strategies"
    for n in 30000 100000; do
        serial=""
        for strategy in serial thesis hybrid tiles; do
            backend=cuda; [[ $strategy == serial ]] && backend=cpu
            json=$("$bin" lookback --spot 50 --maturity 0.35 --volatility 0.3 --rate 0.1 --steps "$n" --strategy "$strategy" \
                --backend "$backend" --json --quiet --trials 3 2>/dev/null)
            [[ $strategy == serial ]] && serial=$(field seconds "$json")
            python3 - "$json" "$serial" <<PY
import json, sys
r, serial = json.loads(sys.argv[1]), float(sys.argv[2])
kernel = r["kernel_seconds"]
speedup = f"{serial / kernel:.0f}x over serial (kernel time)" if kernel else "-"
print(f"| N = $n | $strategy | wall {r['seconds']:.4f} s | kernel {(kernel or 0) * 1e3:.3f} ms | {speedup} | price {r['price']:.10f} |")
PY
        done
    done
    if ((failures > 0)); then
        echo "gpu-check --lattice: $failures check(s) failed" >&2
        exit 1
    fi
    exit 0
fi

# The papers' kernels: the checks of every strategy at N = 8..18 against OEIS, then one bench
# of all strategies at N = 15..19 for the table, CSV, JSON and chart.
if [[ -n $strategies ]]; then
    mkdir -p "$strategies"
    echo "libcudadevrt.a candidates present:"
    ls -l /usr/local/cuda/lib64/libcudadevrt.a /usr/local/cuda*/targets/x86_64-linux/lib/libcudadevrt.a \
        /usr/lib/x86_64-linux-gnu/libcudadevrt.a 2>/dev/null || echo "  none in the usual places"
    gpu_tests queens::papers_strategies || failures=$((failures + 1))
    "$bin" devices || exit 1
    echo "== thicket bench queens --strategies all --n 15..19"
    timeout "${BENCH_TIMEOUT:-50}" "$bin" bench queens --strategies all --n 15..19 --repeat "${REPEAT:-1}" \
        --max-seconds "${MAX_SECONDS:-3}" --out "$strategies/strategies.md" --csv "$strategies/strategies.csv" \
        --json-out "$strategies/strategies.json" --chart "$strategies/strategies.svg" \
        2> >(tee "$strategies/strategies.log" >&2) >/dev/null || failures=$((failures + 1))
    cat "$strategies/strategies.md" 2>/dev/null
    if ((failures > 0)); then
        echo "gpu-check: $failures strategy check(s) failed, timed out or disagreed with OEIS" >&2
        exit 1
    fi
    exit 0
fi

# N-Queens: the checks (N = 4..21 against OEIS, a GPU ledger killed, resumed and verified), or
# with --bench the timings.
if [[ $bench == 0 ]]; then
    gpu_tests queens::queens_on_the_gpu queens::a_killed_gpu_ledger || failures=$((failures + 1))
    "$bin" devices || exit 1
else
    "$bin" devices || exit 1
    cache="$scratch/cache"
    first=$(THICKET_CACHE_DIR="$cache" "$bin" queens 8 --backend cuda --json --quiet "${devices[@]}")
    s0=$(now)
    second=$(THICKET_CACHE_DIR="$cache" "$bin" queens 8 --backend cuda --json --quiet "${devices[@]}")
    s1=$(now)
    echo "start-up, empty kernel cache: $(field seconds "$first") s in thicket (compile $(field compile_seconds "$first") s)"
    echo "start-up, cached kernel:      $(field seconds "$second") s in thicket, $(minus "$s1" "$s0") s whole process (N=8)"
    echo
    echo '| N | GPU wall (s) | GPU in-process (s) | kernel (s) | tasks | CPU wall (s) | ok |'
    echo '|---:|---:|---:|---:|---:|---:|---|'
    for n in $(seq 16 21); do
        read -r _ _ seconds wall ok < <(run_one "$n" --backend cuda "${devices[@]}") || true
        [[ "${ok:-no}" == yes ]] || failures=$((failures + 1))
        json=$(cat "$scratch/last.json" 2>/dev/null)
        cpu=-
        if ((n <= 18)); then
            read -r _ _ _ cpu cpu_ok < <(run_one "$n" --backend cpu) || true
            [[ "${cpu_ok:-no}" == yes ]] || failures=$((failures + 1))
        fi
        echo "| $n | $wall | $seconds | $(field kernel_seconds "$json") | $(field tasks "$json") | $cpu | ${ok:-no} |"
    done
fi

if [[ $multi == 1 ]]; then
    # Each configuration $MULTI_REPEAT times (default 5 at N = 21, 3 at N = 20), alternating, and
    # the medians compared. Every measured run follows a warm-up count on all GPUs (N = 8), so
    # that both configurations start with every GPU just used: the driver's start-up takes
    # 0.1-0.2 s longer when a GPU has had no context for a few seconds, which would otherwise
    # fall on every all-GPU run (GPU 1 idles through the --devices 0 run before it) and on none
    # of the others. MULTI_WAKE=0 leaves the warm-up out.
    median() { tr ' ' '\n' <<<"$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    wake() { [[ "${MULTI_WAKE:-1}" == 0 ]] || "$bin" queens 8 --backend cuda --quiet >/dev/null 2>&1; }
    echo
    echo "| N | all GPUs wall (s), median | --devices 0 wall (s), median | speed-up | runs (all / one) | ok |"
    echo '|---:|---:|---:|---:|---|---|'
    for n in 20 21; do
        repeat="${MULTI_REPEAT:-$((n == 21 ? 5 : 3))}"
        alls=""
        ones=""
        ok=yes
        for _ in $(seq "$repeat"); do
            wake
            read -r _ _ _ all ok_all < <(run_one "$n" --backend cuda) || true
            wake
            read -r _ _ _ one ok_one < <(run_one "$n" --backend cuda --devices 0) || true
            [[ "${ok_all:-no}" == yes && "${ok_one:-no}" == yes ]] || ok=no
            alls="$alls $all"
            ones="$ones $one"
        done
        [[ $ok == yes ]] || failures=$((failures + 1))
        all=$(median "${alls# }")
        one=$(median "${ones# }")
        echo "| $n | $all | $one | $(ratio "$one" "$all") | ${alls# } / ${ones# } | $ok |"
    done
fi

if ((failures > 0)); then
    echo "gpu-check: $failures run(s) failed or disagreed with OEIS" >&2
    exit 1
fi
