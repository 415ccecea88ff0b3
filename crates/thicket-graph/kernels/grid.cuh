// What the graph crate's one-launch searches share (NVRTC receives it as the named header
// "grid.cuh"): how a level's vertices and their arcs are spread over the grid
// (`expand_frontier`, the warp-cooperative expansion of BFS's top-down levels and of shortest
// paths' rounds). The grid-wide barrier between levels or rounds is thicket.cuh's
// `grid_barrier`.
#pragma once

// Lanes per vertex of a level of `count` vertices: the most, a power of two up to `most`, for
// which the grid's threads cover the level twice over (the same in every thread). A small
// level, as a road-like graph's thousands are, then waits for one arc per lane rather than
// for a chain of them.
__device__ __forceinline__ unsigned int group_for(unsigned int count, unsigned int most) {
    const unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
    unsigned int group = 1;
    while (group < most && (unsigned long long)count * group * 2 <= threads) {
        group <<= 1;
    }
    return group;
}

// This warp's index among the grid's, consecutive warps on different SMs (so that a small
// level's few busy warps are spread over the chip).
__device__ __forceinline__ unsigned int spread_warp() {
    return (threadIdx.x >> 5) * gridDim.x + blockIdx.x;
}

// One frontier's arcs spread over the grid, as both one-launch searches expand theirs (BFS's
// top-down levels, shortest paths' rounds): a vertex of GIANT or more arcs by every warp of
// the grid, one of 32 or more by its warp, the others by groups of 1 to MAX_GROUP lanes
// (group_for). `from` holds the frontier's `count` vertices; `giants` lists the `giant_count`
// of them with GIANT or more arcs, which the groups skip. `load(u)` reads what u's arcs need
// of u (its id, its distance) once per vertex; `expand(value, e, last)` takes the lanes' arcs
// e (those below `last`) of the vertex `value` came from. Every lane of the grid calls it,
// and every lane of a warp calls `expand` together (it may vote and shuffle). Inlined with
// its two lambdas, it generates the code the searches had when each wrote these loops out.
template <typename Load, typename Expand>
__device__ __forceinline__ void expand_frontier(const u64* offsets, const unsigned int* from,
                                                unsigned int count, const unsigned int* giants,
                                                unsigned int giant_count, Load load,
                                                Expand expand) {
    const unsigned int full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const unsigned int warps = gridDim.x * (blockDim.x >> 5);
    const unsigned int warp = spread_warp();
    // The giants: their arcs in chunks of 32, dealt out to the grid's warps in turn as if the
    // giants' arcs were one list (giant k's chunk c goes to warp (base_k + c) mod warps, base_k
    // the chunks of the giants before it), so that no warp takes the first chunks of every
    // giant. The warp reads 32 giants at a time, a lane each, rather than one after another.
    u64 dealt = 0;
    for (unsigned int g0 = 0; g0 < giant_count; g0 += 32) {
        decltype(load(0u)) mine = 0;
        u64 my_first = 0;
        u64 my_last = 0;
        if (g0 + lane < giant_count) {
            const unsigned int u = __ldcg(giants + g0 + lane);
            mine = load(u);
            my_first = __ldg(offsets + u);
            my_last = __ldg(offsets + u + 1);
        }
        // Chunks before each giant of the batch: an exclusive scan over the lanes.
        const u64 my_chunks = (my_last - my_first + 31) / 32;
        u64 before = my_chunks;
        for (int offset = 1; offset < 32; offset <<= 1) {
            const u64 other = __shfl_up_sync(full, before, offset);
            if (lane >= offset) before += other;
        }
        const u64 batch_chunks = __shfl_sync(full, before, 31);
        before -= my_chunks;
        const unsigned int batch = giant_count - g0 < 32 ? giant_count - g0 : 32;
        for (unsigned int k = 0; k < batch; ++k) {
            const auto value = __shfl_sync(full, mine, k);
            const u64 first = __shfl_sync(full, my_first, k);
            const u64 last = __shfl_sync(full, my_last, k);
            const u64 base = (dealt + __shfl_sync(full, before, k)) % warps;
            const u64 chunks = (last - first + 31) / 32;
            for (u64 c = (warp + warps - base) % warps; c < chunks; c += warps) {
                expand(value, first + c * 32 + lane, last);
            }
        }
        dealt += batch_chunks;
    }
    // Each vertex by a group of lanes (`sub` this lane's place in it).
    const unsigned int group = group_for(count, MAX_GROUP);
    const unsigned int per_warp = 32 / group;
    const unsigned int sub = lane & (group - 1);
    for (unsigned int chunk = warp * per_warp; chunk < count; chunk += warps * per_warp) {
        const unsigned int i = chunk + lane / group;
        decltype(load(0u)) value = 0;
        u64 begin = 0;
        u64 end = 0;
        if (i < count) {
            const unsigned int u = __ldcg(from + i);
            value = load(u);
            begin = __ldg(offsets + u);
            end = __ldg(offsets + u + 1);
            if (end - begin >= GIANT) {
                begin = end;
            }
        }
        // Vertices of 32 or more arcs: the whole warp over each one's arcs in turn.
        while (true) {
            const unsigned int big = __ballot_sync(full, sub == 0 && end - begin >= 32);
            if (big == 0) {
                break;
            }
            const int leader = __ffs(big) - 1;
            const auto owner = __shfl_sync(full, value, leader);
            const u64 first = __shfl_sync(full, begin, leader);
            const u64 last = __shfl_sync(full, end, leader);
            if (lane / group == leader / group) {
                begin = end;
            }
            for (u64 e = first; e < last; e += 32) {
                expand(owner, e + lane, last);
            }
        }
        // The rest: each group its own vertex, the warp in step over the longest of them.
        for (u64 k = sub; __any_sync(full, begin + k < end); k += group) {
            expand(value, begin + k, end);
        }
    }
}
