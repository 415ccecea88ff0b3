// thicket-queens' CUDA header: what several of its N-Queens kernels share. NVRTC receives it
// as the named header "queens.cuh" (QUEENS_HEADER in src/kernels.rs).
#pragma once

// The columns of an n x n board (1 <= n <= 32) as a bit mask.
__device__ __forceinline__ unsigned int board_mask(unsigned int n) {
    return n == 32u ? 0xffffffffu : (1u << n) - 1u;
}
