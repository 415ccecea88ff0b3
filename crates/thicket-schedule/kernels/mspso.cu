// The thesis's multi-swarm PSO kernels (Solomon 2012, §6.4): structure of arrays,
// dimension-major within each swarm (element (s, p, d) at (s*T + d)*P + p), one thread per
// (swarm, particle, dimension) for the position update, one block per swarm (one thread per
// particle) for the fitness, the bests and the exchange ranking, bulk random numbers.
//
// The arithmetic is the CPU's (src/pso.rs) operation for operation, compiled with
// --fmad=false, so the GPU swarms and the serial swarms give the same schedules.
#include "thicket.cuh"

#ifndef MAX_PARTICLES
#error "MAX_PARTICLES must be defined by the host"
#endif

// SplitMix64's finaliser on a packed counter: pso.rs's random().
__device__ __forceinline__ float pso_random(u64 seed, u64 iteration, u64 index, u64 use) {
    u64 z = seed ^ (iteration * 0x9e3779b97f4a7c15ull) ^ (index * 0xd1b54a32d192ed03ull) ^
            (use * 0x8cb92ba72f3d8dd7ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

// Positions uniform in [0, xmax], velocities in [0, xmax / 2].
extern "C" __global__ void pso_init(float* x, float* v, u64 n, float xmax, u64 seed) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        x[i] = xmax * pso_random(seed, 0, i, 0);
        v[i] = 0.5f * xmax * pso_random(seed, 0, i, 1);
    }
}

// Bulk random numbers for `iterations` iterations from `first`: three per element and
// iteration (cognitive, social, repulsion), at ((it - first)*3 + k)*n + i.
extern "C" __global__ void pso_fill_random(float* rands, u64 n, u64 seed, u64 first, u64 iterations) {
    u64 total = 3 * n * iterations;
    for (u64 j = blockIdx.x * (u64)blockDim.x + threadIdx.x; j < total; j += (u64)gridDim.x * blockDim.x) {
        u64 i = j % n;
        u64 k = (j / n) % 3;
        u64 it = first + j / (3 * n);
        rands[j] = pso_random(seed, it, i, 2 + k);
    }
}

// Each thread's particle: the makespan of its rounded position, machine loads in a
// per-thread scratch of M floats in shared memory (Algorithm 11, with its typos fixed:
// the loop runs over tasks and the maximum is over the loads).
extern "C" __global__ void pso_fitness_shared(const float* __restrict__ x, const float* __restrict__ etc,
                                              float* fit, unsigned int tasks, unsigned int machines) {
    extern __shared__ float scratch[];
    unsigned int s = blockIdx.x, p = threadIdx.x, particles = blockDim.x;
    float* loads = scratch + p * machines;
    for (unsigned int m = 0; m < machines; ++m) loads[m] = 0.0f;
    float makespan = 0.0f;
    const float* mine = x + (u64)s * tasks * particles + p;
    for (unsigned int d = 0; d < tasks; ++d) {
        unsigned int m = (unsigned int)roundf(mine[(u64)d * particles]);
        float load = loads[m] + __ldg(etc + (u64)d * machines + m);
        loads[m] = load;
        makespan = fmaxf(makespan, load);
    }
    fit[s * particles + p] = makespan;
}

// The same with the scratch in global memory, machine-major over all particles so that a
// warp's loads of one machine are adjacent.
extern "C" __global__ void pso_fitness_global(const float* __restrict__ x, const float* __restrict__ etc,
                                              float* fit, float* scratch, unsigned int tasks,
                                              unsigned int machines, unsigned int all) {
    unsigned int s = blockIdx.x, p = threadIdx.x, particles = blockDim.x;
    unsigned int g = s * particles + p;
    for (unsigned int m = 0; m < machines; ++m) scratch[(u64)m * all + g] = 0.0f;
    float makespan = 0.0f;
    const float* mine = x + (u64)s * tasks * particles + p;
    for (unsigned int d = 0; d < tasks; ++d) {
        unsigned int m = (unsigned int)roundf(mine[(u64)d * particles]);
        u64 at = (u64)m * all + g;
        float load = scratch[at] + __ldg(etc + (u64)d * machines + m);
        scratch[at] = load;
        makespan = fmaxf(makespan, load);
    }
    fit[g] = makespan;
}

