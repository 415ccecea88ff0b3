// Push-relabel maximum flow on the GPU: the lock-free algorithm of Hong (2008) with global
// relabelling between rounds, on the residual graph with paired reverse arcs (CSR: the residual
// arcs out of v are start[v]..start[v+1], each with its head, its pair and its residual
// capacity). Both phases run here: excess toward the sink (target t, the source kept out),
// then the excess that cannot reach the sink back to the source (target s, the sink kept out).
//
// - pr_round: every thread takes vertices by grid stride, CYCLES times: an active vertex
//   (excess > 0, label below n, neither terminal) finds its lowest neighbour over arcs with
//   room; if it lies lower it pushes min(excess, room) there, else it relabels to one above it
//   (n where none). Only a vertex's own thread lowers its excess, lowers the room of its arcs
//   relative to what it read or writes its label, so every push is within what is there; the
//   atomics make concurrent pushes along an arc and its pair add up (Hong's argument).
// - global_relabel: exact labels, hops to the target over arcs with room (n where none, and
//   for the terminal kept out), by a BFS backwards from the target in one cooperative launch:
//   each level expands the frontier queue into the next one, a grid barrier between levels,
//   so the work follows the frontier and no level costs a launch or a host round trip. The
//   vertices it labels that hold excess are counted as it goes (the active vertices: the
//   host stops a phase at none).
//
// Capacities and excesses are signed 64-bit (the host refuses networks whose capacities sum
// past 2^63 - 1), changed by atomicAdd of two's-complement values.
//
// Host defines: THREADS, CYCLES, GR_THREADS and the relabelling's control words GR_ARRIVALS,
// GR_SIZES, GR_ACTIVE, GR_LEVELS.
#include "thicket.cuh"

#if !defined(THREADS) || !defined(CYCLES) || !defined(GR_THREADS) || !defined(GR_ARRIVALS) || \
    !defined(GR_SIZES) || !defined(GR_ACTIVE) || !defined(GR_LEVELS)
#error "push_relabel.cu needs the host's defines (THREADS, CYCLES, GR_*)"
#endif

extern "C" __global__ void __launch_bounds__(THREADS)
    pr_round(const u32* start, const u32* head, const u32* pair, i64* cap, u32* label,
             i64* excess, u32 n, u32 s, u32 t) {
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 cycle = 0; cycle < CYCLES; ++cycle) {
        for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
            const i64 e = *(volatile i64*)(excess + v);
            if (e <= 0 || v == s || v == t || label[v] >= n) continue;
            u32 lowest = n, at = 0;
            for (u32 a = start[v]; a < start[v + 1]; ++a) {
                if (*(volatile i64*)(cap + a) > 0) {
                    const u32 l = *(volatile u32*)(label + head[a]);
                    if (l < lowest) {
                        lowest = l;
                        at = a;
                    }
                }
            }
            if (lowest < label[v]) {
                const i64 room = *(volatile i64*)(cap + at);
                const i64 d = e < room ? e : room;
                atomic_add_i64(cap + at, -d);
                atomic_add_i64(cap + pair[at], d);
                atomic_add_i64(excess + v, -d);
                atomic_add_i64(excess + head[at], d);
            } else {
                label[v] = lowest + 1 < n ? lowest + 1 : n;
            }
        }
    }
}

// The frontier size of BFS level d (three words in turn: level d reads its own and counts
// into d + 1's while the lead thread clears d + 2's, which level d - 1 read before the
// barrier that ended it and level d + 1 writes only after the next one).
#define SIZE_AT(d) (GR_SIZES + (d) % 3u)

// Appends the lanes' `found` vertices v to `queue` at the count `*size` (one atomic for the
// warp). Every lane of the warp calls it.
__device__ __forceinline__ void append(bool found, u32 v, u32* queue, u64* size) {
    const u32 mask = __ballot_sync(FULL_MASK, found);
    if (mask == 0) return;
    const u32 lane = threadIdx.x & 31u;
    const u32 leader = __ffs(mask) - 1;
    u64 base = 0;
    if (lane == leader) base = atomicAdd(size, (u64)__popc(mask));
    base = __shfl_sync(FULL_MASK, base, leader);
    if (found) queue[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

// Exact labels toward `target` over arcs with room (u gets d + 1 from a vertex of label d
// whose arc from u has room, that is whose arc to u's pair has); `other` and every vertex cut
// off from the target keep n. `queues` holds two frontiers of n entries; `ctl` (GR_* words)
// is zero at launch and receives the labelled vertices holding excess (GR_ACTIVE) and the
// levels (GR_LEVELS). Arrays written during the launch by other blocks are read through L2
// (__ldcg): L1 is not coherent between blocks. Every thread runs the same levels (the sizes
// are read after the barriers), so every thread meets every barrier.
extern "C" __global__ void __launch_bounds__(GR_THREADS)
    global_relabel(const u32* start, const u32* head, const u32* pair, const i64* cap,
                   const i64* excess, u32* label, u32* queues, u32 n, u32 target, u32 other,
                   u64* ctl) {
    const u32 threads = gridDim.x * blockDim.x;
    const u32 id = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 v = id; v < n; v += threads) label[v] = v == target ? 0u : n;
    if (id == 0) {
        queues[0] = target;
        ctl[SIZE_AT(0)] = 1;
    }
    grid_barrier(ctl + GR_ARRIVALS, gridDim.x);
    const u32 lane = threadIdx.x & 31u;
    const u32 warps = threads / 32u;
    const u32 warp = id / 32u;
    u64 active = 0;
    u32 depth = 0;
    while (true) {
        const u32 size = (u32)__ldcg(ctl + SIZE_AT(depth));
        if (size == 0) break;
        if (id == 0) ctl[SIZE_AT(depth + 2)] = 0;
        const u32* from = queues + (u64)(depth & 1u) * n;
        u32* to = queues + (u64)((depth + 1) & 1u) * n;
        // A lane per frontier vertex, the warp in step over the arcs of its longest one.
        for (u32 base = warp * 32u; base < size; base += warps * 32u) {
            u32 a = 0, end = 0;
            if (base + lane < size) {
                const u32 v = __ldcg(from + base + lane);
                a = start[v];
                end = start[v + 1];
            }
            while (__any_sync(FULL_MASK, a < end)) {
                bool found = false;
                u32 u = 0;
                if (a < end) {
                    u = head[a];
                    found = u != other && cap[pair[a]] > 0 && __ldcg(label + u) == n &&
                            atomicCAS(label + u, n, depth + 1) == n;
                    if (found && excess[u] > 0) ++active;
                    ++a;
                }
                append(found, u, to, ctl + SIZE_AT(depth + 1));
            }
        }
        grid_barrier(ctl + GR_ARRIVALS, gridDim.x);
        ++depth;
    }
    add_per_warp(ctl + GR_ACTIVE, active);
    if (id == 0) ctl[GR_LEVELS] = depth;
}
