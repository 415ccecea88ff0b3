// The asymmetric travelling salesman problem by the thesis's depth-first branch-and-bound
// (Carneiro 2017, sec. 3.1) on the GPU: a node is a path from city 0, its cost and the bitset
// of the cities it visits; a child is pruned when its partial cost reaches the incumbent.
//
// A node (ANODE_WORDS words): the path as bytes (words 0..7, city k at byte k), its cost
// (word 8) and its visited bitset (word 9). All nodes of a launch have the same path length.
//
// The incumbent (the cost a node must stay below) is shared per block in shared memory and
// globally through atomicMin on `inc->best_cost`; every thread refreshes its block's copy from
// the global one every REFRESH_STEPS steps. A thread that improves the global cost writes its
// tour to a fresh slot of `tours` and publishes (cost << 32 | slot) with atomicMin on
// `inc->best_key`, so after the launch the key names the slot holding the best tour.
//
// Nodes counted: every child generated (partial cost below the incumbent) whose partial cost
// is also below `count_below`; with the incumbent started above the optimum and `count_below`
// set to the optimum, this is the thesis's deterministic "critical subtree".

#include "thicket.cuh"

// Defined by the host (thicket-atsp src/kernels.rs), which lays out nodes and tours alike.
#if !defined(ANODE_WORDS) || !defined(MAX_CITIES) || !defined(TOUR_SLOTS)
#error "atsp.cu needs ANODE_WORDS, MAX_CITIES and TOUR_SLOTS from the host"
#endif
#define REFRESH_STEPS 1024

struct Incumbent {
    int best_cost;
    unsigned overflow;
    u64 best_key;
    u64 improvements;
    u64 nodes;
};

struct AtspDfs {
    unsigned char path[MAX_CITIES];
    unsigned cand[MAX_CITIES];  // per path length: untried next cities
    int partial[MAX_CITIES];    // per path length: the path's cost
    unsigned visited;
    int len;                    // cities on the path
    int base;                   // the root's path length
};