// (value, index) order: smaller value first, then the lower index.
__device__ __forceinline__ bool before(float a, unsigned int i, float b, unsigned int j) {
    return a < b || (a == b && i < j);
}
// Larger value first, then the lower index.
__device__ __forceinline__ bool after(float a, unsigned int i, float b, unsigned int j) {
    return a > b || (a == b && i < j);
}

// Personal bests, then a block min-reduction for the swarm's best, whose position the
// block's threads copy together.
extern "C" __global__ void pso_bests(const float* __restrict__ x, const float* __restrict__ fit, float* pbest,
                                     float* pbest_fit, float* gbest, float* gbest_fit, unsigned int tasks) {
    __shared__ float value[MAX_PARTICLES];
    __shared__ unsigned int index[MAX_PARTICLES];
    unsigned int s = blockIdx.x, p = threadIdx.x, particles = blockDim.x;
    unsigned int g = s * particles + p;
    float f = fit[g];
    if (f < pbest_fit[g]) {
        pbest_fit[g] = f;
        for (unsigned int d = 0; d < tasks; ++d) {
            u64 at = ((u64)s * tasks + d) * particles + p;
            pbest[at] = x[at];
        }
    }
    value[p] = pbest_fit[g];
    index[p] = p;
    __syncthreads();
    unsigned int width = 1;
    while (width < particles) width <<= 1;
    for (unsigned int half = width >> 1; half > 0; half >>= 1) {
        if (p < half && p + half < particles &&
            before(value[p + half], index[p + half], value[p], index[p])) {
            value[p] = value[p + half];
            index[p] = index[p + half];
        }
        __syncthreads();
    }
    float best = value[0];
    unsigned int who = index[0];
    float old = gbest_fit[s];
    __syncthreads();
    if (best < old) {
        for (unsigned int d = p; d < tasks; d += particles) {
            gbest[(u64)s * tasks + d] = pbest[((u64)s * tasks + d) * particles + who];
        }
        if (p == 0) gbest_fit[s] = best;
    }
}

// Eq. 6.1 (and 6.3 on every second swarm) and Eq. 6.2 for one (swarm, particle, dimension).
extern "C" __global__ void pso_update(float* x, float* v, const float* __restrict__ pbest,
                                      const float* __restrict__ gbest, const float* __restrict__ rands,
                                      u64 n, unsigned int swarms, unsigned int tasks, unsigned int particles,
                                      float w, float c1, float c2, float c3, float xmax) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        unsigned int s = (unsigned int)(i / ((u64)tasks * particles));
        unsigned int d = (unsigned int)((i / particles) % tasks);
        float xi = x[i];
        float g = gbest[(u64)s * tasks + d];
        float r0 = rands[i], r1 = rands[n + i], r2 = rands[2 * n + i];
        float vi = w * v[i] + c1 * r0 * (pbest[i] - xi) + c2 * r1 * (g - xi);
        if (swarms > 1 && (s & 1u)) {
            unsigned int foreign = (s + swarms - 1) % swarms;
            float f = gbest[(u64)foreign * tasks + d];
            vi += c3 * r2 * (xi - f);
        }
        vi = fminf(fmaxf(vi, -xmax), xmax);
        v[i] = vi;
        x[i] = fminf(fmaxf(xi + vi, 0.0f), xmax);
    }
}

