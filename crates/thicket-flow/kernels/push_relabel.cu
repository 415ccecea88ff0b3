// Push-relabel maximum flow on the GPU: the lock-free algorithm of Hong (2008) with global
// relabelling between rounds, on the residual graph with paired reverse arcs (CSR: the residual
// arcs out of v are start[v]..start[v+1], each with its head, its pair and its residual
// capacity). Both phases run here: excess toward the sink (target t, the source kept out),
// then the excess that cannot reach the sink back to the source (target s, the sink kept out).
//
// - global_relabel: exact labels, hops to the target over arcs with room (n where none, and
//   for the terminal kept out), by a BFS backwards from the target in one cooperative launch:
//   each level expands the frontier queue into the next one, a grid barrier between levels,
//   so the work follows the frontier and no level costs a launch or a host round trip. The
//   vertices it labels that hold excess (the active ones) are listed as it goes: the first
//   work list of the pushes (none: the phase is over).
// - push_cycles: Hong's pushes and relabels on work lists, in one cooperative launch: cycle c
//   takes each vertex of list c (each once), which pushes min(excess, room) to its lowest
//   neighbour over arcs with room where that lies lower, else relabels to one above it (n
//   where none), up to DISCHARGE times; every vertex that received a push and every one that
//   keeps excess below label n enters list c + 1 (once: a stamp per vertex). A grid barrier
//   ends each cycle, so no vertex is taken by two threads at once: only a vertex's own thread
//   lowers its excess, lowers the room of its arcs relative to what it read or writes its
//   label, so every push is within what is there, and the atomics make concurrent pushes
//   along an arc and its pair add up (Hong's argument). The work follows the active vertices
//   instead of sweeping all n.
//
// Capacities and excesses are signed 64-bit (the host refuses networks whose capacities sum
// past 2^63 - 1), changed by atomicAdd of two's-complement values.
//
// Host defines: THREADS (both kernels' block size), DISCHARGE, and the control words of both
// launches: ARRIVALS (the barrier's), SIZES (three list sizes in turn), ACTIVE and LEVELS (the
// relabelling's), CYCLES_RUN (the pushes').
#include "thicket.cuh"

#if !defined(THREADS) || !defined(DISCHARGE) || !defined(ARRIVALS) || !defined(SIZES) || \
    !defined(ACTIVE) || !defined(LEVELS) || !defined(CYCLES_RUN)
#error "push_relabel.cu needs the host's defines (THREADS, DISCHARGE, the control words)"
#endif

// The size of BFS level d's frontier, or of cycle d's work list (three words in turn: level d
// reads its own and counts into d + 1's while the lead thread clears d + 2's, which level
// d - 1 read before the barrier that ended it and level d + 1 writes only after the next one).
#define SIZE_AT(d) (SIZES + (d) % 3u)

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
// off from the target keep n. `queues` holds two frontiers of n entries; the active vertices
// go to `active` (n entries). `ctl` is zero at launch and receives their number (ACTIVE) and
// the levels (LEVELS). Arrays written during the launch by other blocks are read through L2
// (__ldcg): L1 is not coherent between blocks. Every thread runs the same levels (the sizes
// are read after the barriers), so every thread meets every barrier.
extern "C" __global__ void __launch_bounds__(THREADS)
    global_relabel(const u32* start, const u32* head, const u32* pair, const i64* cap,
                   const i64* excess, u32* label, u32* queues, u32* active, u32 n, u32 target,
                   u32 other, u64* ctl) {
    const u32 threads = gridDim.x * blockDim.x;
    const u32 id = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 v = id; v < n; v += threads) label[v] = v == target ? 0u : n;
    if (id == 0) {
        queues[0] = target;
        ctl[SIZE_AT(0)] = 1;
    }
    grid_barrier(ctl + ARRIVALS, gridDim.x);
    const u32 lane = threadIdx.x & 31u;
    const u32 warps = threads / 32u;
    const u32 warp = id / 32u;
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
                    ++a;
                }
                append(found, u, to, ctl + SIZE_AT(depth + 1));
                append(found && excess[u] > 0, u, active, ctl + ACTIVE);
            }
        }
        grid_barrier(ctl + ARRIVALS, gridDim.x);
        ++depth;
    }
    if (id == 0) ctl[LEVELS] = depth;
}

// Enters v into the work list `list` (count `*size`) unless its stamp says it is there:
// `tag` is this list's, unique over the solve. Every lane of the warp calls it.
__device__ __forceinline__ void enlist(bool wanted, u32 v, u32* stamp, u32 tag, u32* list,
                                       u64* size) {
    append(wanted && atomicExch(stamp + v, tag) != tag, v, list, size);
}

// Up to `cycles` cycles of pushes and relabels (above) from the work list `lists` (its first
// `first` entries; `lists` holds two lists of n entries), until a list is empty; cycle c's
// list carries the stamp tag + c (no stamp holds one of them at launch). `ctl` is zero at
// launch and receives the cycles run (CYCLES_RUN). Every thread runs the same cycles.
extern "C" __global__ void __launch_bounds__(THREADS)
    push_cycles(const u32* start, const u32* head, const u32* pair, i64* cap, u32* label,
                i64* excess, u32* lists, u32* stamp, u32 first, u32 cycles, u32 tag, u32 n,
                u32 s, u32 t, u64* ctl) {
    const u32 threads = gridDim.x * blockDim.x;
    const u32 id = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 lane = threadIdx.x & 31u;
    const u32 warps = threads / 32u;
    const u32 warp = id / 32u;
    u32 c = 0;
    for (; c < cycles; ++c) {
        const u32 size = c == 0 ? first : (u32)__ldcg(ctl + SIZE_AT(c));
        if (size == 0) break;
        if (id == 0) ctl[SIZE_AT(c + 2)] = 0;
        const u32* from = lists + (u64)(c & 1u) * n;
        u32* to = lists + (u64)((c + 1) & 1u) * n;
        u64* to_size = ctl + SIZE_AT(c + 1);
        const u32 next = tag + c + 1;
        for (u32 base = warp * 32u; base < size; base += warps * 32u) {
            const bool mine = base + lane < size;
            const u32 v = mine ? __ldcg(from + base + lane) : 0u;
            // The same steps in every lane (each appends), a lane idle once v is done.
            bool busy = mine;
            for (u32 step = 0; step < DISCHARGE; ++step) {
                bool pushed = false;
                u32 to_vertex = 0;
                if (busy) {
                    const i64 e = *(volatile i64*)(excess + v);
                    const u32 lv = *(volatile u32*)(label + v);
                    busy = e > 0 && lv < n;
                    if (busy) {
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
                        if (lowest < lv) {
                            const i64 room = *(volatile i64*)(cap + at);
                            const i64 d = e < room ? e : room;
                            to_vertex = head[at];
                            atomic_add_i64(cap + at, -d);
                            atomic_add_i64(cap + pair[at], d);
                            atomic_add_i64(excess + v, -d);
                            atomic_add_i64(excess + to_vertex, d);
                            pushed = to_vertex != s && to_vertex != t;
                        } else {
                            label[v] = lowest + 1 < n ? lowest + 1 : n;
                        }
                    }
                }
                enlist(pushed, to_vertex, stamp, next, to, to_size);
            }
            // v again where it keeps excess below label n.
            const bool again = mine && *(volatile i64*)(excess + v) > 0 &&
                               *(volatile u32*)(label + v) < n;
            enlist(again, v, stamp, next, to, to_size);
        }
        grid_barrier(ctl + ARRIVALS, gridDim.x);
    }
    if (id == 0) ctl[CYCLES_RUN] = c;
}
