// Shortest paths with non-negative integer weights on the GPU: near-far delta-stepping in one
// cooperative launch (Davidson, Baxter, Garland and Owens, IPDPS 2014, on Meyer and Sanders's
// delta-stepping), distances in 64 bits, exact.
//
// Two piles of vertices: `near`, whose tentative distance is below the threshold T, and `far`,
// the rest. A round relaxes every arc out of the near pile (each vertex with its distance as it
// is then); a vertex improved below T joins the next near pile, one improved to T or more the
// far pile. When a round finds the near pile empty, T grows by delta (past the smallest
// distance the far pile recorded, so empty buckets cost nothing) and the far pile is split: a
// vertex now below T joins the near pile, one at T or more stays, one below the old T is
// stale (its distance was lowered since, and that improvement queued it). The search ends when
// both piles are empty. The arcs are relaxed with atomicMin, so the order the rounds meet
// vertices in changes the work, never the answer: every improvement queues its vertex once
// more. Stamps keep each vertex at most once in a pile (`mark`: the near round it is queued
// for; `far_mark`: the far epoch), so each pile needs n entries.
//
// A round expands a vertex of GIANT or more arcs with the whole grid, one of 32 or more with
// its warp, the others with groups of 1 to MAX_GROUP lanes (as fast_bfs does); appends take
// one atomic per warp.
//
// Host defines: GIANT, MAX_GROUP and the counters' layout NEAR_BASE, GIANTS_BASE, FAR_BASE,
// FAR_MIN_BASE, ARRIVALS.
#include "thicket.cuh"
#include "grid.cuh"

#if !defined(GIANT) || !defined(MAX_GROUP) || !defined(NEAR_BASE) || !defined(ARRIVALS)
#error "sssp.cu needs the host's defines (GIANT, the counters' layout)"
#endif

#define INFINITE 0xffffffffffffffffull

// The counters (u64 words), rotating by three so that the next one can be cleared while the
// current one is read: per near round its pile's size and giants, per far epoch its pile's
// size and the smallest distance recorded into it.
#define NEAR_AT(round) (NEAR_BASE + (round) % 3)
#define GIANTS_AT(round) (GIANTS_BASE + (round) % 3)
#define FAR_AT(epoch) (FAR_BASE + (epoch) % 3)
#define FAR_MIN_AT(epoch) (FAR_MIN_BASE + (epoch) % 3)

// Every entry of `values` set to `value` (the host's initial distances).
extern "C" __global__ void fill_u64(u64* values, u64 count, u64 value) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < count;
         i += (u64)gridDim.x * blockDim.x) {
        values[i] = value;
    }
}

// Where a round or a split puts what it queues.
struct Piles {
    const u64* offsets;
    u32* near_to;    // the next round's near pile
    u32* giants_to;  // its vertices of GIANT or more arcs
    u32* far_to;     // the far pile of `far_epoch`
    u32* mark;       // per vertex: the round it was last queued for
    u32* far_mark;   // per vertex: the far epoch (+ 1) it was last queued into
    u64* counters;
    u32 near_round;  // the round `near_to` is for
    u32 far_epoch;   // the epoch `far_to` belongs to
    u64 threshold;   // the near pile's bound
};

// The smallest of the lanes' `value`, in every lane. Every lane must call it.
__device__ __forceinline__ u64 warp_min(u64 value) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        value = min(value, __shfl_xor_sync(FULL_MASK, value, offset));
    }
    return value;
}

// Queues the lanes' vertices `v` (where `near` or `far` holds) into the piles: one atomic per
// warp and pile. `distance` is the distance each far vertex is queued with. Every lane calls it.
__device__ void enqueue(bool near, bool far, u32 v, u64 distance, const Piles& p) {
    const int lane = threadIdx.x & 31;
    const u32 near_mask = __ballot_sync(FULL_MASK, near);
    const u32 far_mask = __ballot_sync(FULL_MASK, far);
    if (near_mask != 0) {
        // The degree's loads issued before the atomic, which needs nothing from them.
        const u64 degree = near ? __ldg(p.offsets + v + 1) - __ldg(p.offsets + v) : 0;
        u64 base = 0;
        if (lane == 0) {
            base = atomicAdd(p.counters + NEAR_AT(p.near_round), (u64)__popc(near_mask));
        }
        base = __shfl_sync(FULL_MASK, base, 0);
        if (near) {
            p.near_to[base + __popc(near_mask & ((1u << lane) - 1u))] = v;
            if (degree >= GIANT) {
                p.giants_to[atomicAdd(p.counters + GIANTS_AT(p.near_round), 1ull)] = v;
            }
        }
    }
    if (far_mask != 0) {
        const u64 smallest = warp_min(far ? distance : INFINITE);
        u64 base = 0;
        if (lane == 0) {
            base = atomicAdd(p.counters + FAR_AT(p.far_epoch), (u64)__popc(far_mask));
            atomicMin(p.counters + FAR_MIN_AT(p.far_epoch), smallest);
        }
        base = __shfl_sync(FULL_MASK, base, 0);
        if (far) {
            p.far_to[base + __popc(far_mask & ((1u << lane) - 1u))] = v;
        }
    }
}

// Offers each lane's distance `through` to vertex v (where `valid`): a lane that lowers v's
// distance queues v, near or far by the threshold, unless v is queued there already (a far
// vertex's distance is still recorded for the next threshold). Every lane calls it.
__device__ __forceinline__ void offer(bool valid, u32 v, u64 through, u64* distances,
                                      const Piles& p) {
    bool near = false;
    bool far = false;
    bool improved = false;
    if (valid && through < __ldcg(distances + v)) {
        improved = atomicMin(distances + v, through) > through;
    }
    if (improved) {
        if (through < p.threshold) {
            near = atomicExch(p.mark + v, p.near_round) != p.near_round;
        } else {
            far = atomicExch(p.far_mark + v, p.far_epoch + 1) != p.far_epoch + 1;
            if (!far) {
                // Queued already, with a larger distance: the smaller one still bounds the
                // next threshold.
                atomicMin(p.counters + FAR_MIN_AT(p.far_epoch), through);
            }
        }
    }
    enqueue(near, far, v, through, p);
}

