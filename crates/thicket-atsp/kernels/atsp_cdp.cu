// CDP-BP for the ATSP; compiled after atsp.cu.

#include "perm_cdp.cuh"

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
