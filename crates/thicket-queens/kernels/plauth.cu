// The dynamic-parallelism N-Queens kernels of Plauth, Feinbube, Schlegel and Polze, "A
// Performance Evaluation of Dynamic Parallelism for Fine-Grained, Irregular Workloads" (2016),
// with the CUDA 12+ device runtime: children go to the fire-and-forget stream (the paper made a
// non-blocking stream per launch; device-side stream creation and synchronisation are gone),
// and nobody waits on the device: the host waits for the whole tree of grids, which is complete
// only when every descendant is.
//
// Where the device runtime refuses a launch (pending-launch buffer full, nesting deeper than the
// hardware's 24 levels) or device malloc fails, the parent counts that subtree itself and bumps
// stats[0]: the count stays exact and the refusal is reported. DP-1's thread counts its own
// board; the block-wide kernels (DP-2, DP-3, DP-SWAP) spread the refused boards over the
// block's threads. Every solution found is added to *result (as the paper's kernels do, before
// the host's mirror x2).
//
// Grids stop at the middle of the board (`hand_below`, set by the host): no grid is launched
// over boards in the lower half, whose subtrees the thread that reached them counts in place.
// Handing every level on multiplies the grids, their device allocations and their pending
// launches by the branching factor each level (127 million boards four rows from the end of
// N = 16), which is what made the paper's scheme stall or fall back from N = 16 on.

#include "thicket.cuh"
#include "queens.cuh"

struct Config {     // boardConfig_t: the masks of the next row to fill, and its index
    unsigned col;
    unsigned pos;   // left-going diagonals (shifted left row by row)
    unsigned neg;   // right-going diagonals
    unsigned row;
};

struct Entry {      // DP-SWAP's boardConfigEx_t: a Config and the positions still to try in it
    Config config;
    unsigned avail;
};


__device__ unsigned free_of(const Config &c, unsigned mask) {
    return mask & ~(c.col | c.pos | c.neg);
}

__device__ Config place(const Config &c, unsigned bit, unsigned mask) {
    Config next;
    next.col = c.col | bit;
    next.pos = ((c.pos | bit) << 1) & mask;
    next.neg = (c.neg | bit) >> 1;
    next.row = c.row + 1u;
    return next;
}

// The fallback for a refused launch: every solution below `start`, trying only `avail` in its
// row, by a plain depth-first search on a local stack.
__device__ unsigned long long count_below(Config start, unsigned avail, unsigned n) {
    unsigned mask = board_mask(n);
    if (start.row >= n) return 1;
    Config stack[32];
    unsigned open_stack[32];
    int top = 0;
    stack[0] = start;
    open_stack[0] = avail;
    unsigned long long solutions = 0;
    while (top >= 0) {
        unsigned open = open_stack[top];
        if (open == 0) {
            --top;
            continue;
        }
        unsigned bit = open & (0u - open);
        open_stack[top] = open ^ bit;
        if (stack[top].row == n - 1u) {
            solutions++;
            continue;
        }
        Config next = place(stack[top], bit, mask);
        ++top;
        stack[top] = next;
        open_stack[top] = free_of(next, mask);
    }
    return solutions;
}

// ---------------------------------------------------------------------------------------------
// Sec. 3.1, Listing 1, Fig. 6 (DP-1, thread swarming): a grid of n^z threads; thread i reads
// its z positions as the base-n digits of i and tries to place them in the next z rows; a
// thread whose queens all fit launches the same grid below its board if that grid's boards lie
// above row `hand_below` (its board's row + z < hand_below), and counts its board's subtree
// itself otherwise. One launch a board would otherwise be millions of grids at N >= 16, far past
// the pending-launch buffer.

__device__ void dp1_below(Config config, unsigned z, unsigned thread_count, unsigned block,
                          unsigned n, unsigned hand_below, unsigned long long *result,
                          unsigned long long *stats);

extern "C" __global__ void dp1_swarm(Config config, unsigned z, unsigned thread_count, unsigned n,
                                     unsigned hand_below, unsigned long long *result,
                                     unsigned long long *stats) {
    unsigned index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= thread_count) return;
    unsigned mask = board_mask(n);
    for (unsigned r = 0; r < z; ++r) {
        unsigned bit = 1u << (index % n);
        if ((config.col | config.pos | config.neg) & bit) return;
        config = place(config, bit, mask);
        index /= n;
        if (config.row == n) {
            // Only the thread whose unused digits are zero counts the board, once.
            if (index == 0) atomicAdd(result, 1ull);
            return;
        }
    }
    dp1_below(config, z, thread_count, blockDim.x, n, hand_below, result, stats);
}