// The lanes' arcs e (< last) out of a vertex at distance `from`, relaxed.
__device__ __forceinline__ void relax(const u32* targets, const u32* weights, u64* distances,
                                      u64 from, u64 e, u64 last, const Piles& p) {
    const bool valid = e < last;
    u32 v = 0;
    u64 through = 0;
    if (valid) {
        v = __ldg(targets + e);
        through = from + (weights != nullptr ? __ldg(weights + e) : 1u);
    }
    offer(valid, v, through, distances, p);
}

// One round: every arc out of the near pile `from` (`count` vertices, its giants `giants`,
// `giant_count`) relaxed.
__device__ void relax_round(const u64* offsets, const u32* targets, const u32* weights,
                            u64* distances, const u32* from, u32 count, const u32* giants,
                            u32 giant_count, const Piles& p) {
    expand_frontier(
        offsets, from, count, giants, giant_count,
        [&](u32 u) { return __ldcg(distances + u); },
        [&](u64 du, u64 e, u64 last) { relax(targets, weights, distances, du, e, last, p); });
}

// The far pile `from` (`count` entries) split at the new threshold p.threshold: below it and
// not below `old_threshold` into the near pile, at or above it into the next far pile.
__device__ void split(const u32* from, u64 count, u64 old_threshold, u64* distances,
                      const Piles& p) {
    const int lane = threadIdx.x & 31;
    const u64 warps = gridDim.x * (blockDim.x >> 5);
    const u64 warp = spread_warp();
    for (u64 chunk = warp * 32; chunk < count; chunk += warps * 32) {
        const u64 i = chunk + lane;
        bool near = false;
        bool far = false;
        u32 v = 0;
        u64 d = INFINITE;
        if (i < count) {
            v = __ldcg(from + i);
            d = __ldcg(distances + v);
            if (d >= old_threshold && d < p.threshold) {
                near = atomicExch(p.mark + v, p.near_round) != p.near_round;
            } else if (d >= p.threshold) {
                far = atomicExch(p.far_mark + v, p.far_epoch + 1) != p.far_epoch + 1;
            }
        }
        enqueue(near, far, v, d, p);
    }
}

// The whole search from the source, whose distance (0), near pile (round 0) and counters the
// host has set: near round 0 holds the source, every far pile is empty with the smallest
// distance INFINITE, `arrivals` is zero. `near` holds two piles of n entries, `far` two,
// `giants` two of `giant_room`; `mark` and `far_mark` are zero. `stats` receives the rounds,
// the splits and the near vertices processed.
extern "C" __global__ void near_far_sssp(const u64* offsets, const u32* targets,
                                         const u32* weights, u64* distances, u32* near,
                                         u32* giants, u32 giant_room, u32* far, u32* mark,
                                         u32* far_mark, u64* counters, u32 n, u64 delta,
                                         u64* stats) {
    u32 round = 0;
    u32 epoch = 0;
    u64 threshold = delta;
    u64 processed = 0;
    while (true) {
        const u64 size = __ldcg(counters + NEAR_AT(round));
        const u32 giant_count = (u32)__ldcg(counters + GIANTS_AT(round));
        const bool root = blockIdx.x == 0 && threadIdx.x == 0;
        if (root) {
            // Round + 2's counters, last read before the barrier that ended round - 1.
            counters[NEAR_AT(round + 2)] = 0;
            counters[GIANTS_AT(round + 2)] = 0;
        }
        Piles p;
        p.offsets = offsets;
        p.near_to = near + (u64)((round + 1) & 1) * n;
        p.giants_to = giants + (u64)((round + 1) & 1) * giant_room;
        p.mark = mark;
        p.far_mark = far_mark;
        p.counters = counters;
        p.near_round = round + 1;
        if (size > 0) {
            processed += size;
            p.far_to = far + (u64)(epoch & 1) * n;
            p.far_epoch = epoch;
            p.threshold = threshold;
            relax_round(offsets, targets, weights, distances, near + (u64)(round & 1) * n,
                        (u32)size, giants + (u64)(round & 1) * giant_room, giant_count, p);
        } else {
            const u64 far_count = __ldcg(counters + FAR_AT(epoch));
            if (far_count == 0) {
                break;
            }
            const u64 smallest = __ldcg(counters + FAR_MIN_AT(epoch));
            if (root) {
                counters[FAR_AT(epoch + 2)] = 0;
                counters[FAR_MIN_AT(epoch + 2)] = INFINITE;
            }
            // The next bucket that holds a recorded distance (delta past the old threshold at
            // least), without passing 2^64.
            const u64 bucket_end = smallest / delta * delta;
            const u64 next = bucket_end > INFINITE - delta ? INFINITE : bucket_end + delta;
            p.far_to = far + (u64)((epoch + 1) & 1) * n;
            p.far_epoch = epoch + 1;
            p.threshold = max(threshold > INFINITE - delta ? INFINITE : threshold + delta, next);
            split(far + (u64)(epoch & 1) * n, far_count, threshold, distances, p);
            threshold = p.threshold;
            ++epoch;
        }
        grid_barrier(counters + ARRIVALS, gridDim.x);
        ++round;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        stats[0] = round;
        stats[1] = epoch;
        stats[2] = processed;
    }
}