__device__ __forceinline__ unsigned atsp_all(int n) {
    return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

// Reads the root `node` into `s`.
__device__ __forceinline__ void atsp_load(const unsigned* node, int len, int n, AtspDfs& s) {
    const unsigned char* bytes = (const unsigned char*)node;
    for (int k = 0; k < len; ++k) {
        s.path[k] = bytes[k];
    }
    s.len = len;
    s.base = len;
    s.visited = node[9];
    s.partial[len - 1] = (int)node[8];
    s.cand[len - 1] = ~s.visited & atsp_all(n);
}

// Publishes a complete tour: the path and then `last`, of cost `cost`, below the incumbent.
__device__ void atsp_record(const AtspDfs& s, int last, int cost, int n, Incumbent* inc,
                            unsigned char* tours, int* block_best) {
    atomicMin(block_best, cost);
    int previous = atomicMin(&inc->best_cost, cost);
    if (cost >= previous) {
        return;
    }
    u64 slot = atomicAdd(&inc->improvements, 1ull);
    if (slot >= TOUR_SLOTS) {
        atomicOr(&inc->overflow, 1u);
        return;
    }
    unsigned char* tour = tours + slot * MAX_CITIES;
    for (int k = 0; k < n - 1; ++k) {
        tour[k] = s.path[k];
    }
    tour[n - 1] = (unsigned char)last;
    __threadfence();
    atomicMin(&inc->best_key, ((u64)(unsigned)cost << 32) | slot);
}

// One step: tries the next untried city after the path (a pruned city costs a step too),
// descends into it, records it as a tour, or backtracks. `to` is the path length at which the
// search stops descending: n for a full search (complete tours are recorded), less when
// expanding, where paths of length `to` are appended to `out`. Returns false when the root's
// subtree is finished.
__device__ __forceinline__ bool atsp_step(const int* cost, int n, int to, AtspDfs& s,
                                          int threshold, int count_below, Incumbent* inc,
                                          unsigned char* tours, int* block_best,
                                          unsigned* out, u64* written, u64 capacity,
                                          u64& nodes) {
    int depth = s.len - 1;
    unsigned cand = s.cand[depth];
    if (cand == 0) {
        if (s.len == s.base) {
            return false;
        }
        s.len -= 1;
        s.visited ^= 1u << s.path[s.len];
        return true;
    }
    unsigned bit = cand & (0u - cand);
    s.cand[depth] = cand ^ bit;
    int city = __ffs(bit) - 1;
    int last = s.path[depth];
    int partial = s.partial[depth] + cost[last * n + city];
    if (partial >= threshold) {
        return true;
    }
    if (partial < count_below) {
        nodes += 1;
    }
    if (s.len + 1 == n) {
        int tour = partial + cost[city * n];
        if (tour < threshold) {
            atsp_record(s, city, tour, n, inc, tours, block_best);
        }
        return true;
    }
    if (s.len + 1 == to) {
        u64 slot = atomicAdd(written, 1ull);
        if (slot >= capacity) {
            atomicOr(&inc->overflow, 2u);
            return true;
        }
        unsigned* node = out + slot * ANODE_WORDS;
        unsigned char* bytes = (unsigned char*)node;
        for (int k = 0; k < s.len; ++k) {
            bytes[k] = s.path[k];
        }
        bytes[s.len] = (unsigned char)city;
        for (int k = s.len + 1; k < MAX_CITIES; ++k) {
            bytes[k] = 0;
        }
        node[8] = (unsigned)partial;
        node[9] = s.visited | bit;
        return true;
    }
    s.path[s.len] = (unsigned char)city;
    s.visited |= bit;
    s.partial[s.len] = partial;
    s.cand[s.len] = ~s.visited & atsp_all(n);
    s.len += 1;
    return true;
}

// The block's incumbent, initialised from the global one. Every thread of the block must call
// it.
__device__ __forceinline__ void atsp_block_start(int* block_best, const Incumbent* inc) {
    if (threadIdx.x == 0) {
        *block_best = *(volatile const int*)&inc->best_cost;
    }
    __syncthreads();
}

// The cost a node must stay below: the thread's, the block's and, every REFRESH_STEPS steps,
// the global incumbent's.
__device__ __forceinline__ int atsp_threshold(int* block_best, const Incumbent* inc,
                                              unsigned& steps) {
    steps += 1;
    if ((steps & (REFRESH_STEPS - 1)) == 0) {
        atomicMin(block_best, *(volatile const int*)&inc->best_cost);
    }
    return *(volatile int*)block_best;
}

// Copies the cost matrix into shared memory. Every thread of the block must call it.
__device__ __forceinline__ void atsp_load_costs(int* shared_cost, const int* cost, int n) {
    for (int k = threadIdx.x; k < n * n; k += blockDim.x) {
        shared_cost[k] = cost[k];
    }
    __syncthreads();
}

// Searches (or expands to path length `to`) below root `index` of `roots` (path length
// `len`).
__device__ void atsp_search_root(const unsigned* roots, u64 index, int len, const int* cost,
                                 int n, int to, int count_below, Incumbent* inc,
                                 unsigned char* tours, int* block_best, unsigned* out,
                                 u64* written, u64 capacity, u64& nodes) {
    AtspDfs s;
    atsp_load(roots + index * ANODE_WORDS, len, n, s);
    unsigned steps = 0;
    for (;;) {
        int threshold = atsp_threshold(block_best, inc, steps);
        if (!atsp_step(cost, n, to, s, threshold, count_below, inc, tours, block_best, out,
                       written, capacity, nodes)) {
            break;
        }
    }
}

// BP-DFS for the ATSP: one thread per root, each searching to complete tours. Dynamic shared
// memory: n * n ints (the cost matrix).
extern "C" __global__ void atsp_bp_dfs(const unsigned* roots, u64 count, int len,
                                       const int* cost, int n, int count_below, Incumbent* inc,
                                       unsigned char* tours) {
    extern __shared__ int atsp_cost[];
    __shared__ int block_best;
    atsp_load_costs(atsp_cost, cost, n);
    atsp_block_start(&block_best, inc);
    u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 nodes = 0;
    if (index < count) {
        atsp_search_root(roots, index, len, atsp_cost, n, n, count_below, inc, tours,
                         &block_best, 0, 0, 0, nodes);
    }
    add_per_warp(&inc->nodes, nodes);
}

// BP-DFS with a pool for the ATSP: persistent threads take roots from `*next_root`; the fetch
// and the DFS step share one loop.
extern "C" __global__ void atsp_pool(const unsigned* roots, u64 count, int len, const int* cost,
                                     int n, int count_below, Incumbent* inc,
                                     unsigned char* tours, u64* next_root) {
    extern __shared__ int atsp_cost[];
    __shared__ int block_best;
    atsp_load_costs(atsp_cost, cost, n);
    atsp_block_start(&block_best, inc);
    u64 nodes = 0;
    unsigned steps = 0;
    AtspDfs s;
    bool busy = false;
    for (;;) {
        if (!busy) {
            u64 index = atomicAdd(next_root, 1ull);
            if (index >= count) {
                break;
            }
            atsp_load(roots + index * ANODE_WORDS, len, n, s);
            busy = true;
            continue;
        }
        int threshold = atsp_threshold(&block_best, inc, steps);
        busy = atsp_step(atsp_cost, n, n, s, threshold, count_below, inc, tours, &block_best,
                         0, 0, 0, nodes);
    }
    add_per_warp(&inc->nodes, nodes);
}

// The first kernel of REC-CDP and each doubling step of REC-DP3 for the ATSP: one thread per
// root expands it to path length `to` (< n), appending the survivors to `out` through the
// global counter `*written`.
extern "C" __global__ void atsp_expand(const unsigned* roots, u64 count, int len,
                                       const int* cost, int n, int to, int count_below,
                                       Incumbent* inc, unsigned char* tours, unsigned* out,
                                       u64* written, u64 capacity) {
    extern __shared__ int atsp_cost[];
    __shared__ int block_best;
    atsp_load_costs(atsp_cost, cost, n);
    atsp_block_start(&block_best, inc);
    u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 nodes = 0;
    if (index < count) {
        atsp_search_root(roots, index, len, atsp_cost, n, to, count_below, inc, tours,
                         &block_best, out, written, capacity, nodes);
    }
    add_per_warp(&inc->nodes, nodes);
}
