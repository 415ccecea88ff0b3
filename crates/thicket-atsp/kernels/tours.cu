// Many ATSP tours improved at once (src/gpu/tours.rs): one block per chain of an iterated local
// search whose moves keep every segment's orientation, so that no reversal has to be priced
// with asymmetric costs.
//
// The move (or-3opt, the segment swap) cuts the tour after a, after b and after c (in tour
// order, b at offset ob after a, c at oc, 0 < ob < oc < n) and puts S1 = a'..b and S2 = b'..c
// back swapped: new arcs a->b', c->a', b->c' (x' is the city after x). Or-opt (a segment of
// one to three cities moved elsewhere) is the case of a short S1 or S2. Moves are drawn from
// the host's neighbour lists (CANDIDATES successors and predecessors a city, most of them by
// the assignment's reduced costs): from an active city a, the new arc a->b' leaves a for a
// listed successor and must be cheaper than a->a'; c comes from a' 's predecessors (c->a') or
// c' from b's successors (b->c'), CANDIDATES x 2 CANDIDATES moves a city.
//
// A descent step takes up to BATCH active cities (don't-look bits kept as a bitset), evaluates
// all their moves at once (one thread a move, a block min-reduction), applies the best if it
// improves, and keeps active only the cities that had an improving move and the six ends of
// the move applied. A move rotates the shortest stretch of the order array that holds two of
// the three segments (three parallel reversals), and goes in a journal, so that a rejected
// kick is undone by the inverse rotations in the time its moves took. The kick, the double
// bridge, is a segment swap of two adjacent random segments of 1..KICK_SEGMENT cities. A kick
// is kept when the descent after it ends no dearer than the chain's best; that descent may not
// put back an arc the kick removed.
//
// Shared memory: the Chain record (static, at most CHAIN_BYTES), then (dynamic) the active
// bitset ((n + 31) / 32 words), the order and the position of every city (u16 each).
#include "thicket.cuh"

#if !defined(TOURS_THREADS) || !defined(TOURS_BLOCKS_PER_SM) || !defined(CANDIDATES) \
    || !defined(BATCH) || !defined(JOURNAL) || !defined(KICK_SEGMENT) || !defined(CHAIN_BYTES)
#error "tours.cu needs its block shape, list length and buffer sizes from the host"
#endif

#define TOURS_WARPS (TOURS_THREADS / 32)
#define THIRDS (2 * CANDIDATES)
#define PER_CITY (CANDIDATES * THIRDS)
#define NO_MOVE 0xffffffffffffffffull

typedef unsigned short city_t;

struct Chain {
    i64 cost;                  // the tour's cost
    i64 best_cost;             // its cost at the last commit
    u64 rng;                   // SplitMix64 state (thread 0)
    i64 warp_delta[TOURS_WARPS];
    u64 warp_move[TOURS_WARPS];
    i64 best_delta;            // the reduction's result
    u64 best_move;
    int batch_count;
    int journal_len;
    int rot_start, rot_x, rot_y;   // the rotation thread 0 planned
    int accept;
    int banned[6];             // (from, to) of the three arcs the kick removed
    city_t batch[BATCH];
    unsigned char improving[BATCH];
    city_t journal[JOURNAL][3];    // (start, x, y) of every rotation since the last commit
};

static_assert(sizeof(Chain) <= CHAIN_BYTES, "the host reserves CHAIN_BYTES for the Chain record");

__device__ __forceinline__ u64 tours_next(u64* state) {
    u64 z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// p in 0..2n to 0..n.
__device__ __forceinline__ int tours_wrap(int p, int n) {
    return p >= n ? p - n : p;
}

// How far after position pa position p comes along the tour.
__device__ __forceinline__ int tours_offset(int pa, int p, int n) {
    return p >= pa ? p - pa : p - pa + n;
}

__device__ __forceinline__ i64 tours_c(const int* cost, int n, int i, int j) {
    return (i64)cost[(size_t)i * n + j];
}

__device__ __forceinline__ u64 tours_pack(int a, int ob, int oc) {
    return ((u64)a << 32) | ((u64)ob << 16) | (u64)oc;
}

// The smaller (delta, move), the lower move on ties.
__device__ __forceinline__ void tours_keep(i64* d, u64* m, i64 od, u64 om) {
    if (od < *d || (od == *d && om < *m)) {
        *d = od;
        *m = om;
    }
}

// Block-wide minimum of (d, m) into s.best_delta, s.best_move, seen by every thread after.
__device__ void tours_block_min(Chain& s, i64 d, u64 m) {
    for (int off = 16; off > 0; off >>= 1) {
        i64 od = __shfl_down_sync(FULL_MASK, d, off);
        u64 om = __shfl_down_sync(FULL_MASK, m, off);
        tours_keep(&d, &m, od, om);
    }
    if ((threadIdx.x & 31) == 0) {
        s.warp_delta[threadIdx.x >> 5] = d;
        s.warp_move[threadIdx.x >> 5] = m;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < TOURS_WARPS; w++) {
            tours_keep(&d, &m, s.warp_delta[w], s.warp_move[w]);
        }
        s.best_delta = d;
        s.best_move = m;
    }
    __syncthreads();
}