// The swarm below `config` where it would end above `hand_below`, else (or where the launch is
// refused) the count of its subtree in place.
__device__ void dp1_below(Config config, unsigned z, unsigned thread_count, unsigned block,
                          unsigned n, unsigned hand_below, unsigned long long *result,
                          unsigned long long *stats) {
    if (config.row + z < hand_below) {
        unsigned blocks = (thread_count + block - 1u) / block;
        dp1_swarm<<<blocks, block, 0, cudaStreamFireAndForget>>>(config, z, thread_count, n,
                                                                 hand_below, result, stats);
        if (cudaGetLastError() == cudaSuccess) return;
        atomicAdd(&stats[0], 1ull);
    }
    atomicAdd(result, count_below(config, free_of(config, board_mask(n)), n));
}

// The host's initial grid of DP-1: one swarm below each precalculated board.
extern "C" __global__ void dp1_root(const Config *configs, unsigned count, unsigned z,
                                    unsigned thread_count, unsigned block, unsigned n,
                                    unsigned hand_below, unsigned long long *result,
                                    unsigned long long *stats) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    dp1_below(configs[i], z, thread_count, block, n, hand_below, result, stats);
}

// ---------------------------------------------------------------------------------------------
// Sec. 3.2-3.3, Listings 2-3, Fig. 7 (DP-2 and DP-3, condensed kernels): each thread searches
// `depth` rows below its configuration with a stack in shared memory and hands the boards it
// reaches at that depth to a child grid. DP-3 passes min(depth * growth, max_depth) to the
// child (`growth` = 1 is DP-2's static depth). Boards at or below `hand_below` are not handed
// on: the thread that reaches them counts their subtrees.
//
// The closest form that scales past N = 15: the paper launches one child grid per thread,
// millions of tiny grids at N >= 16, far beyond what the device runtime holds pending or the
// malloc heap serves. Here the threads of a block pool their boards: a first pass counts each
// thread's boards, a block-wide scan places them, thread 0 allocates one array for the block
// (the paper's per-block memory, blockDim configurations per child block, in one allocation)
// and launches one child grid over it after a second pass has written the boards. The child's
// blocks free the array once all have read it (the paper's free counter).

// Freed by the last child block to read its configurations.
struct BlockRelease {
    unsigned blocks_left;
    unsigned pad[3];
};

// Searches `depth` rows below stack[0] on this thread's shared stacks. Returns the boards at
// that depth (not the last row) and, when `out` is set, writes them there; when `solutions` is
// set, adds the boards completed above that depth, and with `count_children` the solutions
// below each board at that depth instead of keeping it.
__device__ unsigned long long condensed_walk(Config *stack, unsigned *open_stack,
                                             unsigned depth, unsigned n, Config *out,
                                             unsigned long long *solutions,
                                             bool count_children) {
    unsigned mask = board_mask(n);
    unsigned long long boards = 0;
    unsigned open = free_of(stack[0], mask);
    int top = 0;
    for (;;) {
        if (open == 0) {
            if (--top < 0) break;
            open = open_stack[top];
            continue;
        }
        unsigned lsb = open & (0u - open);
        open &= ~lsb;
        if (stack[top].row < n - 1u) {
            if ((unsigned)top == depth) {
                // The end of this thread's subtree: the board goes to the child grid.
                if (out) out[boards] = stack[top];
                if (count_children) *solutions += count_below(stack[top], open | lsb, n);
                boards++;
                open = open_stack[--top];
                continue;
            }
            open_stack[top] = open;
            stack[top + 1] = place(stack[top], lsb, mask);
            ++top;
            open = free_of(stack[top], mask);
        } else if (solutions) {
            (*solutions)++;  // the last row: its one open position completes a board
        }
    }
    return boards;
}

// The exclusive prefix sum of `value` over the block (every thread must call it) and the total.
__device__ unsigned long long block_scan(unsigned long long value, unsigned long long *total) {
    __shared__ unsigned long long warp_sums[32];
    unsigned lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
    unsigned warps = (blockDim.x + 31u) / 32u;
    unsigned lanes = min(32u, blockDim.x - warp * 32u);  // a last warp may be partial
    unsigned members = lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;
    unsigned long long inclusive = value;
    for (unsigned step = 1; step < 32u; step *= 2u) {
        unsigned long long up = __shfl_up_sync(members, inclusive, step);
        if (lane >= step) inclusive += up;
    }
    if (lane == 31u || threadIdx.x == blockDim.x - 1u) warp_sums[warp] = inclusive;
    __syncthreads();
    unsigned long long before = 0, sum = 0;
    for (unsigned w = 0; w < warps; ++w) {
        if (w < warp) before += warp_sums[w];
        sum += warp_sums[w];
    }
    __syncthreads();
    *total = sum;
    return before + inclusive - value;
}

