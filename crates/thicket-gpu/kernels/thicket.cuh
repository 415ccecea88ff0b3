// thicket's shared CUDA header: what every kernel module of thicket may need (types, warp and
// grid primitives; a problem's own helpers live in its crate's headers). NVRTC receives it as
// the named header "thicket.cuh" (thicket_gpu::THICKET_HEADER), and its text is part of every
// kernel's cache key, so a change here recompiles every kernel.
#pragma once

// Fixed-width integers (CUDA's int is 32 bits and long long 64 on every target).
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

// Every lane of a warp, for the *_sync warp intrinsics.
#define FULL_MASK 0xffffffffu

// Adds `value` (negative to subtract) to `*at`: CUDA has no signed 64-bit atomicAdd, and the
// unsigned one wraps exactly as two's complement addition does.
__device__ __forceinline__ void atomic_add_i64(i64* at, i64 value) {
    atomicAdd((u64*)at, (u64)value);
}

// The sum of `value` over the warp, in lane 0. Every lane of the warp must call it.
__device__ __forceinline__ u64 warp_sum(u64 value) {
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        value += __shfl_down_sync(FULL_MASK, value, offset);
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

// The count of arrivals, read with acquire order so that what the other blocks wrote before
// they arrived is visible after it.
__device__ __forceinline__ unsigned long long arrivals_acquire(const unsigned long long* at) {
    unsigned long long value;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(value) : "l"(at) : "memory");
    return value;
}

// Waits until every block of the grid has arrived (the grid is co-resident: a cooperative
// launch; thicket-graph's one-launch searches and thicket-flow's one-launch MPM use it).
// `arrivals` only grows (zero at launch): the k-th barrier is passed once it reaches
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

// Programmatic dependent launch (thicket-gpu's launch_after; compute capability 9.0 and up,
// nothing before): let the next kernel on the stream start its blocks now, which then run up
// to their own wait_for_previous_grid.
__device__ __forceinline__ void let_next_grid_start() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Waits until the kernel before this one on the stream has finished and its writes are
// visible (at once where this kernel was not launched as a dependent one).
__device__ __forceinline__ void wait_for_previous_grid() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// One kernel at a time (thicket_gpu::KernelModule::kernel_options): the host may define
// THICKET_KERNEL as the one kernel a compilation is for, and THICKET_KERNEL_<name> beside it,
// so that a first call compiles only what it runs. A plain kernel is fenced by
// `#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_<name>)`; a kernel a macro writes
// calls its body from a template through `if constexpr (thicket_wanted("<name>"))`, so that
// the body's templates are never instantiated for the others (which stay, empty).
#define THICKET_STRING_OF(x) #x
#define THICKET_STRING(x) THICKET_STRING_OF(x)
__host__ __device__ constexpr bool thicket_same_name(const char* a, const char* b) {
    return *a == *b && (*a == '\0' || thicket_same_name(a + 1, b + 1));
}
__host__ __device__ constexpr bool thicket_wanted(const char* name) {
#ifdef THICKET_KERNEL
    return thicket_same_name(name, THICKET_STRING(THICKET_KERNEL));
#else
    return true;
#endif
}
