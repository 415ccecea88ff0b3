// thicket's N-Queens counter for NVIDIA GPUs: one persistent kernel, one task per thread at a
// time, an iterative depth-first search with its stack in shared memory.
//
// A task (six words, see src/gpu/tasks.rs) is a board with the border queens and the first
// inner rows filled. Diagonals are kept in absolute form (bit row+col and bit col-row+n-1 of
// two 64-bit words), so placing and removing a queen are the same XOR and a stack level needs
// one word: the free columns of that row not yet tried, the one being tried included.

#define BLOCK 128

// Low word of (hi:lo) >> s for s < 32: the attacks on one row from a 64-bit diagonal mask.
__device__ __forceinline__ unsigned int lines_at(unsigned int lo, unsigned int hi, unsigned int s)
{
    return __funnelshift_r(lo, hi, s);
}

// The next row to fill after `row`, skipping the rows of the side queens.
__device__ __forceinline__ unsigned int next_row(unsigned int row, unsigned int skip_low,
                                                 unsigned int skip_high)
{
    unsigned int r = row + 1;
    r += (r == skip_low);
    r += (r == skip_high);
    return r;
}

__device__ __forceinline__ unsigned int prev_row(unsigned int row, unsigned int skip_low,
                                                 unsigned int skip_high)
{
    unsigned int r = row - 1;
    r -= (r == skip_high);
    r -= (r == skip_low);
    return r;
}

// Counts the solutions below tasks[0..task_count) into *total. Threads take tasks one at a
// time through *next_task (one atomic per warp for all its idle lanes), so a lane that
// finishes early starts a new task instead of waiting for the rest of its warp.
// The lanes of a warp stay in step: every turn of the loop is one search step for each busy
// lane (place, count a last-row popcount, or take a queen back), and the ballot at the top
// makes the warp reconverge there, so divergent lanes cost at most one step's branches.
// Dynamic shared memory: `levels * BLOCK` words, level-major so that the 32 lanes of a warp
// touch 32 consecutive words (no bank conflicts).
extern "C" __global__ void __launch_bounds__(BLOCK)
queens_count(const unsigned int* __restrict__ tasks, unsigned int task_count,
             unsigned int* __restrict__ next_task, unsigned long long* __restrict__ total,
             unsigned int n)
{
    extern __shared__ unsigned int stack[];
    unsigned int* const my_stack = stack + threadIdx.x;
    const unsigned int board = n == 32 ? 0xffffffffu : (1u << n) - 1u;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int lanes_below = (1u << lane) - 1u;
    unsigned long long count = 0;

    unsigned int cols = 0, dl_lo = 0, dl_hi = 0, dr_lo = 0, dr_hi = 0;
    unsigned int row = 0, next = 0, last = 0, skip_low = 0, skip_high = 0;
    unsigned int free = 0, attacked = 0, gap = 0;
    unsigned int depth = 0;
    bool busy = false;
    bool exhausted = false;

    for (;;) {
        const unsigned int idle = __ballot_sync(0xffffffffu, !busy);
        if (idle != 0u && !exhausted) {
            const unsigned int leader = __ffs(idle) - 1;
            unsigned int base = 0;
            if (lane == leader) {
                base = atomicAdd(next_task, __popc(idle));
            }
            base = __shfl_sync(0xffffffffu, base, leader);
            exhausted = base + __popc(idle) >= task_count;
            const unsigned int index = base + __popc(idle & lanes_below);
            if (!busy && index < task_count) {
                const unsigned int* task = tasks + 6ull * index;
                cols = task[0];
                dl_lo = task[1];
                dl_hi = task[2];
                dr_lo = task[3];
                dr_hi = task[4];
                const unsigned int meta = task[5];
                row = meta & 31u;
                skip_low = (meta >> 5) & 31u;
                skip_high = (meta >> 10) & 31u;
                last = (meta >> 15) & 31u;
                free = ~(cols | lines_at(dl_lo, dl_hi, row) | lines_at(dr_lo, dr_hi, n - 1 - row)) & board;
                if (row == last) {
                    count += __popc(free);
                } else {
                    next = next_row(row, skip_low, skip_high);
                    gap = next - row;
                    attacked = cols | lines_at(dl_lo, dl_hi, next) | lines_at(dr_lo, dr_hi, n - 1 - next);
                    depth = 0;
                    busy = true;
                }
            }
        } else if (exhausted && idle == 0xffffffffu) {
            break;
        }
        if (!busy) {
            continue;
        }
        // Placing a queen and taking one back end alike (toggle one queen, then look at the
        // row below the new current row), so both share that tail and a warp whose lanes
        // split between them runs it once.
        unsigned int toggle_bit = 0, toggle_row = 0, new_row = 0, new_free = 0;
        bool move = false;
        if (free) {
            const unsigned int bit = free & (0u - free);
            const unsigned int child = ~(attacked | bit | (bit >> gap) | (bit << gap)) & board;
            if (next == last) {
                // The row below is the last: this queen leaves a popcount there.
                count += __popc(child);
            } else if (child) {
                my_stack[depth * BLOCK] = free;
                ++depth;
                move = true;
                toggle_bit = bit;
                toggle_row = row;
                new_row = next;
                new_free = child;
            }
            free ^= bit;
        } else if (depth == 0) {
            busy = false;
        } else {
            --depth;
            const unsigned int tried = my_stack[depth * BLOCK];
            move = true;
            toggle_bit = tried & (0u - tried);
            toggle_row = prev_row(row, skip_low, skip_high);
            new_row = toggle_row;
            new_free = tried ^ toggle_bit;
        }
        if (move) {
            const unsigned int mirror = n - 1 - toggle_row;
            cols ^= toggle_bit;
            dl_lo ^= toggle_bit << toggle_row;
            dl_hi ^= __funnelshift_l(toggle_bit, 0u, toggle_row);
            dr_lo ^= toggle_bit << mirror;
            dr_hi ^= __funnelshift_l(toggle_bit, 0u, mirror);
            row = new_row;
            free = new_free;
            next = next_row(row, skip_low, skip_high);
            gap = next - row;
            attacked = cols | lines_at(dl_lo, dl_hi, next) | lines_at(dr_lo, dr_hi, n - 1 - next);
        }
    }

    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        count += __shfl_down_sync(0xffffffffu, count, offset);
    }
    if (lane == 0 && count != 0) {
        atomicAdd(total, count);
    }
}
