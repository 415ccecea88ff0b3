// Breadth-first search on the GPU over a CSR graph (64-bit edge offsets, 32-bit vertex ids).
//
// - thesis_bfs: Solomon 2012, ch. 4, Algorithm 2: one thread per vertex, every vertex launched
//   every level, the edge offsets staged in shared memory (each thread loads one; the block's
//   last thread also loads the end offset its neighbour would have supplied), one `levels`
//   array as visited set, frontier and distance at once, a block OR-reduction and one atomicOr
//   into a flag that the host reads after each level.
// - active_bfs + scan_count / scan_offsets / scan_compact: the thesis's "active vertices"
//   variant (§4.3.1): the level kernel flags the vertices it labels, a scan turns the flags into
//   the next level's list of active vertices, and the next launch has one thread per entry.
// - fast_bfs: thicket's BFS. One cooperative launch runs every level, with a grid barrier
//   between levels (no host round trip per level). Each level is top-down (the frontier queue;
//   a vertex of GIANT or more edges by the whole grid, of 32 or more by its warp, the others
//   by groups of 1 to MAX_GROUP lanes, as many as the grid has threads for: a small frontier,
//   the deep levels of a road-like graph, then waits for one arc per lane instead of a chain
//   of them) or
//   bottom-up (every unvisited vertex looks for a parent among its in-neighbours and stops at
//   the first), chosen as Beamer et al. (SC 2012) do: bottom-up once the frontier's edges pass
//   the unexplored edges / ALPHA (and n / GAMMA: a bottom-up level reads every vertex, too much
//   for the small frontiers at the end of a search, when few edges are left unexplored), back
//   to top-down once the frontier has fewer than n / BETA vertices and is shrinking. Each warp
//   gathers the vertices it finds in shared memory and writes them to the next frontier
//   WARP_BUFFER at a time, with one atomic.
//
// Host defines: THESIS_THREADS, SCAN_THREADS, SCAN_TILE, FAST_THREADS, ALPHA, BETA, GAMMA,
// GIANT, MAX_GROUP, WARP_BUFFER and the counters' layout SIZE_BASE, EDGES_BASE, GIANT_BASE,
// ARRIVALS.
#include "thicket.cuh"
#include "grid.cuh"

#if !defined(THESIS_THREADS) || !defined(SCAN_TILE) || !defined(BETA) || !defined(ARRIVALS) || \
    !defined(GAMMA) || !defined(WARP_BUFFER) || !defined(FAST_THREADS)
#error "bfs.cu needs the host's defines (THESIS_THREADS, SCAN_*, ALPHA, BETA, the counters)"
#endif

#define UNVISITED 0xffffffffu

// Every entry of `values` set to `value` (the host's initial levels and parents).
extern "C" __global__ void fill_u32(u32* values, u64 count, u32 value) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < count;
         i += (u64)gridDim.x * blockDim.x) {
        values[i] = value;
    }
}

// A search's summary, so that only four words come back per source: totals[0] the vertices
// reached, [1] the sum of their levels, [2] the largest level, [3] the arcs out of them (the
// edges the search traversed). `totals` is zero before the launch; integer sums, so the order
// of the atomics does not change the result.
extern "C" __global__ void summarise_levels(const u32* levels, const u64* offsets, u32 n,
                                            u64* totals) {
    u64 reached = 0, sum = 0, arcs = 0;
    u32 deepest = 0;
    for (u64 v = blockIdx.x * (u64)blockDim.x + threadIdx.x; v < n;
         v += (u64)gridDim.x * blockDim.x) {
        u32 level = levels[v];
        if (level != UNVISITED) {
            reached += 1;
            sum += level;
            deepest = max(deepest, level);
            arcs += offsets[v + 1] - offsets[v];
        }
    }
    add_per_warp(&totals[0], reached);
    add_per_warp(&totals[1], sum);
    add_per_warp(&totals[3], arcs);
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        deepest = max(deepest, __shfl_down_sync(FULL_MASK, deepest, offset));
    }
    if ((threadIdx.x & 31u) == 0 && deepest != 0) {
        atomicMax(&totals[2], (u64)deepest);
    }
}

