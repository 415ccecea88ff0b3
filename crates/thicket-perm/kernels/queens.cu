// N-Queens as a permutation (Carneiro 2017, sec. 3.1), searched on the GPU.
//
// A node at depth r has queens on rows 0..r-1. Its children are the columns of row r attacked
// by no queen: the thesis checks the column bitset and scans the board for diagonals (O(N));
// here the diagonals are bitsets too, which accepts exactly the same columns, so the same
// nodes are generated and counted. Node counts follow the thesis's Table 1: every feasible
// node generated below the roots, complete boards included.
//
// A root (QROOT_WORDS words): the used columns; the used "/" diagonals (bit row + col, 64
// bits, two words); the used "\" diagonals (bit col - row + n - 1, two words). All roots of a
// launch have the same depth `row`.
//
// The DFS keeps the board in registers and, per level, the row's untried columns in a stack in
// shared memory (one word per level and thread, strided by the block size). The column taken
// is always the lowest untried one, so it is the lowest bit of the saved word: popping
// recovers it and the board is restored by XOR.

#include "thicket.cuh"

// Defined by the host (thicket-perm src/kernels.rs).
#ifndef QROOT_WORDS
#error "queens.cu (thicket-perm) needs QROOT_WORDS from the host"
#endif

struct QueensDfs {
    unsigned cols;
    u64 d1;
    u64 d2;
    unsigned avail;  // untried columns of row r
    int r;           // depth of the node whose children are being tried
    int top;         // stack levels in use
};

__device__ __forceinline__ unsigned queens_free(int n, unsigned mask, int r, unsigned cols,
                                                u64 d1, u64 d2) {
    return ~(cols | (unsigned)(d1 >> r) | (unsigned)(d2 >> (n - 1 - r))) & mask;
}