// The most boards one block hands to a child grid (more are counted by the block itself).
#define CONDENSED_MAX_CHILDREN (1ull << 30)

extern "C" __global__ void dp_condensed(BlockRelease *release, const Config *configs,
                                        unsigned thread_count, unsigned depth, unsigned growth,
                                        unsigned max_depth, unsigned n, unsigned hand_below,
                                        unsigned long long *result, unsigned long long *stats) {
    extern __shared__ unsigned char condensed_shared[];
    __shared__ Config *child_configs;
    __shared__ int launched;
    unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
    bool active = me < thread_count;
    Config *stacks = (Config *)condensed_shared;
    unsigned *open_stacks = (unsigned *)(stacks + (depth + 1u) * blockDim.x);
    Config *stack = stacks + threadIdx.x * (depth + 1u);
    unsigned *open_stack = open_stacks + threadIdx.x * (depth + 1u);
    if (active) stack[0] = configs[me];
    __syncthreads();
    if (release && threadIdx.x == 0 && atomicSub(&release->blocks_left, 1u) == 1u) free(release);

    // Pass 1: how many boards each thread will hand on (none where depth reaches the last row
    // or the lower half; all of a grid's boards are on one row).
    unsigned long long mine = 0;
    if (active && stack[0].row + depth < n - 1u && stack[0].row + depth < hand_below)
        mine = condensed_walk(stack, open_stack, depth, n, 0, 0, false);
    unsigned long long total = 0;
    unsigned long long offset = block_scan(mine, &total);

    if (threadIdx.x == 0) {
        child_configs = 0;
        launched = 0;
        if (total > 0 && total <= CONDENSED_MAX_CHILDREN) {
            char *memory = (char *)malloc(sizeof(BlockRelease) + sizeof(Config) * total);
            if (memory) child_configs = (Config *)(memory + sizeof(BlockRelease));
        }
        if (total > 0 && !child_configs) atomicAdd(&stats[0], 1ull);
    }
    __syncthreads();
    Config *out = child_configs;

    // Pass 2: the solutions above the depth, the boards at it written to the block's array (or,
    // without one, counted below by the thread that found them).
    unsigned long long solutions = 0;
    if (active) condensed_walk(stack, open_stack, depth, n, out ? out + offset : 0, &solutions,
                               !out);
    __syncthreads();
    if (out && threadIdx.x == 0) {
        BlockRelease *header = (BlockRelease *)((char *)out - sizeof(BlockRelease));
        unsigned blocks = (unsigned)((total + blockDim.x - 1u) / blockDim.x);
        header->blocks_left = blocks;
        unsigned child_depth = min(depth * growth, max_depth);
        size_t shared = (sizeof(Config) + sizeof(unsigned)) * (child_depth + 1u) * blockDim.x;
        dp_condensed<<<blocks, blockDim.x, shared, cudaStreamFireAndForget>>>(
            header, out, (unsigned)total, child_depth, growth, max_depth, n, hand_below, result,
            stats);
        launched = cudaGetLastError() == cudaSuccess;
        if (!launched) atomicAdd(&stats[0], 1ull);
    }
    __syncthreads();
    if (out && !launched) {
        // A refused launch: the block counts the boards itself, spread over its threads.
        unsigned mask = board_mask(n);
        for (unsigned long long i = threadIdx.x; i < total; i += blockDim.x)
            solutions += count_below(out[i], free_of(out[i], mask), n);
        __syncthreads();
        if (threadIdx.x == 0) free((char *)out - sizeof(BlockRelease));
    }
    if (solutions) atomicAdd(result, solutions);
}

// ---------------------------------------------------------------------------------------------
// Sec. 3.4, Listings 4-6 (DP-SWAP, shared-memory swapping): the threads of a block put the
// boards they reach at `depth` into one shared buffer; once it fills past the threshold, every
// thread stops and swaps its whole stack (each level with the positions it has not tried yet)
// into the buffer, so nothing is lost. Then the block copies the buffer to global memory and
// thread 0 launches one child grid over it, with the same static depth. The buffer is what is
// left of `shared_limit` bytes after the stacks. A board at the depth on row `hand_below` or
// lower is counted in place instead of buffered.
//
// Block b of a grid takes entries b, b + gridDim, b + 2 gridDim, ...: the swapped stacks, which
// land at the end of a buffer, go one to a block of the child instead of all into its last
// block, so the boards still to hand on are found by many blocks at once rather than by one
// chain of grids, one buffer at a time, nested past the device runtime's 24 levels.

