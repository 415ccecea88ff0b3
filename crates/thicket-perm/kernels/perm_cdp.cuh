// CDP-BP (Carneiro 2017, ch. 3) with CUDA dynamic parallelism under the CUDA 12+ rules: the
// launch of the children, shared by every problem's CDP-BP kernel (N-Queens in
// queens_cdp.cu, the ATSP in thicket-atsp's atsp_cdp.cu). Included by name
// ("perm_cdp.cuh", thicket_perm::kernels::PERM_CDP_HEADER); the modules that include it are
// compiled with -rdc=true and linked with the device runtime (cudadevrt).
#pragma once

#include "thicket.cuh"
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