// ---------------------------------------------------------------------------------------------
// The thesis's kernel.

extern "C" __global__ void __launch_bounds__(THESIS_THREADS)
    thesis_bfs(const u64* offsets, const u32* targets, u32* levels, u32* parents, u32 n,
               u32 level, u32* labelled_any) {
    __shared__ u64 edge_offsets[THESIS_THREADS + 1];
    __shared__ u32 labelled[THESIS_THREADS];
    const u32 t = threadIdx.x;
    const u32 u = blockIdx.x * THESIS_THREADS + t;
    if (u < n) {
        edge_offsets[t] = offsets[u];
        if (t == THESIS_THREADS - 1 || u == n - 1) {
            edge_offsets[t + 1] = offsets[u + 1];
        }
    }
    labelled[t] = 0;
    __syncthreads();
    if (u < n && levels[u] == level - 1) {
        for (u64 e = edge_offsets[t]; e < edge_offsets[t + 1]; ++e) {
            const u32 v = targets[e];
            // Every writer of v in this level stores the same level, and each its own vertex
            // of the level above as the parent: any of them is a correct one.
            if (levels[v] == UNVISITED) {
                levels[v] = level;
                parents[v] = u;
                labelled[t] = 1;
            }
        }
    }
    __syncthreads();
    for (u32 s = THESIS_THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            labelled[t] |= labelled[t + s];
        }
        __syncthreads();
    }
    if (t == 0 && labelled[0] != 0) {
        atomicOr(labelled_any, 1u);
    }
}

// ---------------------------------------------------------------------------------------------
// The thesis's active-vertices variant: the level kernel and a three-kernel scan (count per
// tile, offsets of the tiles, compaction) that lists the flagged vertices in increasing order.

extern "C" __global__ void __launch_bounds__(THESIS_THREADS)
    active_bfs(const u64* offsets, const u32* targets, u32* levels, u32* parents,
               const u32* active, u32 count, u32 level, u32* flags) {
    const u32 i = blockIdx.x * THESIS_THREADS + threadIdx.x;
    if (i >= count) {
        return;
    }
    const u32 u = active[i];
    for (u64 e = offsets[u]; e < offsets[u + 1]; ++e) {
        const u32 v = targets[e];
        if (levels[v] == UNVISITED) {
            levels[v] = level;
            parents[v] = u;
            flags[v] = 1;
        }
    }
}

// The sum of `value` over the block (SCAN_THREADS threads), in every thread.
__device__ u32 block_total(u32 value) {
    __shared__ u32 warp_totals[SCAN_THREADS / 32];
    __shared__ u32 total;
    for (int offset = 16; offset > 0; offset >>= 1) {
        value += __shfl_down_sync(FULL_MASK, value, offset);
    }
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) {
        warp_totals[warp] = value;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 sum = 0;
        for (int w = 0; w < SCAN_THREADS / 32; ++w) {
            sum += warp_totals[w];
        }
        total = sum;
    }
    __syncthreads();
    const u32 result = total;
    __syncthreads();
    return result;
}

