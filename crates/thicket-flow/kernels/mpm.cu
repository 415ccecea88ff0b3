// MPM maximum flow on the GPU (Solomon 2012, ch. 5), on a residual graph with paired reverse
// arcs (CSR: the residual arcs out of v are start[v]..start[v+1], each with its head, its
// pair and its residual capacity), one thread per vertex:
//
// - bfs_level: one level of the layered network's BFS from the source over arcs with room
//   (the thesis's BFS kernel); flags[0] = something labelled, flags[1] = the sink labelled.
// - mark_alive, potentials: the layered network's vertices (levels below the sink's, and the
//   sink) and their in- and out-potentials over layered arcs (the thesis's auxiliary kernel).
// - prune / prune_list: a vertex of potential 0 leaves the network and takes its layered arcs'
//   capacities off its neighbours' potentials (atomic subtractions); the host repeats until
//   no vertex leaves. The list variant works on the vertices whose potential fell last time.
// - argmin_reset, argmin_value, argmin_vertex, argmin_finish: the vertex of least potential
//   (least id among ties), its potential and level, and whether the source and sink remain.
// - push_pull / push_pull_list: the thesis's merged kernel: in step k, the vertices of level
//   l(v_m) + k push what they hold forward and those of level l(v_m) - k pull what they owe
//   backward, greedily along layered arcs (v_m both, in step 0); receivers' potentials and
//   holdings change by atomics. The list variant flags the receivers for the next step's list.
// - scan_count, scan_offsets, scan_compact: flags into a list of vertices (the thesis's
//   "active vertices", a scan instead of CUDPP).
//
// Capacities, potentials and holdings are signed 64-bit (the host refuses networks whose
// capacities sum past 2^63 - 1), changed by atomicAdd of two's-complement values.
//
// Host defines: THREADS, SCAN_THREADS, SCAN_TILE.
#include "thicket.cuh"

#if !defined(THREADS) || !defined(SCAN_THREADS) || !defined(SCAN_TILE)
#error "mpm.cu needs the host's defines (THREADS, SCAN_THREADS, SCAN_TILE)"
#endif

#define UNSET 0xffffffffu
// ctl words: least potential, its vertex, its level, source and sink both alive.
#define BEST_POTENTIAL 0
#define BEST_VERTEX 1
#define BEST_LEVEL 2
#define TERMINALS_ALIVE 3

#include "mpm.cuh"

// Marks a neighbour for the next scan's list, where the launch keeps one.
struct FlagMark {
    u32* flags;
    __device__ __forceinline__ void operator()(u32 v) const {
        if (flags) flags[v] = 1;
    }
};

__device__ __forceinline__ i64 potential_of(u32 v, u32 s, u32 t, const i64* in, const i64* out) {
    return mpm_potential<PlainLoad>(v, s, t, in, out);
}

extern "C" __global__ void fill_levels(u32* level, u32 n, u32 s) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) level[v] = v == s ? 0u : UNSET;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    bfs_level(const u32* start, const u32* head, const i64* cap, u32* level, u32 n, u32 depth,
              u32 t, u32* flags) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level[v] != depth) return;
    for (u32 e = start[v]; e < start[v + 1]; ++e) {
        const u32 h = head[e];
        if (cap[e] > 0 && level[h] == UNSET) {
            level[h] = depth + 1;  // every writer writes the same value
            flags[0] = 1;
            if (h == t) flags[1] = 1;
        }
    }
}

