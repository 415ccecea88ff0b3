// N-Queens kernels of Zhang, Shu and Wu, "Optimization of N-Queens Solvers on Graphics
// Processors" (APPT 2011), section by section. Every kernel takes the same jobs: the host places
// the first k queens (mirror symmetry: first queen in the left half) and hands each thread the
// three 32-bit masks (columns, left and right diagonals) of row k; the thread fills the
// remaining `rows` rows. Each row of a thread's workspace ("ROW[]" in the paper) is four words:
// the three masks of that row and the positions still to try in it, so `rows` = 11 is the
// paper's forty-four words. Each block writes its solution count to results[blockIdx.x].

#include "thicket.cuh"

// Which workspace layout a kernel uses; `at` gives the word `field` of row `row`.
struct GlobalRows {  // Sec. 3, Fig. 1: a private slice of a global array per thread.
    unsigned *base;
    __device__ GlobalRows(unsigned *workspace, unsigned rows, unsigned thread)
        : base(workspace + (size_t)thread * rows * 4u) {}
    __device__ unsigned &at(unsigned row, unsigned field) { return base[row * 4u + field]; }
};

struct SharedRows {  // Sec. 4.1, Table 3: ROW[BLOCK][4 * rows], a thread's words contiguous
    unsigned *base;  // (a stride of 44 words: 4-way bank conflicts when lanes read one row).
    __device__ SharedRows(unsigned *shared, unsigned rows)
        : base(shared + threadIdx.x * rows * 4u) {}
    __device__ unsigned &at(unsigned row, unsigned field) { return base[row * 4u + field]; }
};

struct TransposedRows {  // Sec. 4.1, Table 4: ROW[4 rows][BLOCK], lanes on consecutive banks.
    unsigned *base;
    __device__ TransposedRows(unsigned *shared, unsigned) : base(shared + threadIdx.x) {}
    __device__ unsigned &at(unsigned row, unsigned field) {
        return base[(row * 4u + field) * blockDim.x];
    }
};

extern __shared__ unsigned zhang_shared[];

template <typename Rows>
__device__ void load_job(Rows &w, const unsigned *jobs, unsigned job, unsigned mask) {
    unsigned c = jobs[3u * job], l = jobs[3u * job + 1u], r = jobs[3u * job + 2u];
    w.at(0, 0) = c;
    w.at(0, 1) = l;
    w.at(0, 2) = r;
    w.at(0, 3) = mask & ~(c | l | r);
}

// Generates ROW[row + 1] from ROW[row] and the queen `bit` placed in it.
template <typename Rows>
__device__ unsigned next_row(Rows &w, unsigned row, unsigned bit, unsigned mask) {
    unsigned c = w.at(row, 0) | bit;
    unsigned l = (w.at(row, 1) | bit) << 1;
    unsigned r = (w.at(row, 2) | bit) >> 1;
    unsigned free = mask & ~(c | l | r);
    w.at(row + 1, 0) = c;
    w.at(row + 1, 1) = l;
    w.at(row + 1, 2) = r;
    w.at(row + 1, 3) = free;
    return free;
}

// Sec. 3, Fig. 1: the naive loop, "if no position then back up, else place and descend".
template <typename Rows>
__device__ unsigned long long naive_search(Rows &w, unsigned rows, unsigned mask) {
    unsigned long long solutions = 0;
    int row = 0;
    while (row >= 0) {
        unsigned free = w.at(row, 3);
        if (free == 0) {
            row--;
        } else {
            unsigned bit = free & (0u - free);
            w.at(row, 3) = free ^ bit;
            if ((unsigned)row == rows - 1u) {
                solutions++;
            } else {
                next_row(w, row, bit, mask);
                row++;
            }
        }
    }
    return solutions;
}

// Sums the threads' counts of a block into results[blockIdx.x].
__device__ void block_sum(unsigned long long mine, unsigned long long *results) {
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    if (mine) atomicAdd(&block_total, mine);
    __syncthreads();
    if (threadIdx.x == 0) results[blockIdx.x] = block_total;
}

// Sec. 3, Fig. 1 (`naive`) and Sec. 4.1, Table 2 (`l1`: the same code, launched with the L1
// cache preferred over shared memory): the workspace lives in global memory.
extern "C" __global__ void zhang_global(const unsigned *jobs, unsigned job_count, unsigned rows,
                                        unsigned mask, unsigned *workspace,
                                        unsigned long long *results) {
    unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long solutions = 0;
    if (thread < job_count) {
        GlobalRows w(workspace, rows, thread);
        load_job(w, jobs, thread, mask);
        solutions = naive_search(w, rows, mask);
    }
    block_sum(solutions, results);
}