// The number of a 0/1 `flag` set below this thread in the block, and the block's total.
__device__ u32 block_exclusive(bool flag, u32* total) {
    __shared__ u32 warp_counts[SCAN_THREADS / 32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const u32 ballot = __ballot_sync(FULL_MASK, flag);
    if (lane == 0) {
        warp_counts[warp] = __popc(ballot);
    }
    __syncthreads();
    u32 before = 0;
    u32 sum = 0;
    for (int w = 0; w < SCAN_THREADS / 32; ++w) {
        const u32 c = warp_counts[w];
        before += w < warp ? c : 0;
        sum += c;
    }
    __syncthreads();
    *total = sum;
    return before + __popc(ballot & ((1u << lane) - 1u));
}

// Flags set in each tile of SCAN_TILE flags.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    scan_count(const u32* flags, u32 n, u32* tile_counts) {
    const u64 start = (u64)blockIdx.x * SCAN_TILE;
    u32 count = 0;
    for (u32 k = threadIdx.x; k < SCAN_TILE; k += SCAN_THREADS) {
        const u64 i = start + k;
        count += i < n && flags[i] != 0 ? 1 : 0;
    }
    count = block_total(count);
    if (threadIdx.x == 0) {
        tile_counts[blockIdx.x] = count;
    }
}

// The tiles' counts into their exclusive prefix sums, in one block; the sum to *total.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    scan_offsets(u32* tile_counts, u32 tiles, u32* total) {
    u32 carry = 0;
    for (u32 base = 0; base < tiles; base += SCAN_THREADS) {
        const u32 i = base + threadIdx.x;
        const u32 count = i < tiles ? tile_counts[i] : 0;
        // An inclusive scan of the chunk: warps by shuffle, then the warps' totals.
        u32 value = count;
        const int lane = threadIdx.x & 31;
        for (int offset = 1; offset < 32; offset <<= 1) {
            const u32 other = __shfl_up_sync(FULL_MASK, value, offset);
            value += lane >= offset ? other : 0;
        }
        __shared__ u32 warp_sums[SCAN_THREADS / 32];
        if (lane == 31) {
            warp_sums[threadIdx.x >> 5] = value;
        }
        __syncthreads();
        u32 before = 0;
        u32 chunk = 0;
        for (int w = 0; w < SCAN_THREADS / 32; ++w) {
            before += w < (int)(threadIdx.x >> 5) ? warp_sums[w] : 0;
            chunk += warp_sums[w];
        }
        if (i < tiles) {
            tile_counts[i] = carry + before + value - count;
        }
        carry += chunk;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *total = carry;
    }
}

// The flagged vertices of each tile, in order, from the tile's offset on; the flags cleared.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    scan_compact(u32* flags, u32 n, const u32* tile_offsets, u32* list) {
    const u64 start = (u64)blockIdx.x * SCAN_TILE;
    u32 next = tile_offsets[blockIdx.x];
    for (u32 k = 0; k < SCAN_TILE; k += SCAN_THREADS) {
        const u64 i = start + k + threadIdx.x;
        const bool flagged = i < n && flags[i] != 0;
        u32 chunk;
        const u32 position = block_exclusive(flagged, &chunk);
        if (flagged) {
            list[next + position] = (u32)i;
            flags[i] = 0;
        }
        next += chunk;
    }
}

// ---------------------------------------------------------------------------------------------
// thicket's BFS: one cooperative launch for the whole search.

// The counters fast_bfs keeps in global memory (u64 words, laid out by the host's defines):
// per level, rotating by three, the frontier's size, the sum of its vertices' out-degrees and
// its giants; then the barrier's arrivals.
#define SIZE_AT(level) (SIZE_BASE + (level) % 3)
#define EDGES_AT(level) (EDGES_BASE + (level) % 3)
#define GIANTS_AT(level) (GIANT_BASE + (level) % 3)

// A warp's discoveries of the current level, gathered in shared memory and written to the
// next frontier WARP_BUFFER at a time with one atomic: a level that finds millions of
// vertices would otherwise serialize hundreds of thousands of atomics on one counter.
struct Found {
    u32* buffer;  // this warp's WARP_BUFFER entries of shared memory
    u32 fill;     // entries in it (the same in every lane)
    u64 edges;    // this lane's sum of the out-degrees of the vertices it found
};