extern "C" __global__ void mark_alive(const u32* level, u32* alive, u32 n, u32 depth, u32 t) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) alive[v] = level[v] != UNSET && (level[v] < depth || v == t) ? 1u : 0u;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    potentials(const u32* start, const u32* head, const u32* pair, const i64* cap,
               const u32* level, const u32* alive, i64* in, i64* out, u32 n) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    i64 into = 0, from = 0;
    if (alive[v]) {
        const u32 lv = level[v];
        for (u32 e = start[v]; e < start[v + 1]; ++e) {
            const u32 h = head[e];
            if (!alive[h]) continue;
            if (level[h] == lv + 1 && cap[e] > 0) from += cap[e];
            if (level[h] + 1 == lv && cap[pair[e]] > 0) into += cap[pair[e]];
        }
    }
    in[v] = into;
    out[v] = from;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    prune(const u32* start, const u32* head, const u32* pair, const i64* cap, const u32* level,
          u32* alive, i64* in, i64* out, u32 n, u32 s, u32 t, u32* left, u32* touched,
          u32 flag_touched) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && mpm_prune_vertex<PlainLoad>(v, start, head, pair, cap, level, alive, in, out, s,
                                             t, FlagMark{flag_touched ? touched : 0})) {
        *left = 1;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    prune_list(const u32* start, const u32* head, const u32* pair, const i64* cap,
               const u32* level, u32* alive, i64* in, i64* out, const u32* list,
               const u32* count, u32 s, u32 t, u32* left, u32* touched) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < *count; i += gridDim.x * blockDim.x) {
        if (mpm_prune_vertex<PlainLoad>(list[i], start, head, pair, cap, level, alive, in, out, s,
                                        t, FlagMark{touched})) {
            *left = 1;
        }
    }
}

extern "C" __global__ void argmin_reset(u64* ctl) {
    ctl[BEST_POTENTIAL] = ~0ull;
    ctl[BEST_VERTEX] = ~0ull;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    argmin_value(const u32* alive, const i64* in, const i64* out, u32 n, u32 s, u32 t,
                 u64* ctl) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    u64 p = v < n && alive[v] ? (u64)potential_of(v, s, t, in, out) : ~0ull;
    for (u32 offset = 16; offset > 0; offset >>= 1) {
        const u64 other = __shfl_down_sync(0xffffffffu, p, offset);
        p = other < p ? other : p;
    }
    if ((threadIdx.x & 31u) == 0 && p != ~0ull) atomicMin(ctl + BEST_POTENTIAL, p);
}

extern "C" __global__ void __launch_bounds__(THREADS)
    argmin_vertex(const u32* alive, const i64* in, const i64* out, u32 n, u32 s, u32 t,
                  u64* ctl) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && alive[v] && (u64)potential_of(v, s, t, in, out) == ctl[BEST_POTENTIAL]) {
        atomicMin(ctl + BEST_VERTEX, (u64)v);
    }
}

extern "C" __global__ void argmin_finish(const u32* level, const u32* alive, u32 s, u32 t,
                                         u64* ctl, i64* held) {
    const u64 vm = ctl[BEST_VERTEX];
    ctl[BEST_LEVEL] = vm == ~0ull ? 0 : level[vm];
    ctl[TERMINALS_ALIVE] = alive[s] && alive[t] ? 1 : 0;
    held[s] = 0;
    held[t] = 0;
}

// v's share of step k, from the argmin's words (v_m, its level and potential).
__device__ __forceinline__ void push_pull_vertex(u32 v, u32 k, const u32* start, const u32* head,
                                                 const u32* pair, i64* cap, const u32* level,
                                                 const u32* alive, i64* in, i64* out, i64* held,
                                                 u32 s, u32 t, const u64* ctl, u32* flags) {
    mpm_push_pull_vertex<PlainLoad>(v, k, (u32)ctl[BEST_VERTEX], (u32)ctl[BEST_LEVEL],
                                    (i64)ctl[BEST_POTENTIAL], start, head, pair, cap, level,
                                    alive, in, out, held, s, t, FlagMark{flags});
}

extern "C" __global__ void __launch_bounds__(THREADS)
    push_pull(const u32* start, const u32* head, const u32* pair, i64* cap, const u32* level,
              const u32* alive, i64* in, i64* out, i64* held, u32 n, u32 k, u32 s, u32 t,
              const u64* ctl) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const u32 lm = (u32)ctl[BEST_LEVEL];
    const u32 lv = level[v];
    if (lv != lm + k && lv + k != lm) return;
    push_pull_vertex(v, k, start, head, pair, cap, level, alive, in, out, held, s, t, ctl, 0);
}