__device__ __forceinline__ unsigned queens_mask(int n) {
    return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

__device__ __forceinline__ void queens_load(const unsigned* root, QueensDfs& s) {
    s.cols = root[0];
    s.d1 = (u64)root[1] | ((u64)root[2] << 32);
    s.d2 = (u64)root[3] | ((u64)root[4] << 32);
}

__device__ __forceinline__ void queens_store(unsigned* out, unsigned cols, u64 d1, u64 d2) {
    out[0] = cols;
    out[1] = (unsigned)d1;
    out[2] = (unsigned)(d1 >> 32);
    out[3] = (unsigned)d2;
    out[4] = (unsigned)(d2 >> 32);
}

// Starts the search below the loaded root at depth `row` (< n): counts its children. Returns
// whether there is more to search (false when the children are leaves or there are none).
__device__ __forceinline__ bool queens_start(int n, unsigned mask, int row, QueensDfs& s,
                                             u64& nodes, u64& solutions) {
    s.r = row;
    s.top = 0;
    s.avail = queens_free(n, mask, row, s.cols, s.d1, s.d2);
    unsigned children = __popc(s.avail);
    nodes += children;
    if (row + 1 == n) {
        solutions += children;
        return false;
    }
    return s.avail != 0;
}

// One step of the DFS: takes the next child of the current node (counting the child's own
// children, which are solutions on the last row and are not descended into) or backtracks.
// Returns false when the root's subtree is finished.
__device__ __forceinline__ bool queens_step(int n, unsigned mask, QueensDfs& s, unsigned* stack,
                                            int stride, u64& nodes, u64& solutions) {
    if (s.avail != 0) {
        unsigned bit = s.avail & (0u - s.avail);
        int col = __ffs(bit) - 1;
        unsigned cols = s.cols | bit;
        u64 d1 = s.d1 | (1ull << (s.r + col));
        u64 d2 = s.d2 | (1ull << (col + n - 1 - s.r));
        unsigned next = queens_free(n, mask, s.r + 1, cols, d1, d2);
        unsigned grandchildren = __popc(next);
        nodes += grandchildren;
        if (s.r + 2 == n) {
            solutions += grandchildren;
            s.avail ^= bit;
        } else if (next != 0) {
            stack[s.top * stride] = s.avail;
            s.top += 1;
            s.cols = cols;
            s.d1 = d1;
            s.d2 = d2;
            s.r += 1;
            s.avail = next;
        } else {
            s.avail ^= bit;
        }
        return true;
    }
    if (s.top == 0) {
        return false;
    }
    s.top -= 1;
    unsigned saved = stack[s.top * stride];
    unsigned bit = saved & (0u - saved);
    int col = __ffs(bit) - 1;
    s.r -= 1;
    s.cols ^= bit;
    s.d1 ^= 1ull << (s.r + col);
    s.d2 ^= 1ull << (col + n - 1 - s.r);
    s.avail = saved ^ bit;
    return true;
}

// Nodes and solutions strictly below root `index` (depth `row` < n).
__device__ __forceinline__ void queens_search_root(const unsigned* roots, u64 index, int n,
                                                   int row, unsigned* stack, int stride,
                                                   u64& nodes, u64& solutions) {
    unsigned mask = queens_mask(n);
    QueensDfs s;
    queens_load(roots + index * QROOT_WORDS, s);
    if (queens_start(n, mask, row, s, nodes, solutions)) {
        while (queens_step(n, mask, s, stack, stride, nodes, solutions)) {
        }
    }
}

// BP-DFS: one thread per root, each searching to depth n. totals[0] += nodes, totals[1] +=
// solutions. Dynamic shared memory: (n - row - 2) words per thread (at least one).
extern "C" __global__ void queens_bp_dfs(const unsigned* roots, u64 count, int n, int row,
                                         u64* totals) {
    extern __shared__ unsigned queens_stack[];
    u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 nodes = 0, solutions = 0;
    if (index < count) {
        queens_search_root(roots, index, n, row, queens_stack + threadIdx.x, blockDim.x, nodes,
                           solutions);
    }
    add_per_warp(&totals[0], nodes);
    add_per_warp(&totals[1], solutions);
}

// BP-DFS with a pool: persistent threads take roots from `*next_root` one at a time. The
// fetch and the DFS step share one loop, so a lane that finishes a root takes the next one
// while the rest of its warp is still searching.
extern "C" __global__ void queens_pool(const unsigned* roots, u64 count, int n, int row,
                                       u64* next_root, u64* totals) {
    extern __shared__ unsigned queens_stack[];
    unsigned* stack = queens_stack + threadIdx.x;
    unsigned mask = queens_mask(n);
    u64 nodes = 0, solutions = 0;
    QueensDfs s;
    bool busy = false;
    for (;;) {
        if (!busy) {
            u64 index = atomicAdd(next_root, 1ull);
            if (index >= count) {
                break;
            }
            queens_load(roots + index * QROOT_WORDS, s);
            busy = queens_start(n, mask, row, s, nodes, solutions);
            continue;
        }
        busy = queens_step(n, mask, s, stack, blockDim.x, nodes, solutions);
    }
    add_per_warp(&totals[0], nodes);
    add_per_warp(&totals[1], solutions);
}

// Expands root `index` (depth `row`) down to depth `to` (row < to < n): counts the nodes
// generated at depths row+1..to and appends those at depth `to` to `out` through the counter
// `*written` (global or shared memory); a node that does not fit in `capacity` sets
// `*overflow` instead.
__device__ void queens_expand_root(const unsigned* roots, u64 index, int n, int row, int to,
                                   unsigned* stack, int stride, unsigned* out, u64* written,
                                   u64 capacity, unsigned* overflow, u64& nodes) {
    unsigned mask = queens_mask(n);
    QueensDfs s;
    queens_load(roots + index * QROOT_WORDS, s);
    s.r = row;
    s.top = 0;
    s.avail = queens_free(n, mask, row, s.cols, s.d1, s.d2);
    for (;;) {
        if (s.avail != 0) {
            unsigned bit = s.avail & (0u - s.avail);
            int col = __ffs(bit) - 1;
            s.avail ^= bit;
            unsigned cols = s.cols | bit;
            u64 d1 = s.d1 | (1ull << (s.r + col));
            u64 d2 = s.d2 | (1ull << (col + n - 1 - s.r));
            nodes += 1;
            if (s.r + 1 == to) {
                u64 slot = atomicAdd(written, 1ull);
                if (slot < capacity) {
                    queens_store(out + slot * QROOT_WORDS, cols, d1, d2);
                } else {
                    atomicOr(overflow, 1u);
                }
                continue;
            }
            stack[s.top * stride] = s.avail | bit;
            s.top += 1;
            s.cols = cols;
            s.d1 = d1;
            s.d2 = d2;
            s.r += 1;
            s.avail = queens_free(n, mask, s.r, cols, d1, d2);
            continue;
        }
        if (s.top == 0) {
            break;
        }
        s.top -= 1;
        unsigned saved = stack[s.top * stride];
        unsigned bit = saved & (0u - saved);
        int col = __ffs(bit) - 1;
        s.r -= 1;
        s.cols ^= bit;
        s.d1 ^= 1ull << (s.r + col);
        s.d2 ^= 1ull << (col + n - 1 - s.r);
        s.avail = saved ^ bit;
    }
}

// The first kernel of REC-CDP and each doubling step of REC-DP3: one thread per root expands
// it to depth `to`, appending the survivors to `out` through the global counter `*written`.
// totals[0] += nodes generated. Dynamic shared memory: (to - row) words per thread.
extern "C" __global__ void queens_expand(const unsigned* roots, u64 count, int n, int row,
                                         int to, unsigned* out, u64* written, u64 capacity,
                                         unsigned* overflow, u64* totals) {
    extern __shared__ unsigned queens_stack[];
    u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 nodes = 0;
    if (index < count) {
        queens_expand_root(roots, index, n, row, to, queens_stack + threadIdx.x, blockDim.x,
                           out, written, capacity, overflow, nodes);
    }
    add_per_warp(&totals[0], nodes);
}