// The buffered discoveries to the queue of `level` (one atomic for the warp). Every lane
// calls it.
__device__ void flush(Found& found, u32* queue, u64* counters, u32 level) {
    if (found.fill == 0) {
        return;
    }
    const int lane = threadIdx.x & 31;
    __syncwarp();
    u64 base = 0;
    if (lane == 0) {
        base = atomicAdd(counters + SIZE_AT(level), (u64)found.fill);
    }
    base = __shfl_sync(FULL_MASK, base, 0);
    for (u32 i = lane; i < found.fill; i += 32) {
        queue[base + i] = found.buffer[i];
    }
    __syncwarp();
    found.fill = 0;
}

// The end of a level for this warp: what is buffered to the queue, the out-degrees to the
// level's edge count (one atomic per warp that found anything). Every lane calls it.
__device__ void finish_level(Found& found, u32* queue, u64* counters, u32 level) {
    flush(found, queue, counters, level);
    add_per_warp(counters + EDGES_AT(level), found.edges);
    found.edges = 0;
}

// Appends the lanes' discoveries (`is_new`, vertex v of out-degree `degree`) to the warp's
// buffer; a vertex of GIANT or more edges also to the giants, whose edges the whole grid
// expands. Every lane calls it.
__device__ __forceinline__ void append(bool is_new, u32 v, u32 degree, Found& found, u32* queue,
                                       u32* giants, u64* counters, u32 level) {
    const int lane = threadIdx.x & 31;
    const u32 mask = __ballot_sync(FULL_MASK, is_new);
    if (mask == 0) {
        return;
    }
    if (is_new) {
        found.buffer[found.fill + __popc(mask & ((1u << lane) - 1u))] = v;
        found.edges += degree;
        if (degree >= GIANT) {
            giants[atomicAdd(counters + GIANTS_AT(level), 1ull)] = v;
        }
    }
    found.fill += __popc(mask);
    if (found.fill > WARP_BUFFER - 32) {
        flush(found, queue, counters, level);
    }
}

// Claims v for `level` from parent u: true for the one claim that labels it.
__device__ __forceinline__ bool claim(u32* levels, u32* parents, u32 u, u32 v, u32 level) {
    if (__ldcg(levels + v) != UNVISITED) {
        return false;
    }
    if (atomicCAS(levels + v, UNVISITED, level) != UNVISITED) {
        return false;
    }
    parents[v] = u;
    return true;
}

// The lanes' arcs u -> targets[e] (e < last) claimed for `level` and appended.
__device__ __forceinline__ void visit(const u64* offsets, const u32* targets, u32* levels,
                                      u32* parents, u32 u, u64 e, u64 last, Found& found,
                                      u32* to, u32* giants_to, u64* counters, u32 level) {
    bool is_new = false;
    u32 v = 0;
    if (e < last) {
        v = __ldg(targets + e);
        is_new = claim(levels, parents, u, v, level);
    }
    const u32 degree = is_new ? (u32)(__ldg(offsets + v + 1) - __ldg(offsets + v)) : 0;
    append(is_new, v, degree, found, to, giants_to, counters, level);
}

// One top-down level: the frontier `from` (size `count`, its giants `giants`, `giant_count`)
// into `to` and `giants_to`.
__device__ void top_down(const u64* offsets, const u32* targets, u32* levels, u32* parents,
                         const u32* from, u32 count, const u32* giants, u32 giant_count,
                         Found& found, u32* to, u32* giants_to, u64* counters, u32 level) {
    expand_frontier(
        offsets, from, count, giants, giant_count, [](u32 u) { return u; },
        [&](u32 u, u64 e, u64 last) {
            visit(offsets, targets, levels, parents, u, e, last, found, to, giants_to, counters,
                  level);
        });
}

