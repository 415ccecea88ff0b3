// MPM maximum flow in one cooperative launch (`mpm-active`): the thesis's algorithm (Solomon
// 2012, ch. 5) with every host round trip of its design replaced by a grid barrier. Per phase,
// as in kernels/mpm.cu: the layered network by a level-synchronous BFS from the source that
// stops at the sink's level, the potentials, pruning in cascades; then, while the source and
// the sink remain, the vertex of least potential v_m (least id among ties), the merged
// push/pull steps layer by layer, and pruning again. The flags the host read after each launch
// are words in `ctl` here, read by every thread after the barrier that ends their round; the
// thesis's "active vertices" are lists built by atomic appends (a flag per vertex keeps a
// vertex out of a list twice) instead of a scan: the receivers of a push/pull step are the
// next step's list, the vertices whose potential fell in a pruning round the next round's.
//
// Every thread runs the same loop and takes the same branches (they depend only on words read
// after a barrier), so every thread meets every barrier. Arrays that other blocks write during
// the launch are read with __ldcg (L2), as L1 is not coherent between blocks.
//
// ctl (u64 words, zero at launch but for the slots' minima): the barrier's arrivals; three
// round slots (round r writes slot r mod 3 and every thread reads it after the barrier that
// ends it; see next_round for their reset); three list counts of
// the push/pull steps and three of the pruning rounds; the statistics and per-phase times.
//
// Host defines: FUSED_THREADS and the ctl layout (ARRIVALS, SLOT_BASE, SLOT_WORDS, STEP_COUNTS,
// PRUNE_COUNTS, STAT_PHASES, STAT_STEPS, STAT_ROUNDS, TIME_LAYERED, TIME_PRUNE, TIME_PUSH_PULL).
#include "thicket.cuh"

#if !defined(FUSED_THREADS) || !defined(ARRIVALS) || !defined(SLOT_BASE) ||                    \
    !defined(SLOT_WORDS) || !defined(STEP_COUNTS) || !defined(PRUNE_COUNTS) ||                 \
    !defined(STAT_PHASES) || !defined(STAT_STEPS) || !defined(STAT_ROUNDS) ||                  \
    !defined(TIME_LAYERED) || !defined(TIME_PRUNE) || !defined(TIME_PUSH_PULL)
#error "mpm_fused.cu needs the host's defines"
#endif

#define UNSET 0xffffffffu
// Words of a round slot.
#define FOUND 0
#define SINK 1
#define MIN_POTENTIAL 2
#define MIN_VERTEX 3

// The grid barrier is thicket.cuh's `grid_barrier` (shared with thicket-graph's one-launch
// searches).

__device__ __forceinline__ u64 now_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#include "mpm.cuh"

__device__ __forceinline__ bool is_lead() { return blockIdx.x == 0 && threadIdx.x == 0; }

__device__ __forceinline__ u64* slot_of(u64* ctl, u32 round) {
    return ctl + SLOT_BASE + (round % 3u) * SLOT_WORDS;
}

// Ends round `round`: the barrier, then the slot it wrote (to read) and the next round's
// number. The lead resets the slot of the round after the next one: that slot was last read
// in the round before this one's, and is written only after the next barrier.
__device__ __forceinline__ const u64* next_round(u64* ctl, u32& round) {
    grid_barrier(ctl + ARRIVALS, gridDim.x);
    const u64* done = slot_of(ctl, round);
    ++round;
    if (is_lead()) {
        u64* reset = slot_of(ctl, round + 1);
        reset[FOUND] = 0;
        reset[SINK] = 0;
        reset[MIN_POTENTIAL] = ~0ull;
        reset[MIN_VERTEX] = ~0ull;
    }
    return done;
}

// The lead's clock: adds the time since the last mark to ctl[at].
__device__ __forceinline__ void charge(u64* ctl, u64& mark, u32 at) {
    if (is_lead()) {
        const u64 t = now_ns();
        ctl[at] += t - mark;
        mark = t;
    }
}

__device__ __forceinline__ i64 potential(u32 v, u32 s, u32 t, const i64* in, const i64* out) {
    return mpm_potential<L2Load>(v, s, t, in, out);
}

// Appends v to a list (once: its flag is set by the first appender).
__device__ __forceinline__ void append(u32 v, u32* flags, u32* list, u64* count) {
    if (atomicExch(flags + v, 1u) == 0u) {
        list[atomicAdd(count, 1ull)] = v;
    }
}

// Appends each vertex it marks to a list (once: the vertex's flag).
struct AppendMark {
    u32* flags;
    u32* list;
    u64* count;
    __device__ __forceinline__ void operator()(u32 v) const { append(v, flags, list, count); }
};