extern "C" __global__ void __launch_bounds__(THREADS)
    push_pull_list(const u32* start, const u32* head, const u32* pair, i64* cap,
                   const u32* level, const u32* alive, i64* in, i64* out, i64* held,
                   const u32* list, const u32* count, u32 k, u32 s, u32 t, const u64* ctl,
                   u32* flags) {
    if (k == 0) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            push_pull_vertex((u32)ctl[BEST_VERTEX], 0, start, head, pair, cap, level, alive, in,
                             out, held, s, t, ctl, flags);
        }
        return;
    }
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < *count; i += gridDim.x * blockDim.x) {
        push_pull_vertex(list[i], k, start, head, pair, cap, level, alive, in, out, held, s, t,
                         ctl, flags);
    }
}

// ---------------------------------------------------------------------------------------------
// Flags into a list: counts per tile, the tiles' offsets, then each tile's flagged vertices.

extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    scan_count(const u32* flags, u32 n, u32* tile_counts) {
    const u64 first = (u64)blockIdx.x * SCAN_TILE;
    u32 count = 0;
    for (u32 k = threadIdx.x; k < SCAN_TILE; k += SCAN_THREADS) {
        const u64 i = first + k;
        count += i < n && flags[i] != 0;
    }
    __shared__ u32 sums[SCAN_THREADS / 32];
    for (u32 offset = 16; offset > 0; offset >>= 1) {
        count += __shfl_down_sync(0xffffffffu, count, offset);
    }
    if ((threadIdx.x & 31u) == 0) sums[threadIdx.x >> 5] = count;
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 total = 0;
        for (u32 w = 0; w < SCAN_THREADS / 32; ++w) total += sums[w];
        tile_counts[blockIdx.x] = total;
    }
}

// One block: the tiles' counts into exclusive offsets, the sum into *total.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    scan_offsets(u32* tile_counts, u32 tiles, u32* total) {
    __shared__ u32 sums[SCAN_THREADS];
    u32 carry = 0;
    for (u32 base = 0; base < tiles; base += SCAN_THREADS) {
        const u32 i = base + threadIdx.x;
        const u32 count = i < tiles ? tile_counts[i] : 0;
        sums[threadIdx.x] = count;
        __syncthreads();
        // Hillis-Steele inclusive scan in shared memory.
        for (u32 offset = 1; offset < SCAN_THREADS; offset <<= 1) {
            const u32 other = threadIdx.x >= offset ? sums[threadIdx.x - offset] : 0;
            __syncthreads();
            sums[threadIdx.x] += other;
            __syncthreads();
        }
        if (i < tiles) tile_counts[i] = carry + sums[threadIdx.x] - count;
        carry += sums[SCAN_THREADS - 1];
        __syncthreads();
    }
    if (threadIdx.x == 0) *total = carry;
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    scan_compact(u32* flags, u32 n, const u32* tile_offsets, u32* list) {
    __shared__ u32 warp_counts[SCAN_THREADS / 32];
    const u64 first = (u64)blockIdx.x * SCAN_TILE;
    u32 next = tile_offsets[blockIdx.x];
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (u32 k = 0; k < SCAN_TILE; k += SCAN_THREADS) {
        const u64 i = first + k + threadIdx.x;
        const bool flagged = i < n && flags[i] != 0;
        const u32 ballot = __ballot_sync(0xffffffffu, flagged);
        if (lane == 0) warp_counts[warp] = __popc(ballot);
        __syncthreads();
        u32 before = 0, chunk = 0;
        for (u32 w = 0; w < SCAN_THREADS / 32; ++w) {
            before += w < warp ? warp_counts[w] : 0;
            chunk += warp_counts[w];
        }
        if (flagged) {
            list[next + before + __popc(ballot & ((1u << lane) - 1u))] = (u32)i;
            flags[i] = 0;
        }
        next += chunk;
        __syncthreads();
    }
}
