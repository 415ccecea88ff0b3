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

// The larger of two values that are never NaN: in double a compare and a select (fmax's NaN
// rules cost several extra instructions), in float the one instruction fmaxf is.
template <typename real>
__device__ __forceinline__ real higher(real a, real b) {
    return a > b ? a : b;
}
template <>
__device__ __forceinline__ float higher(float a, float b) {
    return fmaxf(a, b);
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
    return AMERICAN ? higher(exercise * g, held) : held;
}

// Advances one block's tile. `top` is the layer held at the start; the block's first node is
// `lo` (may be negative: nodes below 0 idle). `in` holds layer `top` (null: compute it from the
// leaves, top = N - 1); nodes [keep_lo, keep_hi) of layer top - steps go to `out`. `layers`
// (6 values) receives layers 2, 1 and 0 at j = 0, 1, 2 when the tile reaches them.
//
// One instantiation per kind and style, each its own kernel: the registers a kernel gets are
// those of its heaviest path, so a European vanilla does not pay for an American lookback's.
template <typename real, int R, int KIND, bool AMERICAN>
__device__ void advance_tile(const Option& o, const real* in, real* out, real* layers, int top,
                             int steps, long long lo, long long keep_lo, long long keep_hi) {
    constexpr bool LOOKBACK = KIND == KIND_LOOKBACK;
    __shared__ real first_of_warp[2][TILE_THREADS / 32];
    __shared__ real last_of_warp[2][TILE_THREADS / 32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = TILE_THREADS / 32;
    const long long base = lo + (long long)threadIdx.x * R;
    const long long warp_base = lo + (long long)warp * 32 * R;
    // An American lookback in double holds V / g_i, so that its exercise values stay fixed per
    // node: the weights carry the factor 1 / exp(growth) instead (in float that factor's
    // rounding would compound over the layers; the weights summing to exactly 1 avoid that).
    constexpr bool SCALED = AMERICAN && LOOKBACK && sizeof(real) == sizeof(double);
    const double shrink = SCALED ? exp(-o.growth) : 1.0;
    const real up = (real)(o.up * shrink);
    const real down = (real)(o.down * shrink);
    const real edge = (real)(o.edge * shrink);
    const bool owns_zero = base == 0;

    real v[R];
    // American only. Lookbacks: 1 - d^j, fixed per node; vanillas: x, which moves by a
    // constant factor per layer.
    real exercise[AMERICAN ? R : 1];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long long j = base + r;
        const bool inside = j >= 0 && j <= top;
        if (in == nullptr) {
            v[r] = inside ? from_leaves<real, KIND, AMERICAN>(o, j) * (real)shrink : (real)0;
        } else {
            v[r] = inside ? in[j] : (real)0;
        }
        if (AMERICAN) {
            exercise[r] = LOOKBACK ? (real)below_extreme(o, j) : (real)vanilla_x(o, top, j);
        }
    }
    // x at layer i - 1 is x at layer i times exp(x_sign * ln u); recomputed exactly every 32
    // layers so that float keeps its precision.
    const real x_step = (real)exp(o.x_sign * o.log_u);
    if (owns_zero && top <= 2 && layers != nullptr) {
        // A lattice of at most three steps starts at one of the layers the greeks need.
        const int at = top == 2 ? 0 : (top == 1 ? 3 : 5);
        const real unscale = SCALED ? (real)exp(o.growth * (double)(o.steps - top)) : (real)1;
#pragma unroll
        for (int r = 0; r < 3; ++r) {
            if (r <= top) {
                layers[at + r] = v[r] * unscale;
            }
        }
    }
    const double g_step = exp(o.growth);
    double g = exp(o.growth * (double)(o.steps - top));

    // Layer top - 1 - s from layer top - s, `from` to `to`: for a lookback two register arrays
    // used in turn, so that no value is copied to keep the old layer while the new one is
    // written; for a vanilla the same array.
    auto step = [&](int s, real(&from)[R], real(&to)[R]) {
        const int i = top - 1 - s;
        const int buf = s & 1;
        // A vanilla node needs its neighbour above only; a lookback node both.
        real right = __shfl_down_sync(FULL_MASK, from[0], 1);
        real left = LOOKBACK ? __shfl_up_sync(FULL_MASK, from[R - 1], 1) : (real)0;
        if (lane == 0) {
            first_of_warp[buf][warp] = from[0];
        }
        if (LOOKBACK && lane == 31) {
            last_of_warp[buf][warp] = from[R - 1];
        }
        __syncthreads();
        if (lane == 31) {
            right = warp + 1 < warps ? first_of_warp[buf][warp + 1] : from[R - 1];
        }
        if (LOOKBACK && lane == 0) {
            left = warp > 0 ? last_of_warp[buf][warp - 1] : from[0];
        }
        if (warp_base > i) {
            return;
        }
        real gi = (real)1;
        if (AMERICAN && !SCALED) {
            g *= g_step;
            gi = (real)g;
        }
        if (AMERICAN && !LOOKBACK) {
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
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const real above = r + 1 < R ? from[r + 1] : right;
            const real below = r > 0 ? from[r - 1] : left;
            real held = LOOKBACK ? up * above + down * below : up * above + down * from[r];
            if (AMERICAN) {
                const real now = LOOKBACK ? (SCALED ? exercise[r] : exercise[r] * gi)
                                          : higher((real)1 - exercise[r], (real)0) * gi;
                held = higher(now, held);
            }
            to[r] = held;
        }
        if (LOOKBACK && owns_zero) {
            // Node 0 of a lookback reflects: a new extreme keeps j = 0.
            const real zero_held = up * from[1] + edge * from[0];
            to[0] = AMERICAN ? higher((real)0, zero_held) : zero_held;
        }
        if (owns_zero && i <= 2 && layers != nullptr) {
            const int at = i == 2 ? 0 : (i == 1 ? 3 : 5);
            const real unscale = SCALED ? (real)exp(o.growth * (double)(o.steps - i)) : (real)1;
#pragma unroll
            for (int r = 0; r < 3; ++r) {
                if (r <= i) {
                    layers[at + r] = to[r] * unscale;
                }
            }
        }
    };
    if (!LOOKBACK) {
        // A vanilla node reads nodes j and j + 1 only: written in place in increasing j.
        for (int s = 0; s < steps; ++s) {
            step(s, v, v);
        }
    } else {
        real w[R];
        int s = 0;
        for (; s + 1 < steps; s += 2) {
            step(s, v, w);
            step(s + 1, w, v);
        }
        if (s < steps) {
            step(s, v, w);
#pragma unroll
            for (int r = 0; r < R; ++r) {
                v[r] = w[r];
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
// lattice in one block, the price to out[y] and its first layers to layers[6y ..]). Every
// option of a launch is of the kernel's kind and style.
template <typename real, int R, int KIND, bool AMERICAN>
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
    advance_tile<real, R, KIND, AMERICAN>(o, in, out, layers, top, steps, lo, keep_lo, keep_hi);
}

// The kernels: lattice_tile_<real>_<kind>_<style>_r<R>. The European ones ask the compiler
// for registers that let that many blocks share an SM (a book of 1,024 options then runs in
// about one wave: a vanilla needs one value per node, a lookback two, without spilling); the
// American ones get what they need (capping them spilled and ran slower on an H100).
#define TILE_KERNEL(real, suffix, KIND, kind, AMERICAN, style, R, MIN_BLOCKS)                     \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS, MIN_BLOCKS)                        \
        lattice_tile_##suffix##_##kind##_##style##_r##R(const double* params, const real* in,     \
                                                        real* out, real* layers, int top,         \
                                                        int steps, int stride, int halo) {        \
        tile_kernel<real, R, KIND, AMERICAN>(params, in, out, layers, top, steps, stride, halo);  \
    }

#define TILE_KERNELS(real, suffix, R, LOOKBACK_BLOCKS, VANILLA_BLOCKS)                            \
    TILE_KERNEL(real, suffix, KIND_LOOKBACK, lookback, true, american, R, 1)                      \
    TILE_KERNEL(real, suffix, KIND_LOOKBACK, lookback, false, european, R, LOOKBACK_BLOCKS)       \
    TILE_KERNEL(real, suffix, KIND_VANILLA, vanilla, true, american, R, 1)                        \
    TILE_KERNEL(real, suffix, KIND_VANILLA, vanilla, false, european, R, VANILLA_BLOCKS)

TILE_KERNELS(float, f32, 4, 8, 8)
TILE_KERNELS(float, f32, 8, 8, 8)
TILE_KERNELS(float, f32, 16, 6, 8)
TILE_KERNELS(double, f64, 4, 8, 8)
TILE_KERNELS(double, f64, 8, 6, 8)
TILE_KERNELS(double, f64, 16, 5, 8)