__device__ __forceinline__ bool prune_vertex(u32 v, const u32* start, const u32* head,
                                             const u32* pair, const i64* cap, const u32* level,
                                             u32* alive, i64* in, i64* out, u32 s, u32 t,
                                             u32* flags, u32* list, u64* count) {
    return mpm_prune_vertex<L2Load>(v, start, head, pair, cap, level, alive, in, out, s, t,
                                    AppendMark{flags, list, count});
}

// v's share of push/pull step k, appending the receivers to the next step's list.
__device__ __forceinline__ void push_pull_vertex(u32 v, u32 k, u32 vm, u32 lm, i64 least,
                                                 const u32* start, const u32* head,
                                                 const u32* pair, i64* cap, const u32* level,
                                                 const u32* alive, i64* in, i64* out, i64* held,
                                                 u32 s, u32 t, u32* flags, u32* list,
                                                 u64* count) {
    mpm_push_pull_vertex<L2Load>(v, k, vm, lm, least, start, head, pair, cap, level, alive, in,
                                 out, held, s, t, AppendMark{flags, list, count});
}

// Pruning until no vertex leaves: a sweep over every vertex, then rounds over the vertices
// whose potential fell in the round before. `prune_round` numbers these rounds over the whole
// launch: round j reads list j mod 2 with count PRUNE_COUNTS + j mod 3, appends to the other
// list and count j + 1 mod 3, and the lead clears count j + 2 mod 3 (read in round j - 1).
__device__ void prune_all(const u32* start, const u32* head, const u32* pair, const i64* cap,
                          const u32* level, u32* alive, i64* in, i64* out, u32* flags,
                          u32* const* lists, u32 n, u32 s, u32 t, u64* ctl, u32& round,
                          u32& prune_round) {
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 stride = gridDim.x * blockDim.x;
    for (bool sweep = true;; sweep = false) {
        const u32 j = prune_round;
        u32* into = lists[(j + 1) % 2];
        u64* into_count = ctl + PRUNE_COUNTS + (j + 1) % 3;
        bool left = false;
        if (sweep) {
            for (u32 v = tid; v < n; v += stride) {
                left |= prune_vertex(v, start, head, pair, cap, level, alive, in, out, s, t, flags,
                                     into, into_count);
            }
        } else {
            const u32* from = lists[j % 2];
            const u32 count = (u32)__ldcg(ctl + PRUNE_COUNTS + j % 3);
            for (u32 i = tid; i < count; i += stride) {
                const u32 v = __ldcg(from + i);
                flags[v] = 0;
                left |= prune_vertex(v, start, head, pair, cap, level, alive, in, out, s, t, flags,
                                     into, into_count);
            }
        }
        if (left) slot_of(ctl, round)[FOUND] = 1;
        if (is_lead()) ctl[PRUNE_COUNTS + (j + 2) % 3] = 0;
        ++prune_round;
        const u64* done = next_round(ctl, round);
        if (!__ldcg(done + FOUND)) return;
    }
}

