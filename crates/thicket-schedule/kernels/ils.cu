// thicket's default on the GPU (src/gpu/ils.rs): one block per chain of the iterated local
// search of src/cpu/ils.rs, with the chain's assignment, its loads and its saved copy in
// shared memory. Every step of the descent finds the best move or swap of one machine's tasks
// at once (the block's threads over its (task, partner machine) pairs, then its warps over
// the partner tasks of the pairs a bound leaves, a block min-reduction), the busiest machine
// first; the kick (ruin and recreate of two to four tasks) runs on thread 0.
//
// Shared memory (dynamic): loads[M], saved_loads[M] (f64); least[M], most[M] (u64); the
// reduction's per-warp values and indices; start[M + 1], cursor[M], survivors[ILS_SURVIVORS]
// (u32); then order[M], assignment[T], saved[T], bucket[T] (u16).
#include "thicket.cuh"

#ifndef ILS_THREADS
#error "ILS_THREADS must be defined by the host"
#endif

typedef unsigned short u16;

#ifndef ILS_SURVIVORS
#error "ILS_SURVIVORS must be defined by the host"
#endif

#define ILS_WARPS (ILS_THREADS / 32)

// SplitMix64: the chain's random numbers (thread 0 only).
__device__ __forceinline__ u64 ils_next(u64* state) {
    u64 z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ u32 ils_below(u64* state, u32 n) {
    return (u32)(ils_next(state) % (u64)n);
}

// The smaller (value, key), the lower key on ties.
__device__ __forceinline__ void ils_keep(double* v, u32* k, double ov, u32 ok) {
    if (ov < *v || (ov == *v && ok < *k)) {
        *v = ov;
        *k = ok;
    }
}

// Block-wide minimum of (v, k) into *out_v, *out_k for every thread.
__device__ void ils_block_min(double v, u32 k, double* rv, u32* rk, double* out_v, u32* out_k) {
    for (int off = 16; off > 0; off >>= 1) {
        double ov = __shfl_down_sync(0xffffffffu, v, off);
        u32 ok = __shfl_down_sync(0xffffffffu, k, off);
        ils_keep(&v, &k, ov, ok);
    }
    if ((threadIdx.x & 31) == 0) {
        rv[threadIdx.x >> 5] = v;
        rk[threadIdx.x >> 5] = k;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < ILS_WARPS; w++) ils_keep(&v, &k, rv[w], rk[w]);
        *out_v = v;
        *out_k = k;
    }
    __syncthreads();
}

// order[r] = the machine of rank r, busiest first (lower index on ties).
__device__ void ils_rank(const double* loads, u16* order, u32 machines) {
    __syncthreads();
    for (u32 m = threadIdx.x; m < machines; m += blockDim.x) {
        double l = loads[m];
        u32 r = 0;
        for (u32 b = 0; b < machines; b++) {
            double lb = loads[b];
            r += (lb > l) || (lb == l && b < m);
        }
        order[r] = (u16)m;
    }
    __syncthreads();
}

// A chain's working state in shared memory.
struct IlsShared {
    double* loads;
    u16* asg;
    // The tasks grouped by machine: machine m's are bucket[start[m] .. start[m + 1]].
    u16* bucket;
    u32* start;
    u32* cursor;
    // Per machine b, the least time on the improved machine and the most time on b of b's
    // tasks, as bits (finite non-negative times, -0.0 made +0.0, order as their bits do).
    u64* least;
    u64* most;
    // The (task, partner machine) pairs whose swaps the bound leaves to scan, and their count.
    u32* survivors;
    u32* survived;
    u16* order;
    double* rv;
    u32* rk;
    double* best_v;
    u32* best_k;
};

// Task t to machine `to` (thread 0).
__device__ __forceinline__ void ils_shift(const double* etc, u32 machines, double* loads, u16* asg, u32 t, u32 to) {
    u32 from = asg[t];
    loads[from] -= etc[(u64)t * machines + from];
    loads[to] += etc[(u64)t * machines + to];
    asg[t] = (u16)to;
}

// Whether machine b, of load `load_b`, may take work from machine a: another machine below
// the bar (a's load less a rounding margin).
__device__ __forceinline__ bool ils_is_partner(u32 a, u32 b, double load_b, double bar) {
    return b != a && load_b < bar;
}

