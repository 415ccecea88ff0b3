// Binomial lattices on the GPU (Solomon 2012, ch. 3; Hull, Technical Note 13; Cox-Ross-
// Rubinstein): the thesis's per-layer kernel, and thicket's tile kernel that advances many
// layers per launch with the values in registers.
//
// Host defines: TILE_THREADS (threads per block of the tile kernel), PARAM_DOUBLES (doubles per
// option in the parameter array), the offsets P_* of the parameters in it and the kinds
// KIND_LOOKBACK and KIND_VANILLA.
#include "thicket.cuh"

#if !defined(TILE_THREADS) || !defined(PARAM_DOUBLES) || !defined(KIND_VANILLA)
#error "lattice.cu needs the host's defines (TILE_THREADS, PARAM_DOUBLES, P_*)"
#endif

#define FULL_MASK 0xffffffffu

// ---------------------------------------------------------------------------------------------
// The thesis's kernel (Algorithm 1): one launch per layer, one thread per node, the values of
// the layer below staged through shared memory with one halo value at each end of the block,
// y = u^j computed per thread, the lookback put in Hull's Y = G/S form:
//   C[i][j] = max(u^j - 1, pu*d*C[i+1][j+1] + pd*u*C[i+1][j-1]),  j >= 1
//   C[i][0] = max(0,       pu*d*C[i+1][1]   + pd*u*C[i+1][0])
// with pu = disc*(1-p), pd = disc*p (the discount folded in, as the thesis's code does).
// `count` is the number of nodes of the layer computed (i + 1); `american` = 0 drops the max.
template <typename real>
__device__ void thesis_layer(const real* in, real* out, int count, real u, real d, real pu,
                             real pd, int american, real* staged) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int x = threadIdx.x + 1;
    // The layer below has count + 1 nodes: every read below it is in range.
    if (j <= count) {
        staged[x] = in[j];
    }
    if (threadIdx.x == 0) {
        staged[0] = j > 0 ? in[j - 1] : in[0];
    }
    if (threadIdx.x == blockDim.x - 1 || j == count - 1) {
        staged[x + 1] = in[min(j + 1, count)];
    }
    __syncthreads();
    if (j >= count) {
        return;
    }
    real y = pow(u, (real)j);
    real below = j == 0 ? staged[x] : staged[x - 1];
    real held = pu * staged[x + 1] * d + pd * below * u;
    real exercise = j == 0 ? (real)0 : y - (real)1;
    out[j] = american ? max(exercise, held) : held;
}

extern "C" __global__ void thesis_layer_f32(const float* in, float* out, int count, float u,
                                            float d, float pu, float pd, int american) {
    extern __shared__ float staged_f32[];
    thesis_layer<float>(in, out, count, u, d, pu, pd, american, staged_f32);
}

extern "C" __global__ void thesis_layer_f64(const double* in, double* out, int count, double u,
                                            double d, double pu, double pd, int american) {
    extern __shared__ double staged_f64[];
    thesis_layer<double>(in, out, count, u, d, pu, pd, american, staged_f64);
}

// ---------------------------------------------------------------------------------------------
// thicket's tile kernel. A block holds TILE_THREADS * R consecutive nodes of one layer, R per
// thread in registers, and advances them `steps` layers: neighbours within a warp come by
// shuffle, across warps through a double-buffered word in shared memory, one barrier per layer.
// Tiles overlap by `halo` nodes at each side, so a launch needs nothing from other blocks; a
// warp whose nodes all lie above the top of the lattice skips its arithmetic.
//
// The units are those of the CPU lattices (thicket-lattice's cpu.rs): every value stays near
// [0, 1] at any N (no u^j is formed) and the two weights of a node sum to exactly 1 in the
// working precision. Node (i, j) is
//   lookbacks: up*old[j+1] + down*old[j-1]  (j = 0: up*old[1] + edge*old[0])
//   vanillas:  up*old[j+1] + down*old[j]
// maximised, if American, with exercise*g_i, where g_i = exp(growth*(N-i)) and the exercise
// value is 1 - d^j (lookbacks) or max(0, 1 - x) with x = exp(x_log + x_sign*(2j-i)*ln u)
// (vanillas). Every option is one record of PARAM_DOUBLES doubles at the P_* offsets.

struct Option {
    double up, down, edge, growth, log_u, x_log, x_sign;
    int steps, kind, american;
};