extern "C" __global__ void __launch_bounds__(FUSED_THREADS)
    mpm_fused(const u32* start, const u32* head, const u32* pair, i64* cap, u32* level,
              u32* alive, i64* in, i64* out, i64* held, u32* flags, u32* list0, u32* list1,
              u32 n, u32 s, u32 t, u64* ctl) {
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 stride = gridDim.x * blockDim.x;
    u32* const lists[2] = {list0, list1};
    u32 round = 0, prune_round = 0;
    u64 mark = is_lead() ? now_ns() : 0;
    for (;;) {
        // The layered network: BFS levels from the source until the sink's.
        for (u32 v = tid; v < n; v += stride) level[v] = v == s ? 0u : UNSET;
        next_round(ctl, round);
        u32 depth = 0;
        bool reached = false;
        for (;;) {
            bool found = false, sink = false;
            for (u32 v = tid; v < n; v += stride) {
                if (__ldcg(level + v) != depth) continue;
                for (u32 e = start[v]; e < start[v + 1]; ++e) {
                    const u32 h = head[e];
                    if (__ldcg(cap + e) > 0 && __ldcg(level + h) == UNSET) {
                        level[h] = depth + 1;  // every writer writes the same value
                        found = true;
                        sink |= h == t;
                    }
                }
            }
            u64* slot = slot_of(ctl, round);
            if (found) slot[FOUND] = 1;
            if (sink) slot[SINK] = 1;
            const u64* done = next_round(ctl, round);
            ++depth;
            if (__ldcg(done + SINK)) {
                reached = true;
                break;
            }
            if (!__ldcg(done + FOUND)) break;
        }
        if (!reached) break;  // no augmenting path: the flow is maximum
        for (u32 v = tid; v < n; v += stride) {
            const u32 lv = __ldcg(level + v);
            alive[v] = lv != UNSET && (lv < depth || v == t) ? 1u : 0u;
            held[v] = 0;
        }
        next_round(ctl, round);
        for (u32 v = tid; v < n; v += stride) {
            i64 into = 0, from = 0;
            if (__ldcg(alive + v)) {
                const u32 lv = __ldcg(level + v);
                for (u32 e = start[v]; e < start[v + 1]; ++e) {
                    const u32 h = head[e];
                    if (!__ldcg(alive + h)) continue;
                    const u32 lh = __ldcg(level + h);
                    const i64 forward = __ldcg(cap + e), backward = __ldcg(cap + pair[e]);
                    if (lh == lv + 1 && forward > 0) from += forward;
                    if (lh + 1 == lv && backward > 0) into += backward;
                }
            }
            in[v] = into;
            out[v] = from;
        }
        next_round(ctl, round);
        if (is_lead()) ctl[STAT_PHASES] += 1;
        charge(ctl, mark, TIME_LAYERED);
        prune_all(start, head, pair, cap, level, alive, in, out, flags, lists, n, s, t, ctl,
                  round, prune_round);
        charge(ctl, mark, TIME_PRUNE);
        for (;;) {
            // The vertex of least potential: the least value, then the least vertex with it.
            u64 p = ~0ull;
            for (u32 v = tid; v < n; v += stride) {
                if (!__ldcg(alive + v)) continue;
                const u64 q = (u64)potential(v, s, t, in, out);
                p = q < p ? q : p;
            }
            for (u32 offset = 16; offset > 0; offset >>= 1) {
                const u64 other = __shfl_down_sync(0xffffffffu, p, offset);
                p = other < p ? other : p;
            }
            if ((threadIdx.x & 31u) == 0 && p != ~0ull) {
                atomicMin(slot_of(ctl, round) + MIN_POTENTIAL, p);
            }
            const u64 least = __ldcg(next_round(ctl, round) + MIN_POTENTIAL);
            if (least == ~0ull || !__ldcg(alive + s) || !__ldcg(alive + t)) break;
            for (u32 v = tid; v < n; v += stride) {
                if (__ldcg(alive + v) && (u64)potential(v, s, t, in, out) == least) {
                    atomicMin(slot_of(ctl, round) + MIN_VERTEX, (u64)v);
                }
            }
            if (is_lead()) {
                ctl[STEP_COUNTS] = 0;
                ctl[STEP_COUNTS + 1] = 0;
                ctl[STEP_COUNTS + 2] = 0;
                held[s] = 0;
                held[t] = 0;
            }
            const u32 vm = (u32)__ldcg(next_round(ctl, round) + MIN_VERTEX);
            const u32 lm = __ldcg(level + vm);
            // Step k: level lm + k pushes forward, level lm - k pulls backward; the list of
            // step k is the receivers of step k - 1 (count STEP_COUNTS + k mod 3), and the lead
            // clears the count of step k + 2 (read in step k - 1).
            const u32 steps = depth - lm > lm ? depth - lm : lm;
            for (u32 k = 0; k < steps; ++k) {
                u32* into = lists[(k + 1) % 2];
                u64* into_count = ctl + STEP_COUNTS + (k + 1) % 3;
                if (k == 0) {
                    if (tid == 0) {
                        push_pull_vertex(vm, 0, vm, lm, (i64)least, start, head, pair, cap,
                                         level, alive, in, out, held, s, t, flags, into,
                                         into_count);
                    }
                } else {
                    const u32* from = lists[k % 2];
                    const u32 count = (u32)__ldcg(ctl + STEP_COUNTS + k % 3);
                    for (u32 i = tid; i < count; i += stride) {
                        const u32 v = __ldcg(from + i);
                        flags[v] = 0;
                        push_pull_vertex(v, k, vm, lm, (i64)least, start, head, pair, cap,
                                         level, alive, in, out, held, s, t, flags, into,
                                         into_count);
                    }
                }
                if (is_lead()) ctl[STEP_COUNTS + (k + 2) % 3] = 0;
                next_round(ctl, round);
            }
            if (is_lead()) ctl[STAT_STEPS] += 1;
            charge(ctl, mark, TIME_PUSH_PULL);
            prune_all(start, head, pair, cap, level, alive, in, out, flags, lists, n, s, t,
                      ctl, round, prune_round);
            charge(ctl, mark, TIME_PRUNE);
        }
        charge(ctl, mark, TIME_PUSH_PULL);
    }
    if (is_lead()) ctl[STAT_ROUNDS] = round;
}
