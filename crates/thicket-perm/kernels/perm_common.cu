// Shared by the permutation-search kernels (Carneiro 2017): 64-bit counters reduced per warp
// and added to global memory with one atomic per warp.

typedef unsigned long long u64;

// The sum of `value` over the warp, in lane 0. Every lane of the warp must call it.
__device__ __forceinline__ u64 warp_sum(u64 value) {
    for (int offset = 16; offset > 0; offset >>= 1) {
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
