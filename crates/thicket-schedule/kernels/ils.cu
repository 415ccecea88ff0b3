// thicket's default on the GPU (src/gpu_search.rs): one block per chain of the iterated local
// search of src/search.rs, with the chain's assignment, its loads and its saved copy in
// shared memory. Every step of the descent evaluates all moves and swaps of one machine at
// once (one thread per (task of the machine, partner task) pair, a block min-reduction), the
// busiest machine first; the kick (ruin and recreate of two to four tasks) runs on thread 0.
//
// Shared memory (dynamic): loads[M], saved_loads[M] (f64), the reduction's per-warp values
// and indices, then order[M], assignment[T], saved[T], members[T] (u16).
#include "thicket.cuh"

#ifndef ILS_THREADS
#error "ILS_THREADS must be defined by the host"
#endif

typedef unsigned short u16;

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

// Task t to machine `to` (thread 0).
__device__ __forceinline__ void ils_shift(const double* etc, u32 machines, double* loads, u16* asg, u32 t, u32 to) {
    u32 from = asg[t];
    loads[from] -= etc[(u64)t * machines + from];
    loads[to] += etc[(u64)t * machines + to];
    asg[t] = (u16)to;
}

// The best move or swap that lowers machine a's load below it with the partner staying
// below a's old load (the sorted-load-vector descent of src/search.rs), applied if found.
// Keys: t * (T + M) + b for a move of t to b, t * (T + M) + M + u for a swap with u.
__device__ bool ils_improve(const double* __restrict__ etc, u32 tasks, u32 machines, u32 a,
                            double* loads, u16* asg, u16* members, double* rv, u32* rk,
                            u32* count, double* best_v, u32* best_k) {
    // The machine's tasks in task order: the first warp compacts 32 tasks per step.
    if (threadIdx.x < 32) {
        u32 base = 0;
        for (u32 t0 = 0; t0 < tasks; t0 += 32) {
            u32 t = t0 + threadIdx.x;
            bool mine = t < tasks && asg[t] == a;
            unsigned ballot = __ballot_sync(0xffffffffu, mine);
            if (mine) members[base + __popc(ballot & ((1u << threadIdx.x) - 1))] = (u16)t;
            base += __popc(ballot);
        }
        if (threadIdx.x == 0) *count = base;
    }
    __syncthreads();
    u32 na = *count;
    double la = loads[a];
    double bar = la * (1.0 - 1e-12);
    u32 stride = tasks + machines;
    double v = __longlong_as_double(0x7ff0000000000000ll);
    u32 k = 0xffffffffu;
    u32 moves = na * machines;
    for (u32 i = threadIdx.x; i < moves; i += blockDim.x) {
        u32 t = members[i / machines], b = i % machines;
        double lb = loads[b];
        if (b == a || lb >= bar) continue;
        const double* row = etc + (u64)t * machines;
        double pair = fmax(lb + row[b], la - row[a]);
        ils_keep(&v, &k, pair, t * stride + b);
    }
    u32 swaps = na * tasks;
    for (u32 i = threadIdx.x; i < swaps; i += blockDim.x) {
        u32 t = members[i / tasks], u = i % tasks;
        u32 b = asg[u];
        double lb = loads[b];
        if (b == a || lb >= bar) continue;
        const double* row = etc + (u64)t * machines;
        const double* other = etc + (u64)u * machines;
        double pair = fmax((la - row[a]) + other[a], (lb + row[b]) - other[b]);
        ils_keep(&v, &k, pair, t * stride + machines + u);
    }
    ils_block_min(v, k, rv, rk, best_v, best_k);
    bool found = *best_v < bar;
    if (found && threadIdx.x == 0) {
        u32 key = *best_k;
        u32 t = key / stride, rest = key % stride;
        if (rest < machines) {
            ils_shift(etc, machines, loads, asg, t, rest);
        } else {
            u32 u = rest - machines;
            u32 b = asg[u];
            ils_shift(etc, machines, loads, asg, t, b);
            ils_shift(etc, machines, loads, asg, u, a);
        }
    }
    __syncthreads();
    return found;
}

// Descends until no machine improves, busiest first; leaves order[] ranked.
__device__ void ils_descend(const double* __restrict__ etc, u32 tasks, u32 machines, double* loads,
                            u16* asg, u16* members, u16* order, double* rv, u32* rk, u32* count,
                            double* best_v, u32* best_k) {
    ils_rank(loads, order, machines);
    u32 pos = 0;
    while (pos < machines) {
        u32 a = order[pos];
        if (ils_improve(etc, tasks, machines, a, loads, asg, members, rv, rk, count, best_v, best_k)) {
            ils_rank(loads, order, machines);
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
    double* rv = saved_loads + machines;
    u32* rk = (u32*)(rv + ILS_WARPS);
    u16* order = (u16*)(rk + ILS_WARPS);
    u16* asg = order + machines;
    u16* saved = asg + tasks;
    u16* members = saved + tasks;
    __shared__ double best_v;
    __shared__ u32 best_k;
    __shared__ u32 count;

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
    ils_descend(etc, tasks, machines, loads, asg, members, order, rv, rk, &count, &best_v, &best_k);
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
        ils_descend(etc, tasks, machines, loads, asg, members, order, rv, rk, &count, &best_v, &best_k);
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