struct SwapHeader {
    unsigned blocks_left;  // child blocks still to read the entries; the last one open_stacks them
    unsigned pad[3];
};

extern "C" __global__ void dp_swap(SwapHeader *header, const Entry *entries, unsigned count,
                                   unsigned depth, unsigned volume, unsigned threshold,
                                   unsigned n, unsigned hand_below, unsigned long long *result,
                                   unsigned long long *stats) {
    extern __shared__ unsigned char swap_shared[];
    __shared__ unsigned child_count;
    __shared__ int fallback;
    __shared__ Entry *copied;
    __shared__ SwapHeader *child_header;
    Entry *stacks = (Entry *)swap_shared;
    Entry *buffer = stacks + depth * blockDim.x;
    Entry *stack = stacks + threadIdx.x * depth;
    unsigned me = threadIdx.x * gridDim.x + blockIdx.x;
    bool active = me < count;
    if (threadIdx.x == 0) {
        child_count = 0;
        fallback = 0;
    }
    if (active) stack[0] = entries[me];
    __syncthreads();
    if (header && threadIdx.x == 0 && atomicSub(&header->blocks_left, 1u) == 1u) free(header);

    unsigned mask = board_mask(n);
    unsigned long long solutions = 0;
    int top = active ? 0 : -1;
    while (top >= 0) {
        if (*(volatile unsigned *)&child_count > threshold) {
            // Swap: save every level with what it has left to try, then stop.
            for (; top >= 0; --top) {
                if (stack[top].avail) buffer[atomicAdd(&child_count, 1u)] = stack[top];
            }
            break;
        }
        unsigned open = stack[top].avail;
        if (open == 0) {
            --top;
            continue;
        }
        unsigned lsb = open & (0u - open);
        stack[top].avail = open ^ lsb;
        if (stack[top].config.row == n - 1u) {
            solutions++;
            continue;
        }
        Config next = place(stack[top].config, lsb, mask);
        unsigned next_free = free_of(next, mask);
        if (next_free == 0) continue;
        if ((unsigned)top + 1u == depth) {
            if (next.row < hand_below) {
                Entry child = {next, next_free};
                buffer[atomicAdd(&child_count, 1u)] = child;
            } else {
                solutions += count_below(next, next_free, n);
            }
            continue;
        }
        ++top;
        stack[top].config = next;
        stack[top].avail = next_free;
    }
    __syncthreads();
    unsigned total = child_count;
    if (total > volume) {  // cannot happen with threshold <= volume - (depth + 1) * blockDim
        if (threadIdx.x == 0) atomicAdd(&stats[1], 1ull);
        total = volume;
    }
    if (total > 0) {
        if (threadIdx.x == 0) {
            char *memory = (char *)malloc(sizeof(SwapHeader) + sizeof(Entry) * total);
            child_header = (SwapHeader *)memory;
            copied = memory ? (Entry *)(memory + sizeof(SwapHeader)) : 0;
            if (!memory) fallback = 1;
        }
        __syncthreads();
        if (!fallback) {
            for (unsigned i = threadIdx.x; i < total; i += blockDim.x) copied[i] = buffer[i];
            __syncthreads();
            if (threadIdx.x == 0) {
                unsigned blocks = (total + blockDim.x - 1u) / blockDim.x;
                child_header->blocks_left = blocks;
                size_t shared = sizeof(Entry) * (depth * blockDim.x + volume);
                dp_swap<<<blocks, blockDim.x, shared, cudaStreamFireAndForget>>>(
                    child_header, copied, total, depth, volume, threshold, n, hand_below, result,
                    stats);
                if (cudaGetLastError() != cudaSuccess) {
                    free(child_header);
                    fallback = 1;
                }
            }
            __syncthreads();
        }
        if (fallback) {
            // No memory or a refused launch: the block counts the buffer, spread over its
            // threads.
            for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
                solutions += count_below(buffer[i].config, buffer[i].avail, n);
            if (threadIdx.x == 0) atomicAdd(&stats[0], 1ull);
        }
    }
    if (solutions) atomicAdd(result, solutions);
}
