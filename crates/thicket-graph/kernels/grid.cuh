// What the graph crate's one-launch searches share (NVRTC receives it as the named header
// "grid.cuh"): how a level's vertices are spread over the grid. The grid-wide barrier between
// levels or rounds is thicket.cuh's `grid_barrier`.
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