__device__ __forceinline__ Option load_option(const double* params, int index) {
    const double* p = params + (long long)index * PARAM_DOUBLES;
    Option o;
    o.up = p[P_UP];
    o.down = p[P_DOWN];
    o.edge = p[P_EDGE];
    o.growth = p[P_GROWTH];
    o.log_u = p[P_LOG_U];
    o.x_log = p[P_X_LOG];
    o.x_sign = p[P_X_SIGN];
    o.steps = (int)p[P_STEPS];
    o.kind = (int)p[P_KIND];
    o.american = (int)p[P_AMERICAN];
    return o;
}

// A lookback's exercise value at node j before the layer's factor: 1 - d^j.
__device__ __forceinline__ double below_extreme(const Option& o, long long j) {
    return j <= 0 ? 0.0 : -expm1(-(double)j * o.log_u);
}

// A vanilla's x at node j of layer i (its exercise value is max(0, 1 - x) before the factor).
__device__ __forceinline__ double vanilla_x(const Option& o, long long i, long long j) {
    return exp(o.x_log + o.x_sign * (double)(2 * j - i) * o.log_u);
}

// The payoff at node j of the leaves, in the working precision.
template <typename real, int KIND>
__device__ __forceinline__ real leaf(const Option& o, long long j) {
    if (KIND == KIND_LOOKBACK) {
        return (real)below_extreme(o, j);
    }
    return (real)fmax(1.0 - vanilla_x(o, o.steps, j), 0.0);
}

// Node j of layer N - 1 from the leaves: the layer a first launch starts from.
template <typename real, int KIND, bool AMERICAN>
__device__ __forceinline__ real from_leaves(const Option& o, long long j) {
    const real up = (real)o.up;
    real held;
    real exercise;
    if (KIND == KIND_LOOKBACK) {
        held = j == 0 ? up * leaf<real, KIND>(o, 1) + (real)o.edge * leaf<real, KIND>(o, 0)
                      : up * leaf<real, KIND>(o, j + 1) + (real)o.down * leaf<real, KIND>(o, j - 1);
        exercise = (real)below_extreme(o, j);
    } else {
        held = up * leaf<real, KIND>(o, j + 1) + (real)o.down * leaf<real, KIND>(o, j);
        exercise = (real)fmax(1.0 - vanilla_x(o, o.steps - 1, j), 0.0);
    }
    const real g = (real)exp(o.growth);
    return AMERICAN ? max(exercise * g, held) : held;
}

