// thicket's N-Queens counter for NVIDIA GPUs (Hopper and newer, any NVRTC target).
//
// One persistent kernel. Every thread takes tasks through one global atomic counter and runs an
// iterative depth-first search of the inner rows of a border constellation. Nsight Compute
// shows the loop bound by instruction issue, the integer ALU pipe and the shared-memory pipe
// at once, so it is written to issue as few instructions as possible, with no branch inside
// a pass:
// - every pass first pops if the current level is exhausted, then tries the next queen of
//   the (possibly new) level and moves to its child; pop and push are predicated, so the
//   lanes of a warp never split between them;
// - a level is stored whenever it keeps untried columns, linked to the stored level below
//   it, so a pop goes straight to a level with a queen left to try and no pass is spent on
//   popping alone (a quarter of all passes before; docs/queens.md has the gain). The
//   link (a level index) rides in the low bits of the stored "/" word, below the columns,
//   where right shifts only ever move it further out of the board;
// - the pass always moves to the child, and a dead child (no free square in its row, or none
//   in the row after) gets no column to try, so the next pass pops. Storing the level
//   whether or not the child lives costs no instruction (the stores are predicated either
//   way) and spares the selects between the level's registers and the child's;
// - 32-bit masks in registers: occupied columns, "\\" diagonals (shifted left a row down) and
//   "/" diagonals (shifted right). Board columns sit at bits COLUMN_SHIFT.. and every table
//   word keeps its row gap in the bits below them, so one wrapping funnel shift moves a mask
//   down by the gap read straight from the word. Lines pushed out of the board never come back
//   further down, and a pop reloads the level's masks, so no shift is ever undone;
// - a stack level in shared memory is a row of BLOCK table words, the table word of the
//   level's next depth, written once when the task starts, and then BLOCK groups of four words
//   {untried columns, columns, "\\", "/" with the link}, stored by a push and loaded by a pop as
//   one 128-bit access straight from and into the loop's registers (a warp's access is 512
//   consecutive bytes: four wavefronts, no bank conflict, one instruction instead of four).
//   Every pass reads the table words of its level and the next one after the pop, so a pop
//   loads only the four words and moving to a child nothing. The table word comes first so
//   that the level past the last, which holds only the sentinel's, takes one row of shared
//   memory rather than five;
// - table words: the border queens' attacks on the depth's row and the row gap from the
//   depth above (side-queen rows are skipped, so depths are 1 to 3 rows apart). Past the last
//   depth the task writes a sentinel that attacks every column and carries the flag LEAF:
//   the look-ahead of the row before the last then always fails, and that row counts its
//   children with one popcount, times the flag, in one multiply-add (counts are kept times 4);
// - the look-ahead drops a queen whose next-but-one row has no free square.
//
// Task: uint4 {plan | depth << 24, columns, "\\", "/"} (columns at bit 0).
// `handed_out`, unless null: a word of mapped host memory that gets a task index now and then.
// Plan record (PLAN_WORDS words): [0] depth of the last row, [1] weight (class size, 8, 4 or
// 2), [2 + d] the table word of depth d: attacks in bits 0..GAP_SHIFT, the gap above.
// Dynamic shared memory: `levels` stack levels of BLOCK * 20 bytes, `levels` being the most
// rows a task fills, and one row of BLOCK words for the sentinel past them.
// src/gpu/tasks.rs (Task::count) runs this loop on the CPU as the kernel's reference.

#include "thicket.cuh"

