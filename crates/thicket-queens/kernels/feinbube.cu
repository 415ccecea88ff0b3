// The N-Queens kernel of Feinbube et al., "NQueens on CUDA" (HPI, 2010), after its
// optimisation steps 1-4: Somers' iterative bitboard search with an explicit stack, the host's
// precalculated board settings (the queen of each of the first `depth` rows, mirror symmetry:
// first queen in the left half), and the whole per-thread state (columns, both diagonals and
// the stack) in one dynamic shared block, `4 * (board_size - depth)` words a thread (step 4).
// Each thread writes its count to counts[thread]; the host sums them.

#include "thicket.cuh"
#include "queens.cuh"

extern __shared__ unsigned feinbube_shared[];

extern "C" __global__ void feinbube_nqueens(unsigned board_size, unsigned thread_count,
                                            unsigned depth, const unsigned *settings,
                                            unsigned long long *counts) {
    unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    if (thread >= thread_count) return;
    unsigned rest = board_size - depth;  // rows this thread fills ("abs" in the slides)
    unsigned mask = board_mask(board_size);
    // Step 4: one shared block, the thread's four arrays side by side.
    unsigned *cols = feinbube_shared + 4u * rest * threadIdx.x;
    unsigned *pos_diag = cols + rest;
    unsigned *neg_diag = pos_diag + rest;
    unsigned *stack = neg_diag + rest;

    // Initialise the field from the precalculated setting.
    unsigned c = 0, p = 0, q = 0;
    for (unsigned row = 0; row < depth; ++row) {
        unsigned queen = settings[thread * depth + row];
        c |= queen;
        p = (p | queen) << 1;
        q = (q | queen) >> 1;
    }
    cols[0] = c;
    pos_diag[0] = p;
    neg_diag[0] = q;

    unsigned long long solutions = 0;
    unsigned level = 0;  // the row being filled, counted from `depth`
    unsigned free = mask & ~(c | p | q);
    for (;;) {
        if (free == 0) {
            if (level == 0) break;
            free = stack[--level];  // back to the previous row's untried positions
            continue;
        }
        unsigned lsb = free & (0u - free);
        free &= ~lsb;
        if (level == rest - 1u) {
            solutions++;
            continue;
        }
        stack[level] = free;
        cols[level + 1u] = cols[level] | lsb;
        pos_diag[level + 1u] = (pos_diag[level] | lsb) << 1;
        neg_diag[level + 1u] = (neg_diag[level] | lsb) >> 1;
        ++level;
        free = mask & ~(cols[level] | pos_diag[level] | neg_diag[level]);
    }
    counts[thread] = solutions;
}