// Advances one block's tile. `top` is the layer held at the start; the block's first node is
// `lo` (may be negative: nodes below 0 idle). `in` holds layer `top` (null: compute it from the
// leaves, top = N - 1); nodes [keep_lo, keep_hi) of layer top - steps go to `out`. `layers`
// (6 values) receives layers 2, 1 and 0 at j = 0, 1, 2 when the tile reaches them.
template <typename real, int R, int KIND, bool AMERICAN>
__device__ void advance_tile(const Option& o, const real* in, real* out, real* layers, int top,
                             int steps, long long lo, long long keep_lo, long long keep_hi) {
    __shared__ real first_of_warp[2][TILE_THREADS / 32];
    __shared__ real last_of_warp[2][TILE_THREADS / 32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = TILE_THREADS / 32;
    const long long base = lo + (long long)threadIdx.x * R;
    const long long warp_base = lo + (long long)warp * 32 * R;
    const real up = (real)o.up;
    const real down = (real)o.down;
    const real edge = (real)o.edge;
    const bool owns_zero = base == 0;

    real v[R];
    // Lookbacks: 1 - d^j; vanillas: x, which moves by a constant factor per layer.
    real exercise[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long long j = base + r;
        const bool inside = j >= 0 && j <= top;
        if (in == nullptr) {
            v[r] = inside ? from_leaves<real, KIND, AMERICAN>(o, j) : (real)0;
        } else {
            v[r] = inside ? in[j] : (real)0;
        }
        if (AMERICAN) {
            exercise[r] = KIND == KIND_LOOKBACK ? (real)below_extreme(o, j)
                                                : (real)vanilla_x(o, top, j);
        }
    }
    // x at layer i - 1 is x at layer i times exp(x_sign * ln u); recomputed exactly every 32
    // layers so that float keeps its precision.
    const real x_step = (real)exp(o.x_sign * o.log_u);
    if (owns_zero && top <= 2 && layers != nullptr) {
        // A lattice of at most three steps starts at one of the layers the greeks need.
        const int at = top == 2 ? 0 : (top == 1 ? 3 : 5);
        for (int r = 0; r <= top; ++r) {
            layers[at + r] = v[r];
        }
    }
    const double g_step = exp(o.growth);
    double g = exp(o.growth * (double)(o.steps - top));

    for (int s = 0; s < steps; ++s) {
        const int i = top - 1 - s;
        const int buf = s & 1;
        real right = __shfl_down_sync(FULL_MASK, v[0], 1);
        real left = __shfl_up_sync(FULL_MASK, v[R - 1], 1);
        if (lane == 0) {
            first_of_warp[buf][warp] = v[0];
        }
        if (lane == 31) {
            last_of_warp[buf][warp] = v[R - 1];
        }
        __syncthreads();
        if (lane == 31) {
            right = warp + 1 < warps ? first_of_warp[buf][warp + 1] : v[R - 1];
        }
        if (lane == 0) {
            left = warp > 0 ? last_of_warp[buf][warp - 1] : v[0];
        }
        if (warp_base > i) {
            continue;
        }
        g *= g_step;
        const real gi = (real)g;
        if (AMERICAN && KIND == KIND_VANILLA) {
            if ((s & 31) == 31) {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    exercise[r] = (real)vanilla_x(o, i, base + r);
                }
            } else {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    exercise[r] *= x_step;
                }
            }
        }
        // Node 0 of a lookback reflects (a new extreme keeps j = 0): its continuation from the
        // old values, before the loop below overwrites them.
        const real zero_held = KIND == KIND_LOOKBACK && owns_zero ? up * v[1] + edge * v[0] : (real)0;
        real below = left;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const real old = v[r];
            const real above = r + 1 < R ? v[r + 1] : right;
            real held = KIND == KIND_LOOKBACK ? up * above + down * below : up * above + down * old;
            if (AMERICAN) {
                const real now = KIND == KIND_LOOKBACK ? exercise[r] * gi
                                                       : max((real)1 - exercise[r], (real)0) * gi;
                held = max(now, held);
            }
            v[r] = held;
            below = old;
        }
        if (KIND == KIND_LOOKBACK && owns_zero) {
            v[0] = AMERICAN ? max((real)0, zero_held) : zero_held;
        }
        if (owns_zero && i <= 2 && layers != nullptr) {
            const int at = i == 2 ? 0 : (i == 1 ? 3 : 5);
#pragma unroll
            for (int r = 0; r < 3; ++r) {
                if (r <= i) {
                    layers[at + r] = v[r];
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long long j = base + r;
        if (j >= keep_lo && j < keep_hi) {
            out[j] = v[r];
        }
    }
}

// A launch over tiles of one lattice (top >= 0: block x is the tile of nodes from x * stride,
// with `halo` more at each side), or over a batch (top < 0: block y is option y, the whole
// lattice in one block, the price to out[y] and its first layers to layers[6y ..]).
template <typename real, int R>
__device__ void tile_kernel(const double* params, const real* in, real* out, real* layers,
                            int top, int steps, int stride, int halo) {
    const int option = blockIdx.y;
    const Option o = load_option(params, option);
    long long lo;
    long long keep_lo;
    long long keep_hi;
    if (top < 0) {
        top = o.steps - 1;
        steps = o.steps - 1;
        lo = 0;
        keep_lo = 0;
        keep_hi = 1;
        out += option;
        layers += 6 * (long long)option;
    } else {
        lo = (long long)blockIdx.x * stride - halo;
        keep_lo = (long long)blockIdx.x * stride;
        keep_hi = min(keep_lo + stride, (long long)(top - steps) + 1);
    }
    if (o.kind == KIND_LOOKBACK) {
        if (o.american) {
            advance_tile<real, R, KIND_LOOKBACK, true>(o, in, out, layers, top, steps, lo, keep_lo, keep_hi);
        } else {
            advance_tile<real, R, KIND_LOOKBACK, false>(o, in, out, layers, top, steps, lo, keep_lo, keep_hi);
        }
    } else {
        if (o.american) {
            advance_tile<real, R, KIND_VANILLA, true>(o, in, out, layers, top, steps, lo, keep_lo, keep_hi);
        } else {
            advance_tile<real, R, KIND_VANILLA, false>(o, in, out, layers, top, steps, lo, keep_lo, keep_hi);
        }
    }
}

#define TILE_KERNEL(real, suffix, R)                                                            \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS)                                  \
        lattice_tile_##suffix##_r##R(const double* params, const real* in, real* out,           \
                                     real* layers, int top, int steps, int stride, int halo) {  \
        tile_kernel<real, R>(params, in, out, layers, top, steps, stride, halo);                \
    }

TILE_KERNEL(float, f32, 4)
TILE_KERNEL(float, f32, 8)
TILE_KERNEL(float, f32, 16)
TILE_KERNEL(double, f64, 4)
TILE_KERNEL(double, f64, 8)
TILE_KERNEL(double, f64, 16)
