// What the graph crate's one-launch searches share (NVRTC receives it as the named header
// "grid.cuh"): the grid-wide barrier between the levels or rounds of a cooperative launch.
#pragma once

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
