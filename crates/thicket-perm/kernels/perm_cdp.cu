// CDP-BP (Carneiro 2017, ch. 3) with CUDA dynamic parallelism under the CUDA 12+ rules.
// Compiled after perm_common.cu, perm_queens.cu and perm_atsp.cu with -rdc=true and linked
// with the device runtime (cudadevrt).
//
// The host launches one thread per root at depth d_cpu. Each thread searches to depth d_gpu
// and appends the nodes it reaches there to its block's slice of the device active set,
// `slice_capacity` nodes a block (block size times the thesis's expected children
// (n - d_cpu)! / (n - d_gpu)!), through a counter in shared memory. After a block barrier, the
// first `streams` threads of the block each launch the BP-DFS kernel on their share of the
// slice, which searches from d_gpu to n.
//
// The thesis's threads then called cudaDeviceSynchronize, read cudaGetLastError and destroyed
// their stream. CUDA 12 removed device-side synchronisation; here the child grids go to the
// fire-and-forget stream, so no stream is created or destroyed, and a launch error is read
// right after the launch into `launch_error`. The parent grid completes only when all its
// children have, so the host's synchronisation after the parent covers them, and the counters
// the children add to are complete then: no tail launch is needed.

// Launches BP-DFS `kernel` grids over this block's `load` nodes at `slice`, one grid per
// stream. Called by every thread of the block after the barrier.
template <typename Launch>
__device__ void cdp_launch_children(u64 load, int streams, int child_block, Launch launch,
                                    unsigned* launch_error) {
    if ((int)threadIdx.x >= streams || load == 0) {
        return;
    }
    u64 share = (load + streams - 1) / streams;
    u64 first = threadIdx.x * share;
    if (first >= load) {
        return;
    }
    u64 mine = load - first < share ? load - first : share;
    unsigned grid = (unsigned)((mine + child_block - 1) / child_block);
    launch(first, mine, grid);
    cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) {
        atomicCAS(launch_error, 0u, (unsigned)error);
    }
}

// CDP-BP for N-Queens. Dynamic shared memory: (to - row) words per thread. The children get
// (n - to - 2, at least 1) words per thread. totals[0] += nodes, totals[1] += solutions.
extern "C" __global__ void queens_cdp_bp(const unsigned* roots, u64 count, int n, int row,
                                         int to, unsigned* slices, u64 slice_capacity,
                                         unsigned* overflow, u64* totals, int streams,
                                         int child_block, unsigned* launch_error) {
    extern __shared__ unsigned queens_stack[];
    __shared__ u64 block_load;
    if (threadIdx.x == 0) {
        block_load = 0;
    }
    __syncthreads();
    unsigned* slice = slices + (u64)blockIdx.x * slice_capacity * QROOT_WORDS;
    u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 nodes = 0;
    if (index < count) {
        queens_expand_root(roots, index, n, row, to, queens_stack + threadIdx.x, blockDim.x,
                           slice, &block_load, slice_capacity, overflow, nodes);
    }
    add_per_warp(&totals[0], nodes);
    __syncthreads();
    u64 load = block_load < slice_capacity ? block_load : slice_capacity;
    int levels = n - to - 2 > 1 ? n - to - 2 : 1;
    unsigned shared_bytes = (unsigned)(levels * child_block * sizeof(unsigned));
    cdp_launch_children(
        load, streams, child_block,
        [&](u64 first, u64 mine, unsigned grid) {
            queens_bp_dfs<<<grid, child_block, shared_bytes, cudaStreamFireAndForget>>>(
                slice + first * QROOT_WORDS, mine, n, to, totals);
        },
        launch_error);
}

// CDP-BP for the ATSP. Dynamic shared memory: n * n ints (the cost matrix), for the parent
// and the children alike. Child launch errors and slice overflows go to inc->overflow's bits.
extern "C" __global__ void atsp_cdp_bp(const unsigned* roots, u64 count, int len,
                                       const int* cost, int n, int to, int count_below,
                                       Incumbent* inc, unsigned char* tours, unsigned* slices,
                                       u64 slice_capacity, int streams, int child_block,
                                       unsigned* launch_error) {
    extern __shared__ int atsp_cost[];
    __shared__ int block_best;
    __shared__ u64 block_load;
    if (threadIdx.x == 0) {
        block_load = 0;
    }
    atsp_load_costs(atsp_cost, cost, n);
    atsp_block_start(&block_best, inc);
    unsigned* slice = slices + (u64)blockIdx.x * slice_capacity * ANODE_WORDS;
    u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 nodes = 0;
    if (index < count) {
        atsp_search_root(roots, index, len, atsp_cost, n, to, count_below, inc, tours,
                         &block_best, slice, &block_load, slice_capacity, nodes);
    }
    add_per_warp(&inc->nodes, nodes);
    __syncthreads();
    u64 load = block_load < slice_capacity ? block_load : slice_capacity;
    unsigned shared_bytes = (unsigned)(n * n * sizeof(int));
    cdp_launch_children(
        load, streams, child_block,
        [&](u64 first, u64 mine, unsigned grid) {
            atsp_bp_dfs<<<grid, child_block, shared_bytes, cudaStreamFireAndForget>>>(
                slice + first * ANODE_WORDS, mine, to, cost, n, count_below, inc, tours);
        },
        launch_error);
}