// Groups the tasks by machine (bucket, start) and sets least and most for the partners of
// machine a (those below `bar`).
__device__ void ils_group(const double* __restrict__ etc, u32 tasks, u32 machines, u32 a, double bar,
                          const IlsShared& s) {
    for (u32 m = threadIdx.x; m < machines; m += blockDim.x) {
        s.least[m] = 0x7ff0000000000000ull;
        s.most[m] = 0;
        s.cursor[m] = 0;
    }
    if (threadIdx.x == 0) *s.survived = 0;
    __syncthreads();
    for (u32 u = threadIdx.x; u < tasks; u += blockDim.x) {
        u32 b = s.asg[u];
        atomicAdd(&s.cursor[b], 1u);
        if (!ils_is_partner(a, b, s.loads[b], bar)) continue;
        const double* other = etc + (u64)u * machines;
        atomicMin(&s.least[b], (u64)__double_as_longlong(other[a] + 0.0));
        atomicMax(&s.most[b], (u64)__double_as_longlong(other[b] + 0.0));
    }
    __syncthreads();
    // The buckets' starts: the first warp scans the counts, a run of machines a lane.
    if (threadIdx.x < 32) {
        u32 lane = threadIdx.x, run = (machines + 31) / 32;
        u32 lo = min(lane * run, machines), hi = min(lo + run, machines);
        u32 sum = 0;
        for (u32 m = lo; m < hi; m++) sum += s.cursor[m];
        u32 through = sum;
        for (u32 off = 1; off < 32; off <<= 1) {
            u32 before = __shfl_up_sync(0xffffffffu, through, off);
            if (lane >= off) through += before;
        }
        u32 base = through - sum;
        for (u32 m = lo; m < hi; m++) {
            u32 count = s.cursor[m];
            s.start[m] = base;
            s.cursor[m] = base;
            base += count;
        }
        if (lane == 31) s.start[machines] = through;
    }
    __syncthreads();
    // The order within a bucket varies from run to run; the choice below does not (the
    // smallest (value, key) of all the candidates).
    for (u32 u = threadIdx.x; u < tasks; u += blockDim.x)
        s.bucket[atomicAdd(&s.cursor[s.asg[u]], 1u)] = (u16)u;
    __syncthreads();
}

// The swaps of one of machine a's tasks (a's load without it `after_a`, b's with it
// `b_with_t`) with machine b's grouped tasks from `first` on, every `step`-th (a thread alone:
// 1; a warp's lanes: 32); keeps the smallest larger load in (v, k), b's task u keyed `keys + u`.
__device__ __forceinline__ void ils_scan_swaps(const double* __restrict__ etc, u32 machines, u32 a, u32 b,
                                               double after_a, double b_with_t, u32 keys, u32 first, u32 step,
                                               const IlsShared& s, double* v, u32* k) {
    for (u32 j = first; j < s.start[b + 1]; j += step) {
        u32 u = s.bucket[j];
        const double* other = etc + (u64)u * machines;
        ils_keep(v, k, fmax(after_a + other[a], b_with_t - other[b]), keys + u);
    }
}

