// CDP-BP for N-Queens as a permutation; compiled after queens.cu.

#include "perm_cdp.cuh"

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