// Defined by the host (thicket-queens src/kernels.rs), which sizes launches and records with
// the same values.
#if !defined(BLOCK) || !defined(STACK_ENTRY_BYTES) || !defined(PLAN_WORDS) || !defined(GAP_SHIFT)
#error "queens.cu needs BLOCK, STACK_ENTRY_BYTES, PLAN_WORDS and GAP_SHIFT from the host"
#endif
// Where board columns start in the kernel's masks: a funnel shift reads its count from the
// low 5 bits of a word, so boards up to 27 columns fit above them.
#define COLUMN_SHIFT 5
// The sentinel table word's flag: no gap has this bit, and counts are kept times LEAF.
#define LEAF 4u
// Bytes of a level's table-word row (its four words follow), and between two levels.
#define TABLE_ROW (BLOCK * 4)
#define LEVEL_STRIDE (BLOCK * STACK_ENTRY_BYTES)
// Tasks between two progress stores (a power of two): N = 21 stores 6,000 times in 9 s.
#define PROGRESS_STRIDE 4096u
// The low bits of a stored "/" word (below the columns) link to the stored level below it.
#define LINK_MASK 31u
// The link of the bottom stored level of a task: nothing below it.
#define NONE 31u

// Stores one stack level's four words, at `address` past its table-word row, when `p` holds;
// predicated, so no lane branches. The level's registers pass through the statement, so the
// child's values, computed after it, can take their registers instead of new ones that would
// have to be copied back.
__device__ __forceinline__ void push_level_if(bool p, unsigned int address, unsigned int free,
                                              unsigned int& cols, unsigned int& ld,
                                              unsigned int& rd, unsigned int linked_rd)
{
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0;\n\t"
                 "@p st.shared.v4.u32 [%4+512], {%5, %0, %1, %6}; }"
                 : "+r"(cols), "+r"(ld), "+r"(rd)
                 : "r"((unsigned int)p), "r"(address), "r"(free), "r"(linked_rd)
                 : "memory");
}

// Loads one stack level's four words, at `address` past its table-word row, straight into the
// loop's registers when `p` holds.
__device__ __forceinline__ void pop_level_if(bool p, unsigned int address, unsigned int& free,
                                             unsigned int& cols, unsigned int& ld,
                                             unsigned int& rd)
{
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %4, 0;\n\t"
                 "@p ld.shared.v4.u32 {%0, %1, %2, %3}, [%5+512]; }"
                 : "+r"(free), "+r"(cols), "+r"(ld), "+r"(rd)
                 : "r"((unsigned int)p), "r"(address)
                 : "memory");
}

// The word at shared-memory byte address `address`. The loop reads its table words through
// this rather than through `table_words`, whose indexing costs four more instructions a pass
// (generic-pointer arithmetic the shared address avoids).
__device__ __forceinline__ unsigned int shared_word(unsigned int address)
{
    unsigned int word;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(word) : "r"(address) : "memory");
    return word;
}

// `x` moved down by the gap in the low bits of table word `word`: "\\" lines move left...
__device__ __forceinline__ unsigned int down_left(unsigned int x, unsigned int word)
{
    return __funnelshift_l(0u, x, word);
}

// ...and "/" lines right (the bits that leave the board fall below it and are masked off).
__device__ __forceinline__ unsigned int down_right(unsigned int x, unsigned int word)
{
    return __funnelshift_r(x, 0u, word);
}

