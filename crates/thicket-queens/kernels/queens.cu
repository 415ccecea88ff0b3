// thicket's N-Queens counter for NVIDIA GPUs (Hopper and newer, any NVRTC target).
//
// One persistent kernel. Every thread takes tasks through one global atomic counter and runs an
// iterative depth-first search of the inner rows of a border constellation. The loop is kept
// as short as possible, since the lanes of a warp step through it together:
// - 32-bit masks in registers: occupied columns, "\\" diagonals (shifted left a row down) and
//   "/" diagonals (shifted right). Lines pushed out of a word never come back onto the board
//   further down, and a pop reloads the level's masks, so no shift is ever undone;
// - one 16-byte stack entry a level in shared memory {untried columns with the queen being
//   tried, "\\", "/", table word of the next depth}, level-major with the thread as the
//   fastest axis: one 128-bit store a push and one 128-bit load a pop, the 32 lanes of a warp
//   on consecutive entries (no bank conflicts); columns are restored by taking the queen out;
// - one table word a depth (per constellation, read through the read-only cache; the lanes of
//   a warp mostly share a constellation): the border queens' attacks on that row in the low
//   28 bits and the row gap from the previous depth above them (rows of side queens are
//   skipped, so depths are 1 to 3 rows apart). The words of the next two depths are kept in
//   registers, so no step waits for a load;
// - the row before the last counts its children with one popcount, and a look-ahead drops a
//   queen whose next-but-one row has no free square.
//
// Task: uint4 {plan | depth << 24, columns, "\\", "/"}.
// Plan record (PLAN_WORDS words): [0] depth of the last row, [1] weight (class size, 8, 4 or
// 2), [2 + d] the table word of depth d.
// Dynamic shared memory: `levels` stack entries a thread.
// src/gpu/tasks.rs (Task::count) runs this loop on the CPU as the kernel's reference.

#define BLOCK 128
#define PLAN_WORDS 34
#define GAP_SHIFT 28

extern "C" __global__ void __launch_bounds__(BLOCK)
queens_count(const uint4* __restrict__ tasks, unsigned int task_count,
             const unsigned int* __restrict__ plans, unsigned int* __restrict__ next_task,
             unsigned long long* __restrict__ total, unsigned int board)
{
    extern __shared__ uint4 stack[];
    uint4* const my_stack = stack + threadIdx.x;
    unsigned long long count = 0;

    // A lane whose task is done takes the next one at once, inside the search loop, so that
    // the lanes of a warp never wait for the warp's longest task.
    unsigned int d = 0, start = 0, last = 0, weight = 0;
    unsigned int cols = 0, ld = 0, rd = 0, free = 0;
    // The table words of the next two depths stay in registers: the loop body then waits on
    // no load, and a push fetches one word that is needed only a few steps later.
    unsigned int next = 0, after = 0;
    unsigned long long found = 0;
    const unsigned int* row = plans;
    uint4* top = my_stack;
    for (;;) {
        if (free) {
            const unsigned int bit = free & (0u - free);
            const unsigned int gap = next >> GAP_SHIFT;
            const unsigned int child_cols = cols | bit;
            const unsigned int child_ld = (ld | bit) << gap;
            const unsigned int child_rd = (rd | bit) >> gap;
            const unsigned int child_free = ~(child_cols | child_ld | child_rd | next) & board;
            if (d + 1 == last) {
                found += __popc(child_free);
                free ^= bit;
                continue;
            }
            // Look-ahead: the row after the child's must keep a free square.
            const unsigned int after_gap = after >> GAP_SHIFT;
            const unsigned int ahead =
                ~(child_cols | (child_ld << after_gap) | (child_rd >> after_gap) | after) & board;
            if (child_free == 0 || ahead == 0) {
                free ^= bit;
                continue;
            }
            // The saved columns still hold the queen being tried: a pop takes it out again.
            *top = make_uint4(free, ld, rd, next);
            top += BLOCK;
            cols = child_cols;
            ld = child_ld;
            rd = child_rd;
            free = child_free;
            next = after;
            after = __ldg(row + 3);
            ++row;
            ++d;
        } else if (d != start) {
            --d;
            --row;
            top -= BLOCK;
            const uint4 saved = *top;
            const unsigned int bit = saved.x & (0u - saved.x);
            free = saved.x ^ bit;
            cols ^= bit;
            ld = saved.y;
            rd = saved.z;
            after = next;
            next = saved.w;
        } else {
            count += found * weight;
            found = 0;
            const unsigned int index = atomicAdd(next_task, 1u);
            if (index >= task_count) {
                break;
            }
            const uint4 task = tasks[index];
            const unsigned int* const plan = plans + (task.x & 0xffffffu) * PLAN_WORDS;
            start = task.x >> 24;
            d = start;
            last = __ldg(plan);
            weight = __ldg(plan + 1);
            // The table word of depth d; the words up to depth d + 3 are inside the record
            // wherever the loop reads them (a push needs d + 1 < last <= 26).
            row = plan + 2 + d;
            next = __ldg(row + 1);
            after = __ldg(row + 2);
            cols = task.y;
            ld = task.z;
            rd = task.w;
            free = ~(cols | ld | rd | __ldg(row)) & board;
            if (d == last) {
                found = __popc(free);
                free = 0;
            }
        }
    }

    // Lanes leave the loop one by one; gather the warp again for the reduction.
    __syncwarp();
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        count += __shfl_down_sync(0xffffffffu, count, offset);
    }
    if ((threadIdx.x & 31u) == 0 && count != 0) {
        atomicAdd(total, count);
    }
}