// The tour's cost, for every thread.
__device__ i64 tours_cost(Chain& s, const int* cost, int n, const city_t* order) {
    i64 sum = 0;
    for (int p = threadIdx.x; p < n; p += TOURS_THREADS) {
        sum += tours_c(cost, n, order[p], order[tours_wrap(p + 1, n)]);
    }
    sum = (i64)warp_sum((u64)sum);
    if ((threadIdx.x & 31) == 0) {
        s.warp_delta[threadIdx.x >> 5] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        i64 total = 0;
        for (int w = 0; w < TOURS_WARPS; w++) {
            total += s.warp_delta[w];
        }
        s.cost = total;
    }
    __syncthreads();
    return s.cost;
}

// What the segment swap (a, ob, oc) changes the tour's cost by.
__device__ i64 tours_delta(const int* cost, int n, const city_t* order, const city_t* pos, int a,
                           int ob, int oc) {
    int pa = pos[a];
    int a1 = order[tours_wrap(pa + 1, n)];
    int b = order[tours_wrap(pa + ob, n)];
    int b1 = order[tours_wrap(pa + ob + 1, n)];
    int c = order[tours_wrap(pa + oc, n)];
    int c1 = order[tours_wrap(pa + oc + 1, n)];
    return tours_c(cost, n, a, b1) + tours_c(cost, n, c, a1) + tours_c(cost, n, b, c1)
        - tours_c(cost, n, a, a1) - tours_c(cost, n, b, b1) - tours_c(cost, n, c, c1);
}

// Reverses the `len` cities from position `from` (< n) on, cyclically.
__device__ void tours_reverse(city_t* order, int n, int from, int len) {
    for (int k = threadIdx.x; k < len / 2; k += TOURS_THREADS) {
        int p = tours_wrap(from + k, n);
        int q = tours_wrap(from + len - 1 - k, n);
        city_t t = order[p];
        order[p] = order[q];
        order[q] = t;
    }
    __syncthreads();
}

// The x cities from position `start` (< n) on and the y after them, A B, become B A
// (x + y <= n), positions updated. Every thread calls it.
__device__ void tours_rotate(city_t* order, city_t* pos, int n, int start, int x, int y) {
    tours_reverse(order, n, start, x);
    tours_reverse(order, n, tours_wrap(start + x, n), y);
    tours_reverse(order, n, start, x + y);
    for (int k = threadIdx.x; k < x + y; k += TOURS_THREADS) {
        int p = tours_wrap(start + k, n);
        pos[order[p]] = (city_t)p;
    }
    __syncthreads();
}

__device__ __forceinline__ void tours_activate(unsigned* active, int city) {
    atomicOr(&active[city >> 5], 1u << (city & 31));
}

// Applies the segment swap `move` of cost change `delta`: thread 0 plans the rotation of the
// shortest stretch holding two of the three segments, journals it where `journaling`, and
// activates the six ends; then every thread rotates. Every thread calls it.
__device__ void tours_apply(Chain& s, int n, city_t* order, city_t* pos, unsigned* active, i64 delta,
                            u64 move, bool journaling) {
    if (threadIdx.x == 0) {
        int a = (int)(move >> 32);
        int ob = (int)((move >> 16) & 0xffff);
        int oc = (int)(move & 0xffff);
        int pa = pos[a];
        int ends[6] = {pa, pa + 1, pa + ob, pa + ob + 1, pa + oc, pa + oc + 1};
        for (int e = 0; e < 6; e++) {
            tours_activate(active, order[tours_wrap(ends[e], n)]);
        }
        int l1 = ob, l2 = oc - ob, l3 = n - oc;
        int start, x, y;
        if (l1 + l2 <= l2 + l3 && l1 + l2 <= l3 + l1) {
            start = pa + 1, x = l1, y = l2;
        } else if (l2 + l3 <= l3 + l1) {
            start = pa + ob + 1, x = l2, y = l3;
        } else {
            start = pa + oc + 1, x = l3, y = l1;
        }
        start %= n;
        s.rot_start = start, s.rot_x = x, s.rot_y = y;
        if (journaling) {
            city_t* entry = s.journal[s.journal_len++];
            entry[0] = (city_t)start, entry[1] = (city_t)x, entry[2] = (city_t)y;
        }
        s.cost += delta;
    }
    __syncthreads();
    tours_rotate(order, pos, n, s.rot_start, s.rot_x, s.rot_y);
}

