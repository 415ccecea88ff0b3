// Push-relabel maximum flow on the GPU: the lock-free algorithm of Hong (2008) with global
// relabelling between rounds, on the residual graph with paired reverse arcs (CSR: the residual
// arcs out of v are start[v]..start[v+1], each with its head, its pair and its residual
// capacity).
//
// - pr_round: every thread takes vertices by grid stride, CYCLES times: an active vertex
//   (excess > 0, label below n, neither terminal) finds its lowest neighbour over arcs with
//   room; if it lies lower it pushes min(excess, room) there, else it relabels to one above it
//   (n where none). Only a vertex's own thread lowers its excess, lowers the room of its arcs
//   relative to what it read or writes its label, so every push is within what is there; the
//   atomics make concurrent pushes along an arc and its pair add up (Hong's argument).
// - gr_init, gr_level: global relabelling, a level-synchronous BFS from the sink backwards over
//   arcs with room (labelled[d] set where level d labels a vertex, so that the host launches
//   several levels per read); unreached vertices keep label n (cut off from the sink).
// - pr_active: counts the active vertices (the host stops at none).
//
// Capacities and excesses are signed 64-bit (the host refuses networks whose capacities sum
// past 2^63 - 1), changed by atomicAdd of two's-complement values.
//
// Host defines: THREADS, CYCLES.
#include "thicket.cuh"

#if !defined(THREADS) || !defined(CYCLES)
#error "push_relabel.cu needs the host's defines (THREADS, CYCLES)"
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

extern "C" __global__ void gr_init(u32* label, u32 n, u32 t) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) label[v] = v == t ? 0u : n;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    gr_level(const u32* start, const u32* head, const u32* pair, const i64* cap, u32* label,
             u32 n, u32 depth, u32 s, u32* labelled) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || label[v] != depth) return;
    for (u32 a = start[v]; a < start[v + 1]; ++a) {
        const u32 u = head[a];
        if (u != s && label[u] == n && cap[pair[a]] > 0) {
            label[u] = depth + 1;  // every writer writes the same value
            labelled[depth] = 1;
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    pr_active(const u32* label, const i64* excess, u32 n, u32 s, u32 t, u32* count) {
    const u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = v < n && v != s && v != t && excess[v] > 0 && label[v] < n;
    const u32 warp = __ballot_sync(0xffffffffu, active);
    if ((threadIdx.x & 31u) == 0 && warp != 0) atomicAdd(count, __popc(warp));
}