// Sec. 4.1, Table 3 (`shared`): the naive loop on a shared-memory workspace whose layout
// conflicts on the banks.
extern "C" __global__ void zhang_shared_conflicting(const unsigned *jobs, unsigned job_count,
                                                    unsigned rows, unsigned mask,
                                                    unsigned long long *results) {
    unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long solutions = 0;
    if (thread < job_count) {
        SharedRows w(zhang_shared, rows);
        load_job(w, jobs, thread, mask);
        solutions = naive_search(w, rows, mask);
    }
    block_sum(solutions, results);
}

// Sec. 4.1, Table 4 (`shared-nbc`): the same with the workspace transposed, free of conflicts.
extern "C" __global__ void zhang_shared_transposed(const unsigned *jobs, unsigned job_count,
                                                   unsigned rows, unsigned mask,
                                                   unsigned long long *results) {
    unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long solutions = 0;
    if (thread < job_count) {
        TransposedRows w(zhang_shared, rows);
        load_job(w, jobs, thread, mask);
        solutions = naive_search(w, rows, mask);
    }
    block_sum(solutions, results);
}

// One iteration of the low-divergence loop of Sec. 4.2, Fig. 3 (IRRC): every iteration tries
// the next position of the current row; after descending, the tail check looks at the new row
// at once and, if it has no free position, lets the loop's decrement return to this row instead
// of spending an iteration there. The caller's `for (; row >= 0; row--)` does the decrement.
// After it, `row == 0` means the job is done (row 0 had nothing left to try).
template <typename Rows>
__device__ void irrc_step(Rows &w, int &row, unsigned rows, unsigned mask,
                          unsigned long long &solutions) {
    unsigned free = w.at(row, 3);
    if (free) {
        unsigned bit = free & (0u - free);
        w.at(row, 3) = free ^ bit;
        if ((unsigned)row < rows - 1u) {
            unsigned next = next_row(w, row, bit, mask);
            row++;
            if (next) row++;
        } else {
            solutions++;
        }
    }
}

// Sec. 4.2, Fig. 3, Table 5 (`irrc`): the low-divergence kernel on the transposed shared
// workspace.
extern "C" __global__ void zhang_irrc(const unsigned *jobs, unsigned job_count, unsigned rows,
                                      unsigned mask, unsigned long long *results) {
    unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long solutions = 0;
    if (thread < job_count) {
        TransposedRows w(zhang_shared, rows);
        load_job(w, jobs, thread, mask);
        for (int row = 0; row >= 0; row--) irrc_step(w, row, rows, mask, solutions);
    }
    block_sum(solutions, results);
}

// Sec. 4.3, Figs. 4-5 and Table 8: the low-divergence kernel with a job pool. A thread starts on
// the job `first` and, each time its job is done, takes the next one with an atomic increment of
// `seek` until `end`.
__device__ unsigned long long pooled_search(const unsigned *jobs, unsigned first, unsigned end,
                                            unsigned *seek, unsigned rows, unsigned mask) {
    unsigned long long solutions = 0;
    if (first >= end) return 0;
    TransposedRows w(zhang_shared, rows);
    load_job(w, jobs, first, mask);
    for (int row = 0; row >= 0; row--) {
        irrc_step(w, row, rows, mask, solutions);
        if (row == 0) {
            unsigned job = atomicAdd(seek, 1u);
            if (job >= end) break;
            load_job(w, jobs, job, mask);
            row++;
        }
    }
    return solutions;
}

// Sec. 4.3, Figs. 4-5, Table 7 (`pool-block`): one pool of `pool_size` jobs per block, its
// semaphore `seek` in shared memory.
extern "C" __global__ void zhang_pool_block(const unsigned *jobs, unsigned job_count,
                                            unsigned rows, unsigned mask, unsigned pool_size,
                                            unsigned long long *results) {
    __shared__ unsigned seek;
    unsigned start = blockIdx.x * pool_size;
    unsigned end = min(start + pool_size, job_count);
    if (threadIdx.x == 0) seek = start + blockDim.x;
    __syncthreads();
    unsigned long long solutions =
        pooled_search(jobs, start + threadIdx.x, end, &seek, rows, mask);
    block_sum(solutions, results);
}

// Sec. 4.3, Table 8 (`pool-global`): one monolithic pool shared by every block, its semaphore
// in global memory, initialised by the host to the number of threads launched.
extern "C" __global__ void zhang_pool_global(const unsigned *jobs, unsigned job_count,
                                             unsigned rows, unsigned mask, unsigned *seek,
                                             unsigned long long *results) {
    unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long solutions = pooled_search(jobs, thread, job_count, seek, rows, mask);
    block_sum(solutions, results);
}
