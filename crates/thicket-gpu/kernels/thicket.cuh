// thicket's shared CUDA header: what every kernel module of thicket may need. NVRTC receives
// it as the named header "thicket.cuh" (thicket_gpu::THICKET_HEADER), and its text is part of
// every kernel's cache key, so a change here recompiles every kernel.
#pragma once

typedef unsigned long long u64;

// The sum of `value` over the warp, in lane 0. Every lane of the warp must call it.
__device__ __forceinline__ u64 warp_sum(u64 value) {
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    return value;
}

// Adds each lane's `value` to `*total`: one atomic per warp. Every lane must call it.
__device__ __forceinline__ void add_per_warp(u64* total, u64 value) {
    u64 sum = warp_sum(value);
    if ((threadIdx.x & 31u) == 0 && sum != 0) {
        atomicAdd(total, sum);
    }
}

// The columns of an n x n board (1 <= n <= 32) as a bit mask.
__device__ __forceinline__ unsigned int board_mask(unsigned int n) {
    return n == 32u ? 0xffffffffu : (1u << n) - 1u;
}