// A plan's table word in the kernel's layout: attacks moved up to the columns, gap below.
__device__ __forceinline__ unsigned int kernel_table_word(unsigned int word)
{
    return (word & ((1u << GAP_SHIFT) - 1)) << COLUMN_SHIFT | word >> GAP_SHIFT;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
queens_count(const uint4* __restrict__ tasks, unsigned int task_count,
             const unsigned int* __restrict__ plans, unsigned int* __restrict__ next_task,
             unsigned long long* __restrict__ total, unsigned int columns,
             unsigned int* handed_out)
{
    static_assert(TABLE_ROW == 512 && LEVEL_STRIDE == 2560,
                  "the stack helpers hard-code the strides");
    extern __shared__ unsigned int stack[];
    const unsigned int board = columns << COLUMN_SHIFT;
    // Shared-memory byte address of this thread's first stack level, and its table words.
    const unsigned int root = (unsigned int)__cvta_generic_to_shared(stack) + threadIdx.x * 4u;
    unsigned int* const table_words = stack + threadIdx.x;
    // ...and of its four words in the first level (16 bytes a lane, past the table-word row).
    const unsigned int quad_root = root + threadIdx.x * 12u;
    unsigned long long count = 0;
    // level: the current level's index; below: the stored level a pop returns to.
    unsigned int level = 0, below = NONE, weight = 0;
    unsigned int cols = 0, ld = 0, rd = 0, free = 0;
    // Solutions of the current task, times LEAF.
    unsigned long long found = 0;
    for (;;) {
        // A lane whose task is done takes the next one at once.
        if (free == 0 && below == NONE) {
            count += found / LEAF * weight;
            found = 0;
            // System scope: the counter may live on another GPU (one queue for all of them).
            const unsigned int index = atomicAdd_system(next_task, 1u);
            if (index >= task_count) {
                break;
            }
            // Every PROGRESS_STRIDE-th task tells the host how far the list has been handed
            // out, with a store to mapped host memory that it reads while the kernel runs.
            if (handed_out != nullptr && (index & (PROGRESS_STRIDE - 1)) == 0) {
                *(volatile unsigned int*)handed_out = index;
            }
            const uint4 task = tasks[index];
            const unsigned int* plan = plans + (task.x & 0xffffffu) * PLAN_WORDS;
            const unsigned int d = task.x >> 24;
            const unsigned int last = __ldg(plan);
            weight = __ldg(plan + 1);
            const unsigned int* table = plan + 2;
            // Level k's table word is that of depth d + 1 + k; the host sizes the stack for
            // the sentinel at depth last + 1.
            for (unsigned int k = 0; d + 1 + k <= last; ++k) {
                table_words[k * (LEVEL_STRIDE / 4)] = kernel_table_word(__ldg(table + d + 1 + k));
            }
            table_words[(last - d) * (LEVEL_STRIDE / 4)] = board | LEAF;
            level = 0;
            cols = task.y << COLUMN_SHIFT;
            ld = task.z << COLUMN_SHIFT;
            rd = task.w << COLUMN_SHIFT;
            free = ~(cols | ld | rd | kernel_table_word(__ldg(table + d))) & board;
            if (d == last) {
                found = __popc(free) * LEAF;
                free = 0;
            }
            continue;
        }

        // Pop if this level is exhausted: straight to the last stored level, which always
        // has untried columns (a level is stored only then), so every pass tries a queen.
        const bool pop = free == 0;
        pop_level_if(pop, quad_root + below * LEVEL_STRIDE, free, cols, ld, rd);
        level = pop ? below : level;
        below = pop ? rd & LINK_MASK : below;
        // The level's address, and the table words of its next two depths.
        const unsigned int here = root + level * LEVEL_STRIDE;
        const unsigned int next = shared_word(here);
        const unsigned int after = shared_word(here + LEVEL_STRIDE);

        // Try the lowest untried column of the level, storing the level first if a column is
        // left in it.
        const unsigned int bit = free & (0u - free);
        const unsigned int rest = free - bit;
        const bool keep = rest != 0;
        push_level_if(keep, quad_root + level * LEVEL_STRIDE, rest, cols, ld, rd,
                      (rd & ~LINK_MASK) | below);
        below = keep ? level : below;
        level += 1;
        // The queen is on none of the level's lines, so adding it sets its bit like an OR
        // would, but on the FMA pipe (IMAD), which the loop leaves idle.
        const unsigned int child_cols = cols + bit;
        const unsigned int child_ld = down_left(ld + bit, next);
        const unsigned int child_rd = down_right(rd + bit, next);
        const unsigned int child_free = ~(child_cols | child_ld | child_rd | next) & board;
        // Look-ahead: the row after the child's must keep a free square (never, past the last).
        const unsigned int ahead =
            ~(child_cols | down_left(child_ld, after) | down_right(child_rd, after) | after) &
            board;
        // Only the row before the last has the sentinel two depths down.
        found += (unsigned long long)__popc(child_free) * (after & LEAF);
        // Move to the child; it tries nothing if it is dead.
        cols = child_cols;
        ld = child_ld;
        rd = child_rd;
        free = ahead != 0 ? child_free : 0;
    }

    // Lanes leave the loop one by one; gather the warp again for the reduction.
    __syncwarp();
    add_per_warp(total, count);
}
