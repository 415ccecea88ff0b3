// thicket's N-Queens counter for NVIDIA GPUs (Hopper and newer, any NVRTC target).
//
// One persistent kernel. Every thread takes tasks through one global atomic counter and runs an
// iterative depth-first search of the inner rows of a border constellation:
// - shifting masks in registers: occupied columns (32 bits), "\\" diagonals (64 bits, shift left
//   a row) and "/" diagonals (64 bits, 32 bits up, shift right a row). Over a whole search a
//   line moves at most n <= 28 places, so no line ever leaves its word and a pop restores the
//   masks exactly by undoing the shifts;
// - the border queens' attacks on each row come from a per-plan table in global memory, copied
//   into the thread's slice of shared memory when it takes a task (the lanes of a warp work on
//   different plans, so reading the table in the hot loop would scatter every load), and rows
//   filled by side queens are skipped by shifting the diagonals by the row gap (1 to 3);
// - one word a stack level in shared memory, level-major with the thread index as the fastest
//   axis, so the 32 lanes of a warp touch 32 consecutive words: no bank conflicts. The word
//   holds the columns of that level not yet tried, the queen being tried as its lowest bit;
// - the row before the last counts its children with one popcount, and a look-ahead drops a
//   queen whose next-but-one row has no free square.
//
// Task: 6 words {plan | depth << 24, cols, down-right lo, hi, down-left lo, hi}.
// Dynamic shared memory: 32 attack words, then `levels` stack words, per thread, level-major.
// Plan record (PLAN_WORDS words): [0..2) row gaps, 2 bits a depth; [2] depth of the last row;
// [3] weight (class size, 8, 4 or 2); [4 + d] border attacks on the row of depth d.
// src/gpu/tasks.rs (Task::count) runs this loop on the CPU as the kernel's reference.

#define BLOCK 128
#define PLAN_WORDS 36
#define DR_OFFSET 32

__device__ __forceinline__ unsigned int free_columns(unsigned int cols, unsigned long long dl,
                                                     unsigned long long dr, unsigned int attack,
                                                     unsigned int board)
{
    return ~(cols | (unsigned int)dl | (unsigned int)(dr >> DR_OFFSET) | attack) & board;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
queens_count(const unsigned int* __restrict__ tasks, unsigned int task_count,
             const unsigned int* __restrict__ plans, unsigned int* __restrict__ next_task,
             unsigned long long* __restrict__ total, unsigned int n)
{
    extern __shared__ unsigned int shared[];
    unsigned int* const attack = shared + threadIdx.x;
    unsigned int* const my_stack = shared + 32 * BLOCK + threadIdx.x;
    const unsigned int board = (unsigned int)((1ull << n) - 1ull);
    unsigned long long count = 0;

    for (;;) {
        const unsigned int index = atomicAdd(next_task, 1u);
        if (index >= task_count) {
            break;
        }
        const uint2* const task = reinterpret_cast<const uint2*>(tasks + 6ull * index);
        const uint2 head = task[0], right = task[1], left = task[2];
        const unsigned int* const plan = plans + (head.x & 0xffffffu) * PLAN_WORDS;
        const unsigned int start = head.x >> 24;
        const unsigned long long gaps = plan[0] | ((unsigned long long)plan[1] << 32);
        const unsigned int last = plan[2];
        const unsigned int weight = plan[3];
        for (unsigned int row = start; row <= last; ++row) {
            attack[row * BLOCK] = __ldg(plan + 4 + row);
        }
        unsigned int cols = head.y;
        unsigned long long dl = right.x | ((unsigned long long)right.y << 32);
        unsigned long long dr = left.x | ((unsigned long long)left.y << 32);
        unsigned int d = start;
        unsigned int free = free_columns(cols, dl, dr, attack[d * BLOCK], board);
        unsigned long long found = 0;
        if (d == last) {
            found = __popc(free);
            free = 0;
        }
        unsigned int gap = (unsigned int)(gaps >> (2 * d)) & 3u;
        for (;;) {
            if (free) {
                const unsigned int bit = free & (0u - free);
                const unsigned int child_cols = cols | bit;
                const unsigned long long child_dl = (dl | bit) << gap;
                const unsigned long long child_dr = (dr | ((unsigned long long)bit << DR_OFFSET)) >> gap;
                const unsigned int child_free =
                    free_columns(child_cols, child_dl, child_dr, attack[(d + 1) * BLOCK], board);
                if (d + 1 == last) {
                    found += __popc(child_free);
                    free ^= bit;
                    continue;
                }
                // Look-ahead: the row after the child's must keep a free square.
                const unsigned int child_gap = (unsigned int)(gaps >> (2 * d + 2)) & 3u;
                const unsigned int ahead = free_columns(child_cols, child_dl << child_gap,
                                                        child_dr >> child_gap,
                                                        attack[(d + 2) * BLOCK], board);
                if (child_free == 0 || ahead == 0) {
                    free ^= bit;
                    continue;
                }
                my_stack[(d - start) * BLOCK] = free;
                cols = child_cols;
                dl = child_dl;
                dr = child_dr;
                free = child_free;
                gap = child_gap;
                ++d;
            } else {
                if (d == start) {
                    break;
                }
                --d;
                const unsigned int word = my_stack[(d - start) * BLOCK];
                const unsigned int bit = word & (0u - word);
                gap = (unsigned int)(gaps >> (2 * d)) & 3u;
                cols ^= bit;
                dl = (dl >> gap) ^ bit;
                dr = (dr << gap) ^ ((unsigned long long)bit << DR_OFFSET);
                free = word ^ bit;
            }
        }
        count += found * weight;
    }

    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        count += __shfl_down_sync(0xffffffffu, count, offset);
    }
    if ((threadIdx.x & 31u) == 0 && count != 0) {
        atomicAdd(total, count);
    }
}