// The best move or swap that lowers machine a's load below it with the partner staying
// below a's old load (the sorted-load-vector descent of src/cpu/ils.rs), applied if found.
// Keys: t * (T + M) + b for a move of t to b, t * (T + M) + M + u for a swap with u.
__device__ bool ils_improve(const double* __restrict__ etc, u32 tasks, u32 machines, u32 a,
                            const IlsShared& s) {
    double la = s.loads[a];
    double bar = la * (1.0 - 1e-12);
    ils_group(etc, tasks, machines, a, bar, s);
    u32 na = s.start[a + 1] - s.start[a];
    const u16* members = s.bucket + s.start[a];
    u32 stride = tasks + machines;
    double v = __longlong_as_double(0x7ff0000000000000ll);
    u32 k = 0xffffffffu;
    u32 pairs = na * machines;
    for (u32 i = threadIdx.x; i < pairs; i += blockDim.x) {
        u32 t = members[i / machines], b = i % machines;
        double lb = s.loads[b];
        if (!ils_is_partner(a, b, lb, bar)) continue;
        const double* row = etc + (u64)t * machines;
        double pair = fmax(lb + row[b], la - row[a]);
        ils_keep(&v, &k, pair, t * stride + b);
    }
    // From the best move on, a (task, partner machine) pair whose swaps' bound is above it
    // (or not below the bar) holds no better candidate: no swap of t with b's tasks has a
    // smaller larger load (sums and differences round monotonically). Ties go on to the
    // key comparison. On the inconsistent and semi-consistent matrices few pairs are left.
    ils_block_min(v, k, s.rv, s.rk, s.best_v, s.best_k);
    v = *s.best_v;
    k = *s.best_k;
    for (u32 i = threadIdx.x; i < pairs; i += blockDim.x) {
        u32 t = members[i / machines], b = i % machines;
        double lb = s.loads[b];
        if (!ils_is_partner(a, b, lb, bar) || s.start[b] == s.start[b + 1]) continue;
        const double* row = etc + (u64)t * machines;
        double after_a = la - row[a], b_with_t = lb + row[b];
        double least_pair = fmax(after_a + __longlong_as_double((i64)s.least[b]),
                                 b_with_t - __longlong_as_double((i64)s.most[b]));
        if (least_pair > v || least_pair >= bar) continue;
        u32 slot = atomicAdd(s.survived, 1u);
        if (slot < ILS_SURVIVORS) {
            s.survivors[slot] = i;
            continue;
        }
        // The list is full: this thread scans the pair's swaps itself.
        ils_scan_swaps(etc, machines, a, b, after_a, b_with_t, t * stride + machines, s.start[b], 1, s, &v,
                       &k);
    }
    __syncthreads();
    // A warp a listed pair, a lane a partner task.
    u32 listed = min(*s.survived, (u32)ILS_SURVIVORS);
    for (u32 l = threadIdx.x >> 5; l < listed; l += ILS_WARPS) {
        u32 i = s.survivors[l];
        u32 t = members[i / machines], b = i % machines;
        const double* row = etc + (u64)t * machines;
        double after_a = la - row[a], b_with_t = s.loads[b] + row[b];
        ils_scan_swaps(etc, machines, a, b, after_a, b_with_t, t * stride + machines,
                       s.start[b] + (threadIdx.x & 31), 32, s, &v, &k);
    }
    ils_block_min(v, k, s.rv, s.rk, s.best_v, s.best_k);
    bool found = *s.best_v < bar;
    if (found && threadIdx.x == 0) {
        u32 key = *s.best_k;
        u32 t = key / stride, rest = key % stride;
        if (rest < machines) {
            ils_shift(etc, machines, s.loads, s.asg, t, rest);
        } else {
            u32 u = rest - machines;
            u32 b = s.asg[u];
            ils_shift(etc, machines, s.loads, s.asg, t, b);
            ils_shift(etc, machines, s.loads, s.asg, u, a);
        }
    }
    __syncthreads();
    return found;
}

// Descends until no machine improves, busiest first; leaves order[] ranked.
__device__ void ils_descend(const double* __restrict__ etc, u32 tasks, u32 machines, const IlsShared& s) {
    ils_rank(s.loads, s.order, machines);
    u32 pos = 0;
    while (pos < machines) {
        u32 a = s.order[pos];
        if (ils_improve(etc, tasks, machines, a, s)) {
            ils_rank(s.loads, s.order, machines);
            pos = 0;
        } else {
            pos++;
        }
    }
}

