// What the graph crate's one-launch searches share (NVRTC receives it as the named header
// "grid.cuh"): the grid-wide barrier between the levels or rounds of a cooperative launch, and
// how a level's vertices are spread over the grid.
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

// The count of arrivals, read with acquire order so that what the other blocks wrote before
// they arrived is visible after it.
__device__ __forceinline__ unsigned long long arrivals_acquire(const unsigned long long* at) {
    unsigned long long value;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(value) : "l"(at) : "memory");
    return value;
}

// Waits until every block of the grid has arrived (the grid is co-resident: a cooperative
// launch). `arrivals` only grows (zero at launch): the k-th barrier is passed once it reaches
// k * blocks, so no block resets it and a waiting block needs one load per poll. Writes before
// the barrier are visible to every block after it.
__device__ __forceinline__ void grid_barrier(unsigned long long* arrivals, unsigned int blocks) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned long long ticket = atomicAdd(arrivals, 1ull);
        const unsigned long long target = (ticket / blocks + 1) * blocks;
        while (arrivals_acquire(arrivals) < target) {
        }
        __threadfence();
    }
    __syncthreads();
}