// Algorithm 12: the n best and n worst particles of each swarm by n successive block
// reductions run side by side, each winner struck out before the next round.
extern "C" __global__ void pso_rank(const float* __restrict__ fit, unsigned int* best, unsigned int* worst,
                                    unsigned int exchanged) {
    __shared__ float fitness[MAX_PARTICLES];
    __shared__ unsigned char taken_best[MAX_PARTICLES], taken_worst[MAX_PARTICLES];
    __shared__ float bv[MAX_PARTICLES], wv[MAX_PARTICLES];
    __shared__ unsigned int bi[MAX_PARTICLES], wi[MAX_PARTICLES];
    unsigned int s = blockIdx.x, p = threadIdx.x, particles = blockDim.x;
    fitness[p] = fit[s * particles + p];
    taken_best[p] = 0;
    taken_worst[p] = 0;
    unsigned int width = 1;
    while (width < particles) width <<= 1;
    for (unsigned int k = 0; k < exchanged; ++k) {
        __syncthreads();
        bv[p] = taken_best[p] ? __int_as_float(0x7f800000) : fitness[p];
        bi[p] = taken_best[p] ? 0xffffffffu : p;
        wv[p] = taken_worst[p] ? __int_as_float(0xff800000) : fitness[p];
        wi[p] = taken_worst[p] ? 0xffffffffu : p;
        __syncthreads();
        for (unsigned int half = width >> 1; half > 0; half >>= 1) {
            if (p < half && p + half < particles) {
                if (before(bv[p + half], bi[p + half], bv[p], bi[p])) {
                    bv[p] = bv[p + half];
                    bi[p] = bi[p + half];
                }
                if (after(wv[p + half], wi[p + half], wv[p], wi[p])) {
                    wv[p] = wv[p + half];
                    wi[p] = wi[p + half];
                }
            }
            __syncthreads();
        }
        if (p == 0) {
            best[s * exchanged + k] = bi[0];
            worst[s * exchanged + k] = wi[0];
            taken_best[bi[0]] = 1;
            taken_worst[wi[0]] = 1;
        }
    }
}

// The exchange, in two steps so that every copy reads the state before any is written:
// gather each swarm's n best (position, velocity, personal best and its fitness) ...
extern "C" __global__ void pso_gather(const float* __restrict__ x, const float* __restrict__ v,
                                      const float* __restrict__ pbest, const float* __restrict__ pbest_fit,
                                      const unsigned int* __restrict__ best, float* moved, float* moved_fit,
                                      unsigned int swarms, unsigned int tasks, unsigned int particles,
                                      unsigned int exchanged) {
    u64 count = (u64)swarms * exchanged * tasks;
    for (u64 j = blockIdx.x * (u64)blockDim.x + threadIdx.x; j < count; j += (u64)gridDim.x * blockDim.x) {
        unsigned int d = (unsigned int)(j % tasks);
        u64 sk = j / tasks;
        unsigned int s = (unsigned int)(sk / exchanged);
        unsigned int p = best[sk];
        u64 from = ((u64)s * tasks + d) * particles + p;
        moved[j] = x[from];
        moved[count + j] = v[from];
        moved[2 * count + j] = pbest[from];
        if (d == 0) moved_fit[sk] = pbest_fit[(u64)s * particles + p];
    }
}

// ... then write them over the next swarm's n worst, round the ring.
extern "C" __global__ void pso_scatter(float* x, float* v, float* pbest, float* pbest_fit,
                                       const unsigned int* __restrict__ worst, const float* __restrict__ moved,
                                       const float* __restrict__ moved_fit, unsigned int swarms,
                                       unsigned int tasks, unsigned int particles, unsigned int exchanged) {
    u64 count = (u64)swarms * exchanged * tasks;
    for (u64 j = blockIdx.x * (u64)blockDim.x + threadIdx.x; j < count; j += (u64)gridDim.x * blockDim.x) {
        unsigned int d = (unsigned int)(j % tasks);
        u64 sk = j / tasks;
        unsigned int s = (unsigned int)(sk / exchanged), k = (unsigned int)(sk % exchanged);
        unsigned int to = (s + 1) % swarms;
        unsigned int p = worst[to * exchanged + k];
        u64 at = ((u64)to * tasks + d) * particles + p;
        x[at] = moved[j];
        v[at] = moved[count + j];
        pbest[at] = moved[2 * count + j];
        if (d == 0) pbest_fit[(u64)to * particles + p] = moved_fit[sk];
    }
}