// `kicks` kicks of chain blockIdx.x from its assignment in assign[chain*T ..]; writes back the
// assignment (never worse than it came) and its makespan. A chain stops at `bound`.
extern "C" __global__ void __launch_bounds__(ILS_THREADS)
ils_chains(const double* __restrict__ etc, u32 tasks, u32 machines, u32* assign, double* makespans,
           u32 kicks, u64 seed, u64 launch, double bound, unsigned long long* kicks_done) {
    extern __shared__ double smem[];
    double* loads = smem;
    double* saved_loads = loads + machines;
    u64* least = (u64*)(saved_loads + machines);
    u64* most = least + machines;
    double* rv = (double*)(most + machines);
    u32* rk = (u32*)(rv + ILS_WARPS);
    u32* start = rk + ILS_WARPS;
    u32* cursor = start + machines + 1;
    u32* survivors = cursor + machines;
    u16* order = (u16*)(survivors + ILS_SURVIVORS);
    u16* asg = order + machines;
    u16* saved = asg + tasks;
    u16* bucket = saved + tasks;
    __shared__ double best_v;
    __shared__ u32 best_k;
    __shared__ u32 survived;
    const IlsShared s = {loads, asg, bucket, start, cursor, least, most, survivors, &survived, order, rv,
                         rk, &best_v, &best_k};

    u32* mine = assign + (u64)blockIdx.x * tasks;
    for (u32 t = threadIdx.x; t < tasks; t += blockDim.x) asg[t] = (u16)mine[t];
    __syncthreads();
    // Loads summed afresh in task order (no drift carried between launches).
    for (u32 m = threadIdx.x; m < machines; m += blockDim.x) {
        double sum = 0.0;
        for (u32 t = 0; t < tasks; t++)
            if (asg[t] == m) sum += etc[(u64)t * machines + m];
        loads[m] = sum;
    }
    u64 rng = seed ^ ((u64)blockIdx.x + 1) * 0xa0761d6478bd642full ^ (launch + 1) * 0xe7037ed1a0b428dbull;
    ils_descend(etc, tasks, machines, s);
    double makespan = loads[order[0]];
    u32 done = 0;
    for (u32 kick = 0; kick < kicks; kick++) {
        if (makespan <= bound) break;
        for (u32 t = threadIdx.x; t < tasks; t += blockDim.x) saved[t] = asg[t];
        for (u32 m = threadIdx.x; m < machines; m += blockDim.x) saved_loads[m] = loads[m];
        __syncthreads();
        if (threadIdx.x == 0) {
            // Ruin: two to four tasks (every second one from the busiest machine) parked on
            // their machines with their times taken off; recreate: each, in order, to the
            // machine that finishes it first.
            u32 want = 2 + ils_below(&rng, 3);
            u32 taken[4];
            u32 n = 0;
            u32 busiest = order[0];
            for (u32 i = 0; i < want; i++) {
                u32 t = ils_below(&rng, tasks);
                if (i % 2 == 0) {
                    for (u32 tries = 0; tries < 64 * machines && asg[t] != busiest; tries++)
                        t = ils_below(&rng, tasks);
                }
                bool dup = false;
                for (u32 j = 0; j < n; j++) dup |= taken[j] == t;
                if (dup) continue;
                loads[asg[t]] -= etc[(u64)t * machines + asg[t]];
                taken[n++] = t;
            }
            for (u32 j = 0; j < n; j++) {
                u32 t = taken[j], m = asg[t];
                const double* row = etc + (u64)t * machines;
                loads[m] += row[m];
                double best = __longlong_as_double(0x7ff0000000000000ll);
                u32 at = m;
                for (u32 b = 0; b < machines; b++) {
                    double finish = b == m ? loads[b] : loads[b] + row[b];
                    if (finish < best) {
                        best = finish;
                        at = b;
                    }
                }
                ils_shift(etc, machines, loads, asg, t, at);
            }
        }
        __syncthreads();
        ils_descend(etc, tasks, machines, s);
        // Every thread holds the same loads here, so all take the same branch; the barrier
        // keeps the restore below from changing the loads under a warp that has not read
        // them yet (a warp that did would take the other branch and miss the barriers of
        // ils_rank).
        double after = loads[order[0]];
        __syncthreads();
        if (after > makespan) {
            for (u32 t = threadIdx.x; t < tasks; t += blockDim.x) asg[t] = saved[t];
            for (u32 m = threadIdx.x; m < machines; m += blockDim.x) loads[m] = saved_loads[m];
            ils_rank(loads, order, machines);
        } else {
            makespan = after;
        }
        done++;
    }
    __syncthreads();
    for (u32 t = threadIdx.x; t < tasks; t += blockDim.x) mine[t] = asg[t];
    if (threadIdx.x == 0) {
        makespans[blockIdx.x] = makespan;
        atomicAdd(kicks_done, (unsigned long long)done);
    }
}

// Every chain whose makespan is above `limit` restarts from chain `best` (one block per chain).
extern "C" __global__ void ils_restart(u32* assign, const double* makespans, u32 tasks, u32 best, double limit) {
    if (blockIdx.x == best || makespans[blockIdx.x] <= limit) return;
    const u32* from = assign + (u64)best * tasks;
    u32* to = assign + (u64)blockIdx.x * tasks;
    for (u32 t = threadIdx.x; t < tasks; t += blockDim.x) to[t] = from[t];
}
