// thicket's N-Queens counter for NVIDIA GPUs (Hopper and newer, any NVRTC target).
//
// One persistent kernel. Every thread takes tasks through one global atomic counter and runs an
// iterative depth-first search of the inner rows of a border constellation. The profiler shows
// the loop bound by the integer pipe, so it is written to issue as few instructions as
// possible, with no branch inside a step:
// - every step first pops one level if the current one is exhausted, then tries the next queen
//   of the (possibly new) level: a push and the pop before the next sibling share one pass
//   (25% fewer passes than a step that either pushes or pops), and both are predicated, so the
//   lanes of a warp never split between a push path and a pop path;
// - 32-bit masks in registers: occupied columns, "\\" diagonals (shifted left a row down) and
//   "/" diagonals (shifted right). Lines pushed out of a word never come back onto the board
//   further down, and a pop reloads the level's masks, so no shift is ever undone;
// - four words a stack level in shared memory {untried columns with the queen being tried,
//   "\\", "/", table word of the next depth}, each word its own row of BLOCK lanes (no bank
//   conflicts) and read and written as scalars straight from and into the loop's registers,
//   so no register is shuffled to build a vector;
// - one table word a depth (per constellation, read through the read-only cache; the lanes of
//   a warp mostly share a constellation): the border queens' attacks on that row in the low
//   28 bits and the row gap from the previous depth above them (rows of side queens are
//   skipped, so depths are 1 to 3 rows apart). The words of the next two depths are kept in
//   registers;
// - the row before the last counts its children with one popcount, and a look-ahead drops a
//   queen whose next-but-one row has no free square.
//
// Task: uint4 {plan | depth << 24, columns, "\\", "/"}.
// Plan record (PLAN_WORDS words): [0] depth of the last row, [1] weight (class size, 8, 4 or
// 2), [2 + d] the table word of depth d.
// Dynamic shared memory: `levels` stack levels of BLOCK * 16 bytes.
// src/gpu/tasks.rs (Task::count) runs this loop on the CPU as the kernel's reference.

#define BLOCK 128
#define PLAN_WORDS 34
#define GAP_SHIFT 28
// Bytes between two words of one stack level, and between two levels.
#define WORD_STRIDE (BLOCK * 4)
#define LEVEL_STRIDE (BLOCK * 16)

// Stores one stack level when `p` holds; predicated, so no lane branches around it.
__device__ __forceinline__ void push_level_if(bool p, unsigned int address, unsigned int free,
                                              unsigned int ld, unsigned int rd, unsigned int next)
{
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0;\n\t"
                 "@p st.shared.u32 [%1], %2;\n\t"
                 "@p st.shared.u32 [%1+512], %3;\n\t"
                 "@p st.shared.u32 [%1+1024], %4;\n\t"
                 "@p st.shared.u32 [%1+1536], %5; }"
                 :: "r"((unsigned int)p), "r"(address), "r"(free), "r"(ld), "r"(rd), "r"(next)
                 : "memory");
}

// Loads one stack level straight into the loop's registers when `p` holds.
__device__ __forceinline__ void pop_level_if(bool p, unsigned int address, unsigned int& free,
                                             unsigned int& ld, unsigned int& rd,
                                             unsigned int& next)
{
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %4, 0;\n\t"
                 "@p ld.shared.u32 %0, [%5];\n\t"
                 "@p ld.shared.u32 %1, [%5+512];\n\t"
                 "@p ld.shared.u32 %2, [%5+1024];\n\t"
                 "@p ld.shared.u32 %3, [%5+1536]; }"
                 : "+r"(free), "+r"(ld), "+r"(rd), "+r"(next)
                 : "r"((unsigned int)p), "r"(address)
                 : "memory");
}