// Takes up to BATCH active cities into s.batch, clearing their bits.
__device__ void tours_collect(Chain& s, int n, unsigned* active) {
    if (threadIdx.x == 0) {
        s.batch_count = 0;
    }
    __syncthreads();
    int words = (n + 31) / 32;
    for (int w = threadIdx.x; w < words; w += TOURS_THREADS) {
        if (*(volatile int*)&s.batch_count >= BATCH) {
            break;
        }
        unsigned bits = active[w];
        unsigned keep = bits;
        while (bits) {
            int b = __ffs(bits) - 1;
            bits &= bits - 1;
            int slot = atomicAdd(&s.batch_count, 1);
            if (slot >= BATCH) {
                break;
            }
            s.batch[slot] = (city_t)(w * 32 + b);
            s.improving[slot] = 0;
            keep &= ~(1u << b);
        }
        active[w] = keep;
    }
    __syncthreads();
}

// Whether the arc i->j is one the kick removed.
__device__ __forceinline__ bool tours_banned(const Chain& s, int i, int j) {
    return (s.banned[0] == i && s.banned[1] == j) || (s.banned[2] == i && s.banned[3] == j)
        || (s.banned[4] == i && s.banned[5] == j);
}

// Improving moves until no active city has one (or, journaling, until the journal is full).
// Journaling (after a kick), no move may put back an arc the kick removed: a descent that
// takes the best move of a batch would otherwise undo nearly every kick at once.
__device__ void tours_descend(Chain& s, const int* cost, int n, const city_t* succ_near,
                              const city_t* pred_near, city_t* order, city_t* pos,
                              unsigned* active, bool journaling) {
    for (;;) {
        tours_collect(s, n, active);
        int count = min(s.batch_count, BATCH);
        if (count == 0) {
            return;
        }
        i64 best = 0;
        u64 best_move = NO_MOVE;
        for (int it = threadIdx.x; it < count * PER_CITY; it += TOURS_THREADS) {
            int slot = it / PER_CITY;
            int i = (it % PER_CITY) / THIRDS;
            int j = it % THIRDS;
            int a = s.batch[slot];
            int pa = pos[a];
            int a1 = order[tours_wrap(pa + 1, n)];
            int x = succ_near[a * CANDIDATES + i];
            i64 out_a = tours_c(cost, n, a, a1);
            i64 ax = tours_c(cost, n, a, x);
            int ox = tours_offset(pa, pos[x], n);
            if (ax >= out_a || ox < 2) {
                continue;
            }
            int ob = ox - 1;
            int b = order[tours_wrap(pa + ob, n)];
            int oc;
            if (j < CANDIDATES) {
                oc = tours_offset(pa, pos[pred_near[a1 * CANDIDATES + j]], n);
            } else {
                int oc1 = tours_offset(pa, pos[succ_near[b * CANDIDATES + j - CANDIDATES]], n);
                oc = oc1 == 0 ? n - 1 : oc1 - 1;
            }
            if (oc <= ob) {
                continue;
            }
            int c = order[tours_wrap(pa + oc, n)];
            int c1 = order[tours_wrap(pa + oc + 1, n)];
            i64 d = ax + tours_c(cost, n, c, a1) + tours_c(cost, n, b, c1) - out_a
                - tours_c(cost, n, b, x) - tours_c(cost, n, c, c1);
            bool banned = journaling
                && (tours_banned(s, a, x) || tours_banned(s, c, a1) || tours_banned(s, b, c1));
            if (d < 0 && !banned) {
                s.improving[slot] = 1;
                tours_keep(&best, &best_move, d, tours_pack(a, ob, oc));
            }
        }
        tours_block_min(s, best, best_move);
        for (int slot = threadIdx.x; slot < count; slot += TOURS_THREADS) {
            if (s.improving[slot]) {
                tours_activate(active, s.batch[slot]);
            }
        }
        if (s.best_delta >= 0) {
            continue;
        }
        if (journaling && s.journal_len >= JOURNAL) {
            return;
        }
        tours_apply(s, n, order, pos, active, s.best_delta, s.best_move, journaling);
    }
}

// Clears every active bit.
__device__ void tours_settle(int n, unsigned* active) {
    for (int w = threadIdx.x; w < (n + 31) / 32; w += TOURS_THREADS) {
        active[w] = 0;
    }
    __syncthreads();
}