// One bottom-up level: every unvisited vertex looks among its in-neighbours for one of the
// level above; the vertices found go to `to` as well (the size decides the next direction).
__device__ void bottom_up(const u64* out_offsets, const u64* in_offsets, const u32* sources,
                          u32* levels, u32* parents, u32 n, Found& found, u32* to,
                          u32* giants_to, u64* counters, u32 level) {
    const int lane = threadIdx.x & 31;
    const u32 warps = gridDim.x * (blockDim.x >> 5);
    const u32 warp = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    for (u64 chunk = (u64)warp * 32; chunk < n; chunk += (u64)warps * 32) {
        const u64 v = chunk + lane;
        bool is_new = false;
        if (v < n && __ldcg(levels + v) == UNVISITED) {
            const u64 end = __ldg(in_offsets + v + 1);
            for (u64 e = __ldg(in_offsets + v); e < end; ++e) {
                const u32 u = __ldg(sources + e);
                if (__ldcg(levels + u) == level - 1) {
                    levels[v] = level;
                    parents[v] = u;
                    is_new = true;
                    break;
                }
            }
        }
        const u32 degree =
            is_new ? (u32)(__ldg(out_offsets + v + 1) - __ldg(out_offsets + v)) : 0;
        append(is_new, (u32)v, degree, found, to, giants_to, counters, level);
    }
}

// The whole search from the source, whose level, queue entry (and giant entry) and counters
// the host has set (level 0, frontier size 1, its out-degree). `queues` holds two frontiers of
// n entries, `giants` two lists of `giant_room`. `depth` receives the number of levels and the
// levels searched bottom-up.
extern "C" __global__ void __launch_bounds__(FAST_THREADS)
    fast_bfs(const u64* out_offsets, const u32* targets, const u64* in_offsets,
             const u32* sources, u32* levels, u32* parents, u32* queues, u32* giants,
             u32 giant_room, u64* counters, u32 n, u64 arcs, u32* depth) {
    __shared__ u32 buffers[FAST_THREADS / 32][WARP_BUFFER];
    Found found = {buffers[threadIdx.x >> 5], 0, 0};
    const u32 blocks = gridDim.x;
    u64 unexplored = arcs;
    bool bottom = false;
    u64 previous_size = 0;
    u32 level = 1;
    u32 bottoms = 0;
    while (true) {
        const u64 size = __ldcg(counters + SIZE_AT(level - 1));
        const u64 edges = __ldcg(counters + EDGES_AT(level - 1));
        if (size == 0) {
            break;
        }
        unexplored -= min(unexplored, edges);
        // Beamer's switch, the same in every thread (the same values after the barrier); a
        // bottom-up level reads every vertex, so a frontier of fewer than n / GAMMA edges
        // stays top-down however few edges are left unexplored.
        if (!bottom) {
            bottom = in_offsets != nullptr && edges > unexplored / ALPHA && edges >= n / GAMMA;
        } else {
            bottom = !(size < n / BETA && size < previous_size);
        }
        previous_size = size;
        const u32 giant_count = (u32)__ldcg(counters + GIANTS_AT(level - 1));
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            // Level + 1's counters, last read before the barrier that ended level - 1.
            counters[SIZE_AT(level + 1)] = 0;
            counters[EDGES_AT(level + 1)] = 0;
            counters[GIANTS_AT(level + 1)] = 0;
        }
        u32* to = queues + (u64)(level & 1) * n;
        u32* giants_to = giants + (u64)(level & 1) * giant_room;
        if (bottom) {
            ++bottoms;
            bottom_up(out_offsets, in_offsets, sources, levels, parents, n, found, to,
                      giants_to, counters, level);
        } else {
            const u32* from = queues + (u64)((level - 1) & 1) * n;
            const u32* giants_from = giants + (u64)((level - 1) & 1) * giant_room;
            top_down(out_offsets, targets, levels, parents, from, (u32)size, giants_from,
                     giant_count, found, to, giants_to, counters, level);
        }
        finish_level(found, to, counters, level);
        grid_barrier(counters + ARRIVALS, blocks);
        ++level;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        depth[0] = level - 1;
        depth[1] = bottoms;
    }
}