// Reads a table word when `p` holds (the value is unused otherwise).
__device__ __forceinline__ unsigned int table_word_if(bool p, const unsigned int* address)
{
    unsigned int word;
    asm("{ .reg .pred p; setp.ne.u32 p, %1, 0; @p ld.global.nc.u32 %0, [%2]; }"
        : "=r"(word)
        : "r"((unsigned int)p), "l"(address));
    return word;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
queens_count(const uint4* __restrict__ tasks, unsigned int task_count,
             const unsigned int* __restrict__ plans, unsigned int* __restrict__ next_task,
             unsigned long long* __restrict__ total, unsigned int board)
{
    static_assert(WORD_STRIDE == 512, "push_level_if and pop_level_if hard-code the stride");
    extern __shared__ unsigned int stack[];
    // Shared-memory byte address of this thread's first stack level.
    const unsigned int root = (unsigned int)__cvta_generic_to_shared(stack) + threadIdx.x * 4u;
    unsigned long long count = 0;
    // top: address of the next free level. word: index of the table word a push reads (three
    // depths below the current one). leaf_word: its value when the next depth is the last.
    unsigned int top = root, word = 0, leaf_word = 0, weight = 0;
    unsigned int cols = 0, ld = 0, rd = 0, free = 0;
    // The table words of the next two depths.
    unsigned int next = 0, after = 0;
    unsigned long long found = 0;
    for (;;) {
        // A lane whose task is done takes the next one at once, so that the lanes of a warp
        // never wait for the warp's longest task.
        if (free == 0 && top == root) {
            count += found * weight;
            found = 0;
            const unsigned int index = atomicAdd(next_task, 1u);
            if (index >= task_count) {
                break;
            }
            const uint4 task = tasks[index];
            const unsigned int plan = (task.x & 0xffffffu) * PLAN_WORDS;
            const unsigned int d = task.x >> 24;
            const unsigned int last = __ldg(plans + plan);
            weight = __ldg(plans + plan + 1);
            // Every word the loop reads lies inside the record: a push needs d + 1 < last, so
            // d + 3 <= last + 1 <= 27 < 32.
            word = plan + 2 + d + 3;
            leaf_word = plan + 2 + last + 2;
            next = __ldg(plans + word - 2);
            after = __ldg(plans + word - 1);
            cols = task.y;
            ld = task.z;
            rd = task.w;
            free = ~(cols | ld | rd | __ldg(plans + word - 3)) & board;
            if (d == last) {
                found = __popc(free);
                free = 0;
            }
            continue;
        }

        // Pop once if this level is exhausted; the saved columns still hold the queen that
        // was being tried, which the pop takes out.
        const bool pop = free == 0;
        after = pop ? next : after;
        pop_level_if(pop, top - LEVEL_STRIDE, free, ld, rd, next);
        const unsigned int tried = pop ? free & (0u - free) : 0u;
        cols ^= tried;
        free ^= tried;
        top = pop ? top - LEVEL_STRIDE : top;
        word = pop ? word - 1 : word;

        // Try the lowest untried column of the level (none when the popped level is done too).
        const unsigned int bit = free & (0u - free);
        const unsigned int gap = next >> GAP_SHIFT;
        const unsigned int child_cols = cols | bit;
        const unsigned int child_ld = (ld | bit) << gap;
        const unsigned int child_rd = (rd | bit) >> gap;
        const unsigned int child_free = ~(child_cols | child_ld | child_rd | next) & board;
        // Look-ahead: the row after the child's must keep a free square.
        const unsigned int after_gap = after >> GAP_SHIFT;
        const unsigned int ahead =
            ~(child_cols | (child_ld << after_gap) | (child_rd >> after_gap) | after) & board;
        const bool leaf = word == leaf_word;
        if (leaf && bit != 0) {
            found += __popc(child_free);
        }
        const bool push = bit != 0 && !leaf && child_free != 0 && ahead != 0;
        push_level_if(push, top, free, ld, rd, next);
        const unsigned int loaded = table_word_if(push, plans + word);
        cols = push ? child_cols : cols;
        ld = push ? child_ld : ld;
        rd = push ? child_rd : rd;
        free = push ? child_free : free ^ bit;
        next = push ? after : next;
        after = push ? loaded : after;
        top = push ? top + LEVEL_STRIDE : top;
        word = push ? word + 1 : word;
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