// One launch of every chain: block k loads its tour from tours[k * n..], descends from every
// city first where `descend_all`, then makes `kicks` kicks, and stores its best tour and its
// cost (costs[k]); the kicks are added to *kicks_done.
// The host launches TOURS_BLOCKS_PER_SM chains a multiprocessor: registers are capped so
// that they are resident together.
extern "C" __global__ void __launch_bounds__(TOURS_THREADS, TOURS_BLOCKS_PER_SM)
tours_ils(const int* __restrict__ cost, int n, const city_t* __restrict__ succ_near,
          const city_t* __restrict__ pred_near, city_t* tours, i64* costs, int kicks,
          int descend_all, u64 seed, u64 launch, u64* kicks_done) {
    __shared__ Chain s;
    extern __shared__ unsigned tours_dynamic[];
    int words = (n + 31) / 32;
    unsigned* active = tours_dynamic;
    city_t* order = (city_t*)(tours_dynamic + words);
    city_t* pos = order + n;
    city_t* tour = tours + (size_t)blockIdx.x * n;

    for (int p = threadIdx.x; p < n; p += TOURS_THREADS) {
        city_t city = tour[p];
        order[p] = city;
        pos[city] = (city_t)p;
    }
    for (int w = threadIdx.x; w < words; w += TOURS_THREADS) {
        unsigned all = w == words - 1 && n % 32 != 0 ? (1u << (n % 32)) - 1u : 0xffffffffu;
        active[w] = descend_all ? all : 0u;
    }
    if (threadIdx.x == 0) {
        s.rng = seed ^ (0x9e3779b97f4a7c15ull * (u64)(blockIdx.x + 1))
            ^ (0xd1b54a32d192ed03ull * (launch + 1));
        s.journal_len = 0;
    }
    __syncthreads();
    tours_cost(s, cost, n, order);
    tours_descend(s, cost, n, succ_near, pred_near, order, pos, active, false);
    if (threadIdx.x == 0) {
        s.best_cost = s.cost;
    }
    __syncthreads();
    int longest = min(KICK_SEGMENT, (n - 2) / 2);
    for (int k = 0; k < kicks; k++) {
        if (threadIdx.x == 0) {
            s.journal_len = 0;
            int a = order[(int)(tours_next(&s.rng) % (u64)n)];
            int l1 = 1 + (int)(tours_next(&s.rng) % (u64)longest);
            int l2 = 1 + (int)(tours_next(&s.rng) % (u64)longest);
            int pa = pos[a];
            int cut[3] = {pa, pa + l1, pa + l1 + l2};
            for (int e = 0; e < 3; e++) {
                s.banned[2 * e] = order[tours_wrap(cut[e], n)];
                s.banned[2 * e + 1] = order[tours_wrap(cut[e] + 1, n)];
            }
            s.best_move = tours_pack(a, l1, l1 + l2);
            s.best_delta = tours_delta(cost, n, order, pos, a, l1, l1 + l2);
        }
        __syncthreads();
        tours_apply(s, n, order, pos, active, s.best_delta, s.best_move, true);
        tours_descend(s, cost, n, succ_near, pred_near, order, pos, active, true);
        if (threadIdx.x == 0) {
            s.accept = s.cost <= s.best_cost;
            if (s.accept) {
                s.best_cost = s.cost;
            }
        }
        __syncthreads();
        if (!s.accept) {
            for (int e = s.journal_len - 1; e >= 0; e--) {
                city_t* entry = s.journal[e];
                tours_rotate(order, pos, n, entry[0], entry[2], entry[1]);
            }
            if (threadIdx.x == 0) {
                s.cost = s.best_cost;
            }
        }
        tours_settle(n, active);
    }
    for (int p = threadIdx.x; p < n; p += TOURS_THREADS) {
        tour[p] = order[p];
    }
    if (threadIdx.x == 0) {
        costs[blockIdx.x] = s.best_cost;
        atomicAdd(kicks_done, (u64)kicks);
    }
}

// Every chain but `from` whose cost is above `limit` restarts from chain `from`'s tour.
extern "C" __global__ void __launch_bounds__(TOURS_THREADS)
tours_restart(city_t* tours, i64* costs, int n, int from, i64 limit) {
    bool copy = (int)blockIdx.x != from && costs[blockIdx.x] > limit;
    __syncthreads();
    if (!copy) {
        return;
    }
    const city_t* source = tours + (size_t)from * n;
    city_t* target = tours + (size_t)blockIdx.x * n;
    for (int p = threadIdx.x; p < n; p += TOURS_THREADS) {
        target[p] = source[p];
    }
    if (threadIdx.x == 0) {
        costs[blockIdx.x] = costs[from];
    }
}
