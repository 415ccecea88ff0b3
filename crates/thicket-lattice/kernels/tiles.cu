// thicket's tile kernels of the module lattice.cu: they follow lattice.cuh and thesis.cu
// (kernels.rs).

// ---------------------------------------------------------------------------------------------
// thicket's tile kernel. A block holds a run of consecutive nodes of one layer, R per lane in
// registers, and advances them `steps` layers. Within a warp, neighbours come by shuffle. Warps
// overlap by one lane at each end they share with a neighbour (the ghost lane: a lookback node
// reads both neighbours, so lanes 0 and 31 are ghosts; a vanilla node reads only the one above,
// so lane 31 is): a ghost lane's values go wrong from its outer edge inwards, one node per
// layer, so after R layers the ghosts still shield the warp's own lanes. Every R layers each
// warp hands the edges of its own lanes to its neighbours through shared memory and takes back
// true values for its ghosts: one barrier per R layers, and none at all inside them. A warp
// whose nodes all lie above the top of the lattice leaves (a named barrier counts the warps
// still working).
//
// A block's edges are never refreshed: a long lattice runs in blocks that overlap by `halo`
// nodes (>= R and >= the layers of a launch) at each side, so a launch needs nothing from
// other blocks; a book runs one block per option, whose nodes reach past the top of its
// lattice.
//
// The units are those of the CPU lattices (thicket-lattice's cpu.rs): every value stays near
// [0, 1] at any N (no u^j is formed) and the two weights of a node sum to exactly 1 in the
// working precision. Node (i, j) is
//   lookbacks: up*old[j+1] + down*old[j-1]  (j = 0: up*old[1] + edge*old[0])
//   vanillas:  up*old[j+1] + down*old[j]
// maximised, if American, with exercise*g_i, where g_i = exp(growth*(N-i)) and the exercise
// value is 1 - d^j (lookbacks) or max(0, 1 - x) with x = exp(x_log + x_sign*((2j-i)*log_u +
// i*log_drift)) (vanillas: the stock at node j of layer i is S*u^j*d^(i-j), log_u and
// log_drift half the difference and half the sum of ln u and ln d; log_drift is 0 on CRR).
// Every option is one record of PARAM_DOUBLES doubles at the P_* offsets.
//
// A lookback seasoned J states from the spot runs the lattice of N + J steps (`steps`) and is
// read at layer J (`today`), whose node j is the option in state j with N steps to go: the
// kernel keeps today's layer and the next two at nodes lo .. lo + FIRST_NODES - 1 around its
// state (lo = state - 2, at least 0), as the CPU's read-out needs them.

struct Option {
    double up, down, edge, growth, log_u, log_drift, x_log, x_sign;
    int steps, kind, american, today;
    long long lo;
};

__device__ __forceinline__ Option load_option(const double* params, int index) {
    const double* p = params + (long long)index * PARAM_DOUBLES;
    Option o;
    o.up = p[P_UP];
    o.down = p[P_DOWN];
    o.edge = p[P_EDGE];
    o.growth = p[P_GROWTH];
    o.log_u = p[P_LOG_U];
    o.log_drift = p[P_LOG_DRIFT];
    o.x_log = p[P_X_LOG];
    o.x_sign = p[P_X_SIGN];
    o.steps = (int)p[P_STEPS];
    o.kind = (int)p[P_KIND];
    o.american = (int)p[P_AMERICAN];
    o.today = (int)p[P_TODAY];
    o.lo = max((long long)p[P_STATE] - 2, 0LL);
    return o;
}

// A lookback's exercise value at node j before the layer's factor: 1 - d^j.
__device__ __forceinline__ double below_extreme(const Option& o, long long j) {
    return j <= 0 ? 0.0 : -expm1(-(double)j * o.log_u);
}

// A vanilla's x at node j of layer i (its exercise value is max(0, 1 - x) before the factor).
// On CRR the drift term is an exact zero: x is bit for bit what it was before other trees.
__device__ __forceinline__ double vanilla_x(const Option& o, long long i, long long j) {
    return exp(o.x_log + o.x_sign * (double)(2 * j - i) * o.log_u +
               o.x_sign * (double)i * o.log_drift);
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

// A vanilla's payoff at node j of the leaves, in the working precision.
template <typename real>
__device__ __forceinline__ real vanilla_leaf(const Option& o, long long j) {
    return (real)fmax(1.0 - vanilla_x(o, o.steps, j), 0.0);
}

// Node j of a lookback's layer N - 1 from the leaves, given 1 - d^k at k = j - 1, j and j + 1
// (0 below node 0): the layer a first launch starts from.
template <typename real, bool AMERICAN>
__device__ __forceinline__ real lookback_from_leaves(const Option& o, long long j, double below,
                                                     double here, double above) {
    const real up = (real)o.up;
    const real held = j == 0 ? up * (real)above + (real)o.edge * (real)here
                             : up * (real)above + (real)o.down * (real)below;
    const real g = (real)exp(o.growth);
    return AMERICAN ? higher((real)here * g, held) : held;
}

// Node j of a vanilla's layer N - 1 from the leaves: the layer a first launch starts from.
template <typename real, bool AMERICAN>
__device__ __forceinline__ real vanilla_from_leaves(const Option& o, long long j) {
    const real up = (real)o.up;
    const real held = up * vanilla_leaf<real>(o, j + 1) + (real)o.down * vanilla_leaf<real>(o, j);
    const real exercise = (real)fmax(1.0 - vanilla_x(o, o.steps - 1, j), 0.0);
    const real g = (real)exp(o.growth);
    return AMERICAN ? higher(exercise * g, held) : held;
}

// Which lanes of a warp are ghosts: a lookback's lane 0 and lane 31, a vanilla's lane 31.
template <int KIND>
struct Lanes {
    static constexpr int LEFT_GHOST = KIND == KIND_LOOKBACK ? 1 : 0;
    // Lanes whose nodes are the warp's own; the next warp starts that many lanes on.
    static constexpr int OWN = 31 - LEFT_GHOST;
};

// Waits for the `warps` first warps of the block (the ones still working).
__device__ __forceinline__ void sync_warps(int warps) {
    asm volatile("bar.sync 1, %0;" ::"r"(warps * 32) : "memory");
}

// Advances one block's nodes. `top` is the layer held at the start; lane 0 of warp 0 holds
// node `first` (negative in a book: nodes below 0 idle). `in` holds layer `top` (null: compute
// it from the leaves, top = N - 1); nodes [keep_lo, keep_hi) of layer top - steps go to `out`,
// from the lanes that own them. `layers` (3 * FIRST_NODES values) receives today's layer and
// the next two around today's state when the block reaches them, from the lanes that own
// those nodes within [keep_lo, capture_hi) (the nodes whose values the block has right at
// every layer it computes). `edges` is shared memory for 4 * R values per warp.
//
// One instantiation per kind and style, each its own kernel: the registers a kernel gets are
// those of its heaviest path, so a European vanilla does not pay for an American lookback's.
// SEASONED: whether a lookback may be read at a layer other than 0 (runtime today and state);
// without it today is 0 and the kept nodes are 0 .. 2, known when compiled, as in the common
// case of one long lattice (a window kept at run time cost it registers and time).
template <typename real, int R, int KIND, bool AMERICAN, bool SEASONED>
__device__ void advance_tile(const Option& o, const real* in, real* out, real* layers, int top,
                             int steps, long long first, long long keep_lo, long long keep_hi,
                             long long capture_hi, real* edges) {
    constexpr bool LOOKBACK = KIND == KIND_LOOKBACK;
    constexpr int LEFT_GHOST = Lanes<KIND>::LEFT_GHOST;
    constexpr int OWN = Lanes<KIND>::OWN;
    static_assert(R % 2 == 0, "a round advances an even number of layers");
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    // Warp w's lowest own node is warp_own0 + w * warp_nodes: the warp works while that node is
    // at most the layer's top.
    const long long warp_own0 = first + (long long)LEFT_GHOST * R;
    const long long warp_nodes = (long long)OWN * R;
    const long long base = first + (long long)warp * warp_nodes + (long long)lane * R;
    const bool own_lane = lane >= LEFT_GHOST && lane < 31;
    // An American lookback holds V / g_i, so that its exercise values stay fixed per node (a
    // register each, no multiply per node and layer): the weights carry the factor
    // 1 / exp(growth) instead. In double that is all. In float the two weights round apart,
    // so the values drift from V / g_i by a factor `drift` per layer (about 1 +- 3e-8, which
    // would compound over the layers): every round takes it back out (one multiply per node
    // per R layers, the factor tracked in double), so that the exercise values are off by at
    // most R layers' drift and nothing compounds.
    constexpr bool SCALED = AMERICAN && LOOKBACK;
    constexpr bool DRIFTS = SCALED && sizeof(real) == sizeof(float);
    const double shrink = SCALED ? exp(-o.growth) : 1.0;
    const real up = (real)(o.up * shrink);
    // The lower weight makes the pair's sum as near the discount as float allows.
    const real down = DRIFTS ? (real)(shrink - (double)up) : (real)(o.down * shrink);
    const double sum = (double)up + (double)down;
    const real edge = (real)(o.edge * (DRIFTS ? sum : shrink));
    // log of the drift per layer, and the factor that takes a full round's drift out.
    const double log_drift = DRIFTS ? log(sum / shrink) : 0.0;
    const double undrift_round = DRIFTS ? exp(-(double)R * log_drift) : 1.0;
    // What the registers' values are to be multiplied by at a round's start to be V / g_i.
    double residual = 1.0;
    const bool owns_zero = base == 0 && own_lane;

    real v[R];
    // American only. Lookbacks: 1 - d^j, fixed per node; vanillas: x, which moves by a
    // constant factor per layer.
    real exercise[AMERICAN ? R : 1];
    // What needs no earlier launch first: a first launch's values from the leaves, and the
    // exercise values.
    if constexpr (LOOKBACK) {
        // 1 - d^j at j - 1, j and j + 1 (`below`, `here`, `above`), walked up the lane by
        // e(j + 1) = e(j) d + (1 - d) from one expm1 at the lane's start, each step an FMA of
        // about one rounding: an expm1 per node, four of them inlined for each of the R nodes,
        // made the kernel's code larger than the instruction cache and its first launch the
        // slowest per layer of a book's stages (ncu, H100).
        const double d = exp(-o.log_u);
        const double one_less_d = -expm1(-o.log_u);
        auto next_up = [&](double e, long long j) { return j < 0 ? 0.0 : fma(e, d, one_less_d); };
        double below = below_extreme(o, base - 1);
        double here = next_up(below, base - 1);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long j = base + r;
            const double above = next_up(here, j);
            const bool inside = j >= 0 && j <= top;
            if (in == nullptr) {
                v[r] = inside ? lookback_from_leaves<real, AMERICAN>(o, j, below, here, above) *
                                    (real)shrink
                              : (real)0;
            }
            if (AMERICAN) {
                exercise[r] = (real)here;
            }
            below = here;
            here = above;
        }
    } else {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long j = base + r;
            const bool inside = j >= 0 && j <= top;
            if (in == nullptr) {
                v[r] = inside ? vanilla_from_leaves<real, AMERICAN>(o, j) * (real)shrink : (real)0;
            }
            if (AMERICAN) {
                exercise[r] = (real)vanilla_x(o, top, j);
            }
        }
    }
    // Launched after the previous launch of a long lattice (launch_after), the block has set
    // up its constants and exercise values beside that launch's tail: it waits here for the
    // layer it reads, then lets the next launch's blocks start theirs.
    wait_for_previous_grid();
    let_next_grid_start();
    if (in != nullptr) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long j = base + r;
            v[r] = j >= 0 && j <= top ? in[j] : (real)0;
        }
    }
    // x at layer i - 1 is x at layer i times exp(x_sign * (log_u - log_drift)) (d^-x_sign; on
    // CRR exp(x_sign * ln u), exactly as before other trees); recomputed exactly every 32
    // layers so that float keeps its precision.
    const real x_step = (real)exp(o.x_sign * (o.log_u - o.log_drift));
    // Today's layer and the next two around today's state (for the price and greeks; layers 0,
    // 1 and 2 at nodes 0 .. 2 where the option starts today); `since` layers into the round
    // (their drift is not yet taken out). A vanilla always starts today (seasoning is a
    // lookback's), so its kernels know today = 0 and keep nodes 0 .. 2 from the lane that owns
    // node 0, as they did before seasoned lookbacks: the runtime window cost NVIDIA's book
    // 20% in f32 (docs/benchmarks.md).
    constexpr bool WINDOW = LOOKBACK && SEASONED;
    const int today = WINDOW ? o.today : 0;
    const long long lo = WINDOW ? o.lo : 0;
    const long long capture_lo = WINDOW ? max(keep_lo, lo) : 0;
    const long long capture_end = WINDOW ? min(capture_hi, lo + FIRST_NODES) : 0;
    const bool captures = WINDOW ? own_lane && layers != nullptr && base + R > capture_lo &&
                                       base < capture_end
                                 : owns_zero && layers != nullptr;
    auto capture = [&](int i, const real(&values)[R], int since) {
        const int k = i - today;
        if (captures && k >= 0 && k <= 2) {
            double unscale = SCALED ? exp(o.growth * (double)(o.steps - i)) : 1.0;
            if (DRIFTS) {
                unscale *= residual * exp(-(double)since * log_drift);
            }
            if constexpr (WINDOW) {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const long long j = base + r;
                    if (j >= capture_lo && j < capture_end && j <= i) {
                        layers[FIRST_NODES * k + (j - lo)] =
                            (real)((double)values[r] * unscale);
                    }
                }
            } else {
#pragma unroll
                for (int r = 0; r < 3; ++r) {
                    if (r <= i) {
                        layers[FIRST_NODES * k + r] = (real)((double)values[r] * unscale);
                    }
                }
            }
        }
    };
    // The leaves are kept too where they are one of those layers (N <= 2): computed again
    // here, as no register holds them.
    if (in == nullptr && top + 1 <= today + 2) {
        real leaves[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long j = base + r;
            if constexpr (LOOKBACK) {
                leaves[r] = (real)below_extreme(o, j);
            } else {
                leaves[r] = vanilla_leaf<real>(o, j);
            }
        }
        capture(top + 1, leaves, 0);
    }
    capture(top, v, 0);
    const double g_step = exp(o.growth);
    double g = exp(o.growth * (double)(o.steps - top));
    // Node 0 of a lookback reflects (a new extreme keeps j = 0): up*old[1] + edge*old[0], the
    // general update with the node itself as its lower neighbour and `edge` as its weight, so
    // that no lane branches. Its exercise value 1 - d^0 is 0, the floor of every value.
    const bool reflects = LOOKBACK && owns_zero;
    const real down_first = reflects ? edge : down;

    // Layer top - 1 - s from layer top - s, `from` to `to`: for a lookback two register arrays
    // used in turn (in place, each node would need the old value of the one below it after
    // it is overwritten, and the registers would rotate: a copy per node and layer); a
    // vanilla node reads only itself and the one above, so it updates in place. `greeks`:
    // whether the layer may be one of the first three (a constant where it is called, so
    // that the bulk of the layers carries no test for them); `since`: layers of the round
    // before this one.
    auto step = [&](int s, real(&from)[R], real(&to)[R], bool greeks, int since) {
        const int i = top - 1 - s;
        const real right = __shfl_down_sync(FULL_MASK, from[0], 1);
        real left = (real)0;
        if (LOOKBACK) {
            left = __shfl_up_sync(FULL_MASK, from[R - 1], 1);
            left = reflects ? from[0] : left;
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
            const real lower_weight = r == 0 ? down_first : down;
            real held = LOOKBACK ? up * above + lower_weight * below
                                 : up * above + down * from[r];
            if (AMERICAN) {
                const real now = LOOKBACK ? (SCALED ? exercise[r] : exercise[r] * gi)
                                          : higher((real)1 - exercise[r], (real)0) * gi;
                held = higher(now, held);
            }
            to[r] = held;
        }
        if (greeks) {
            capture(i, to, since + 1);
        }
    };
    // A European vanilla has no exercise to test at every layer, so a step can take FUSE
    // layers at once: node j of layer i - FUSE is sum_m C(FUSE, m) up^m down^(FUSE - m) v[j + m],
    // one multiply and FUSE fused multiply-adds for FUSE layers instead of two instructions a
    // layer (NVIDIA's book on an H100: docs/benchmarks.md has 1, 2, 4, 8 and 16). A step reads
    // FUSE nodes of the lane above, so FUSE is at most R. The weights, rounded to `real`, no
    // longer sum to exactly 1. In float each round multiplies the values by what its fused
    // steps lost (tracked in double, as the drift above). In double the largest weight takes
    // the rounding of their exact sum once, so that they sum to 1 within half its last place
    // (about 1e-17 a step, 1e-15 over a 2,048-step lattice): the round's multiply a node was
    // 16 of an f64 round's 288 floating-point instructions (docs/benchmarks.md).
    constexpr int FUSE = (!LOOKBACK && !AMERICAN) ? (R < 16 ? R : 16) : 1;
    constexpr bool RESCALED = FUSE > 1 && sizeof(real) == sizeof(float);
    real fused[FUSE + 1];
    double fused_gain = 1.0;
    if constexpr (FUSE > 1) {
        // The weights' sum, and what its roundings lost (Neumaier): together their exact sum.
        fused_gain = 0.0;
        double lost = 0.0;
        double choose = 1.0;
#pragma unroll
        for (int m = 0; m <= FUSE; ++m) {
            double weight = choose;
#pragma unroll
            for (int k = 0; k < FUSE; ++k) {
                weight *= k < m ? (double)up : (double)down;
            }
            fused[m] = (real)weight;
            const double term = (double)fused[m];
            const double next = fused_gain + term;
            lost += fabs(fused_gain) >= fabs(term) ? (fused_gain - next) + term
                                                   : (term - next) + fused_gain;
            fused_gain = next;
            choose = choose * (double)(FUSE - m) / (double)(m + 1);
        }
        if constexpr (!RESCALED) {
            // The exact sum's distance from 1 added to the middle weight, the largest.
            fused[FUSE / 2] += (real)((1.0 - fused_gain) - lost);
        }
    }
    // What a full round's fused steps lose (a pow every round cost an f64 book 10-20%).
    const double round_loss = RESCALED ? pow(fused_gain, -(double)(R / FUSE)) : 1.0;
    double fused_residual = 1.0;
    // FUSE layers from v into v, in place: node r reads nodes r .. r + FUSE, which come later.
    auto fused_step = [&]() {
        real right[FUSE];
#pragma unroll
        for (int m = 0; m < FUSE; ++m) {
            right[m] = __shfl_down_sync(FULL_MASK, v[m], 1);
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            real held = fused[0] * v[r];
#pragma unroll
            for (int m = 1; m <= FUSE; ++m) {
                held = fma(fused[m], r + m < R ? v[r + m] : right[r + m - R], held);
            }
            v[r] = held;
        }
    };
    // `run` (even) layers from v back into v: a lookback in pairs, through w and back.
    real w[LOOKBACK ? R : 1];
    auto advance = [&](int s, int run, bool greeks) {
        if constexpr (!LOOKBACK) {
            int k = 0;
            if constexpr (FUSE > 1) {
                if (!greeks && run >= FUSE) {
                    const int fused_steps = run / FUSE;
#pragma unroll 1
                    for (int f = 0; f < fused_steps; ++f) {
                        fused_step();
                    }
                    k = fused_steps * FUSE;
                    if constexpr (RESCALED) {
                        // What the fused weights lost, out of the values: one multiply a node
                        // and round; the rounding of the factor is carried to the next round
                        // in double.
                        fused_residual *= fused_steps == R / FUSE
                                              ? round_loss
                                              : pow(fused_gain, -(double)fused_steps);
                        const real factor = (real)fused_residual;
#pragma unroll
                        for (int r = 0; r < R; ++r) {
                            v[r] *= factor;
                        }
                        fused_residual = 1.0 + (fused_residual - (double)factor);
                    }
                }
            }
#pragma unroll 1
            for (; k < run; ++k) {
                step(s + k, v, v, greeks, k);
            }
        } else {
#pragma unroll 1
            for (int k = 0; k < run; k += 2) {
                step(s + k, v, w, greeks, k);
                step(s + k + 1, w, v, greeks, k + 1);
            }
        }
    };

    // A lookback's whole round (R layers) unrolled: no loop control, and the compiler
    // schedules each layer's shuffles among the previous layer's nodes (fewer instructions a
    // node and a faster book: docs/benchmarks.md).
    auto whole_round = [&](int s) {
        if constexpr (LOOKBACK) {
#pragma unroll
            for (int k = 0; k < R; k += 2) {
                step(s + k, v, w, false, k);
                step(s + k + 1, w, v, false, k + 1);
            }
        }
    };

    int s = 0;
    // A lookback's rounds advance an even number of layers (no copy back from w inside the
    // loop, whose registers it would cost): an odd count takes its extra layer here, and the
    // first round one layer less than R, so that the ghosts never go more than R layers
    // unrefreshed.
    int first_run = R;
    if constexpr (LOOKBACK) {
        if (steps % 2 == 1) {
            step(0, v, w, true, 0);
#pragma unroll
            for (int r = 0; r < R; ++r) {
                v[r] = w[r];
            }
            s = 1;
            first_run = R - 2;
            if (DRIFTS) {
                residual = exp(-log_drift);
            }
        }
    }
    // The warps still working: warp w works while its lowest own node is at most the layer's
    // top, that is while s <= ahead - w * warp_nodes. Their count only falls as the rounds go
    // down the lattice, so the round at which it next falls is kept (`drop`: the last working
    // warp leaves once s passes it) instead of a division every round.
    const long long ahead = (long long)top - warp_own0;
    int working = ahead < 0 ? 0
                            : (int)min((long long)warps,
                                       min(ahead, (long long)warps * warp_nodes) / warp_nodes + 1);
    long long drop = ahead - (long long)(working - 1) * warp_nodes;
    int round = 0;
    while (s < steps) {
        while (working > 0 && s > drop) {
            --working;
            drop += warp_nodes;
        }
        if (warp >= working) {
            break;
        }
        const int run = min(round == 0 ? first_run : R, steps - s);
        // The round's last layer is top - s - run: at or below today + 2, it may hold the
        // nodes the read-out needs.
        if (top - s - run <= today + 2) {
            advance(s, run, true);
        } else if (LOOKBACK && run == R) {
            whole_round(s);
        } else {
            advance(s, run, false);
        }
        s += run;
        if (DRIFTS) {
            // The round's drift out of the values, to float's rounding; what that rounding
            // leaves is carried into the next round in double.
            residual *= run == R ? undrift_round : exp(-(double)run * log_drift);
            const real k = (real)residual;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                v[r] *= k;
            }
            // residual / k to within (residual - k)(k - 1): a float's rounding (about 6e-8)
            // times one round's drift (about 5e-7), 3e-14 a round; a double division cost
            // some 15 instructions a round.
            residual = 1.0 + (residual - (double)k);
        }
        if (s >= steps) {
            break;
        }
        // The ghosts take the true values of their nodes from the neighbours' own lanes.
        real* mine = edges + (size_t)(round & 1) * 2 * warps * R;
        if (lane == LEFT_GHOST) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                mine[(size_t)warp * R + r] = v[r];
            }
        }
        if (LOOKBACK && lane == 30) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                mine[(size_t)(warps + warp) * R + r] = v[r];
            }
        }
        sync_warps(working);
        if (lane == 31 && warp + 1 < working) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                v[r] = mine[(size_t)(warp + 1) * R + r];
            }
        }
        if (LOOKBACK && lane == 0 && warp > 0) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                v[r] = mine[(size_t)(warps + warp - 1) * R + r];
            }
        }
        ++round;
    }
    if (own_lane) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long j = base + r;
            if (j >= keep_lo && j < keep_hi) {
                out[j] = v[r];
            }
        }
    }
}

// A launch over tiles of one lattice (top >= 0: block x starts at node x * stride - halo),
// or over a book (top < 0): block y is option y, its whole layer in one block, advanced from
// layer `steps` (the stage's start; an option of fewer steps starts from its leaves) to layer
// `stride` (the stage's end). A book runs in stages as its triangles shrink, each in blocks of
// only as many warps as its start layer needs: an intermediate stage's end layer goes to `out`
// (`halo` values per option) and the next stage reads it from `in`; the last stage (end layer
// 0) writes node 0 of layer 0 to out[y]; the stages that compute today's layer and the next
// two write them to layers[3 * FIRST_NODES * y ..]. Every option of a launch is of the
// kernel's kind and style.
template <typename real, int R, int KIND, bool AMERICAN, bool SEASONED>
__device__ void tile_kernel(const double* params, const real* in, real* out, real* layers,
                            int top, int steps, int stride, int halo) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    real* edges = reinterpret_cast<real*>(shared_bytes);
    const int option = blockIdx.y;
    const Option o = load_option(params, option);
    long long first;
    long long keep_lo;
    long long keep_hi;
    // A book's block holds its option's layers whole; a tile has every node right from
    // keep_lo to keep_lo + stride at every layer of the launch (its halo is at least the
    // launch's layers), and the last tile every node up to the top of each layer.
    long long capture_hi = 0x7fffffffffffffffLL;
    if (top < 0) {
        const int stage_top = steps;
        const int stage_end = stride;
        const long long width = halo;
        // An option whose lattice starts below the stage's start starts here from its leaves.
        const bool from_leaves = o.steps - 1 <= stage_top;
        top = min(o.steps - 1, stage_top);
        // Not started yet (a later stage starts it), unless this is the last stage.
        if (top <= stage_end && stage_end > 0) {
            return;
        }
        steps = top - stage_end;
        in = from_leaves ? nullptr : in + option * width;
        // Node 0 in the first own lane.
        first = -(long long)Lanes<KIND>::LEFT_GHOST * R;
        keep_lo = 0;
        keep_hi = stage_end + 1;
        out += stage_end == 0 ? option : option * width;
        layers += 3LL * FIRST_NODES * option;
    } else {
        first = (long long)blockIdx.x * stride - halo;
        keep_lo = (long long)blockIdx.x * stride;
        keep_hi = min(keep_lo + stride, (long long)(top - steps) + 1);
        if (blockIdx.x + 1 < gridDim.x) {
            capture_hi = keep_lo + stride;
        }
    }
    advance_tile<real, R, KIND, AMERICAN, SEASONED>(o, in, out, layers, top, steps, first,
                                                    keep_lo, keep_hi, capture_hi, edges);
}

// The two weights x and 1 - x in `real`, summing to exactly 1 there: the larger is rounded
// and the smaller is 1 minus it (as the CPU's scheme.rs `complementary` does).
template <typename real>
__device__ __forceinline__ void complementary(double x, double& weight, double& rest) {
    if (x >= 0.5) {
        const real a = (real)x;
        weight = (double)a;
        rest = (double)((real)1 - a);
    } else {
        const real b = (real)(1.0 - x);
        weight = (double)((real)1 - b);
        rest = (double)b;
    }
}

// Each option's lattice from its contract, one thread an option: the host writes the contract
// (P_SPOT ..= P_DIVIDEND, P_TREE, P_TODAY ..= P_WEIGHT) and this kernel the weights and units
// (P_UP ..= P_D, P_LOG_DRIFT) with the CPU's f64 formulas (contract.rs `validate`, scheme.rs
// `Scheme::build`): dt = T/N (N = P_STEPS - P_TODAY, the steps to maturity from today),
// on CRR u = exp(sigma*sqrt(dt)), d = exp(-sigma*sqrt(dt)) (another tree's u, d, log_u and
// log_drift the host staged), p = (exp((r - q)*dt) - d)/(u - d), disc = exp(-r*dt); the
// stock-unit lattices (calls) carry the dividends reinvested, weights disc*p*u*exp(q*dt) and
// its complement, growth q*dt. The host has checked every contract, so nothing here can
// fail.
template <typename real>
__device__ void records(double* params, int options) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= options) {
        return;
    }
    double* q = params + (long long)k * PARAM_DOUBLES;
    const double spot = q[P_SPOT], strike = q[P_STRIKE], rate = q[P_RATE];
    const double dividend = q[P_DIVIDEND];
    const double dt = q[P_MATURITY] / (q[P_STEPS] - q[P_TODAY]);
    const int payoff = (int)q[P_PAYOFF];
    const bool crr = (int)q[P_TREE] == TREE_CRR;
    const double log_u = crr ? q[P_VOLATILITY] * sqrt(dt) : q[P_LOG_U];
    const double u = crr ? exp(log_u) : q[P_U];
    const double d = crr ? exp(-log_u) : q[P_D];
    const double p = (exp((rate - dividend) * dt) - d) / (u - d);
    const double disc = exp(-rate * dt);
    const double yield_dt = dividend * dt;
    double stock_up, stock_down, bond_up, bond_down;
    complementary<real>(disc * p * u * exp(yield_dt), stock_up, stock_down);
    complementary<real>(p, bond_up, bond_down);
    double x_log = 0.0, x_sign = 0.0, growth = 0.0;
    if (payoff == PAYOFF_LOOKBACK_PUT) {
        q[P_UP] = bond_down;
        q[P_DOWN] = bond_up;
        q[P_EDGE] = (double)(real)(p * u);
        growth = rate * dt;
    } else if (payoff == PAYOFF_PUT) {
        q[P_UP] = bond_up;
        q[P_DOWN] = bond_down;
        q[P_EDGE] = bond_down;
        growth = rate * dt;
        x_log = log(spot / strike);
        x_sign = 1.0;
    } else {
        q[P_UP] = stock_up;
        q[P_DOWN] = stock_down;
        q[P_EDGE] = stock_down;
        growth = yield_dt;
        if (payoff == PAYOFF_CALL) {
            x_log = log(strike / spot);
            x_sign = -1.0;
        }
    }
    q[P_GROWTH] = growth;
    q[P_LOG_U] = log_u;
    q[P_X_LOG] = x_log;
    q[P_X_SIGN] = x_sign;
    q[P_KIND] = payoff == PAYOFF_LOOKBACK_PUT || payoff == PAYOFF_LOOKBACK_CALL ? KIND_LOOKBACK
                                                                                : KIND_VANILLA;
    q[P_U] = u;
    q[P_D] = d;
}

#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_lattice_records_f32)
extern "C" __global__ void __launch_bounds__(BOOKEND_THREADS) lattice_records_f32(double* params, int options) {
    records<float>(params, options);
}
#endif

#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_lattice_records_f64)
extern "C" __global__ void __launch_bounds__(BOOKEND_THREADS) lattice_records_f64(double* params, int options) {
    records<double>(params, options);
}
#endif

// The price and greeks of a lookback in state j today (j steps of u between the stock and its
// extreme), read off today's layer and the next two (scheme.rs `read_out_state`): an up move
// takes the put one state nearer its maximum (a new maximum at 0) and the call one further
// from its minimum. The value k layers on, `ups` net up moves on, in state `state`, is in
// money S*u^level*W*b_k (the put's units are its maximum, level = ups + state; the call's the
// stock, level = ups).
struct Seasoned {
    double s, log_u, u, d, dt, b[3];
    long long lo;
    int steps;
    bool put;
    const double* v;

    __device__ double value(int k, int ups, long long state) const {
        const double level = put ? (double)(ups + state) : (double)ups;
        return s * exp(level * log_u) * v[FIRST_NODES * k + (state - lo)] * b[k];
    }
    __device__ long long up(long long j) const { return put ? max(j - 1, 0LL) : j + 1; }
    __device__ long long down(long long j) const { return put ? j + 1 : max(j - 1, 0LL); }

    // price, delta, gamma, theta of state j into out[0 .. 3].
    __device__ void read(long long j, double* out) const {
        const double f = value(0, 0, j);
        const double fu = value(1, 1, up(j)), fd = value(1, -1, down(j));
        out[0] = f;
        out[1] = (fu - fd) / (s * u - s * d);
        out[2] = 0.0;
        out[3] = 0.0;
        if (steps < 2) {
            return;
        }
        const double fuu = value(2, 2, up(up(j))), fdd = value(2, -2, down(down(j)));
        // Up-down and down-up differ only where one of them sets a new extreme (state 0).
        const double fud = 0.5 * (value(2, 0, down(up(j))) + value(2, 0, up(down(j))));
        const double suu = s * u * u, sdd = s * d * d;
        out[2] = ((fuu - fud) / (suu - s) - (fud - fdd) / (s - sdd)) / (0.5 * (suu - sdd));
        // Two steps later, the stock back at S and its extreme still today's: state j.
        out[3] = (value(2, 0, j) - f) / (2.0 * dt);
    }
};

// A book's prices and greeks, read off today's layer and the next two as the tile kernel kept
// them (FIRST_NODES values a layer from node lo: layers 0, 1 and 2 from node 0 for an option
// that starts today) with the formulas of the CPU's read-out (scheme.rs, `Scheme::read_out`
// and `read_out_seasoned`, where they are derived): one thread an option, price, delta, gamma
// and theta out, so that the host copies four values an option back and does no arithmetic.
// b_k takes the lattice's units at layer today + k back to the money of that layer's date
// (exp(-growth*(N-k)); 1 in stock units without dividends). A seasoned lookback between two
// states mixes their answers linearly in ln M (weight P_WEIGHT toward the upper state).
template <typename real>
__device__ void read_out(const double* params, const real* layers, double* priced, int options) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= options) {
        return;
    }
    const double* p = params + (long long)k * PARAM_DOUBLES;
    const real* v = layers + (long long)FIRST_VALUES * k;
    const double s = p[P_SPOT], x = p[P_STRIKE], u = p[P_U], d = p[P_D];
    const double today = p[P_TODAY];
    const double growth = p[P_GROWTH], n = p[P_STEPS] - today;
    const double dt = p[P_MATURITY] / n;
    const int payoff = (int)p[P_PAYOFF];
    const double b0 = exp(-growth * n);
    const double b1 = exp(-growth * (n - 1.0));
    const double b2 = exp(-growth * (n - 2.0));
    double* out = priced + (long long)PRICED_VALUES * k;
    if (today > 0.0) {
        double kept[FIRST_VALUES];
        for (int m = 0; m < FIRST_VALUES; ++m) {
            kept[m] = (double)v[m];
        }
        const long long state = (long long)p[P_STATE];
        const double weight = p[P_WEIGHT];
        Seasoned lattice = {s,   p[P_LOG_U], u, d, dt, {b0, b1, b2}, max(state - 2, 0LL),
                            (int)n, payoff == PAYOFF_LOOKBACK_PUT, kept};
        lattice.read(state, out);
        if (weight > 0.0) {
            double above[PRICED_VALUES];
            lattice.read(state + 1, above);
            for (int m = 0; m < PRICED_VALUES; ++m) {
                out[m] += weight * (above[m] - out[m]);
            }
        }
        return;
    }
    const double l0 = v[0], l1d = v[FIRST_NODES], l1u = v[FIRST_NODES + 1];
    const double l2d = v[2 * FIRST_NODES], l2m = v[2 * FIRST_NODES + 1];
    const double l2u = v[2 * FIRST_NODES + 2];
    // The stock two steps on after one up and one down move: S on CRR (taken as exactly S),
    // S*u*d on another tree.
    const bool drifted = (int)p[P_TREE] != TREE_CRR;
    const double middle = drifted ? s * u * d : s;
    double f, fd, fu;
    if (payoff == PAYOFF_LOOKBACK_PUT) {
        f = s * l0 * b0;
        fd = s * l1u * b1;
        fu = s * u * l1d * b1;
    } else if (payoff == PAYOFF_PUT) {
        f = x * l0 * b0;
        fd = x * l1d * b1;
        fu = x * l1u * b1;
    } else {
        f = s * l0 * b0;
        fd = s * d * l1d * b1;
        fu = s * u * l1u * b1;
    }
    const double delta = (fu - fd) / (s * u - s * d);
    double gamma = 0.0, theta = 0.0;
    if (n >= 2.0) {
        double fdd, fud, fuu;
        if (payoff == PAYOFF_LOOKBACK_PUT) {
            fdd = s * l2u * b2;
            fud = 0.5 * (s * u * l2m + s * l2d) * b2;
            fuu = s * u * u * l2d * b2;
        } else if (payoff == PAYOFF_LOOKBACK_CALL) {
            fdd = s * d * d * l2d * b2;
            fud = 0.5 * s * (l2d + l2m) * b2;
            fuu = s * u * u * l2u * b2;
        } else if (payoff == PAYOFF_CALL) {
            fdd = s * d * d * l2d * b2;
            fud = middle * l2m * b2;
            fuu = s * u * u * l2u * b2;
        } else {
            fdd = x * l2d * b2;
            fud = x * l2m * b2;
            fuu = x * l2u * b2;
        }
        const double suu = s * u * u, sdd = s * d * d;
        gamma = ((fuu - fud) / (suu - middle) - (fud - fdd) / (middle - sdd)) / (0.5 * (suu - sdd));
        // Two steps later with the stock back at S: a lookback's running extreme still S; on
        // another tree the middle node moved back to S along layer 2's slope.
        const bool lookback = payoff == PAYOFF_LOOKBACK_PUT || payoff == PAYOFF_LOOKBACK_CALL;
        const double later = lookback  ? s * l2d * b2
                             : drifted ? fud + (s - middle) * (fuu - fdd) / (suu - sdd)
                                       : fud;
        theta = (later - f) / (2.0 * dt);
    }
    out[0] = f;
    out[1] = delta;
    out[2] = gamma;
    out[3] = theta;
}

#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_lattice_read_out_f32)
extern "C" __global__ void __launch_bounds__(BOOKEND_THREADS)
    lattice_read_out_f32(const double* params, const float* layers, double* priced, int options) {
    read_out<float>(params, layers, priced, options);
}
#endif

#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_lattice_read_out_f64)
extern "C" __global__ void __launch_bounds__(BOOKEND_THREADS)
    lattice_read_out_f64(const double* params, const double* layers, double* priced, int options) {
    read_out<double>(params, layers, priced, options);
}
#endif

// A tile kernel's body, where the compilation is for it (thicket.cuh: one kernel at a time).
template <bool WANTED, typename real, int R, int KIND, bool AMERICAN, bool SEASONED>
__device__ __forceinline__ void tile_kernel_if(const double* params, const real* in, real* out,
                                               real* layers, int top, int steps, int stride,
                                               int halo) {
    if constexpr (WANTED) {
        tile_kernel<real, R, KIND, AMERICAN, SEASONED>(params, in, out, layers, top, steps,
                                                       stride, halo);
    }
}

// The kernels: lattice_tile_<real>_<kind>_<style>_r<R>, at most TILE_BLOCK_NODES / R
// threads a block (R = 16: 256 threads). `BOUNDS` is the launch bounds or, for the American
// lookbacks, a register cap, so that a book's block of 5 warps (N = 2,048) runs 4 to an SM:
// each of an SM's 4 schedulers holds 16,384 registers, and 96 a thread let 5 warps on each;
// uncapped, a block takes more registers and fewer blocks fit an SM (the caps' times:
// docs/benchmarks.md). The host's tile_shape.rs says which R each kind and style takes.
#define BOUNDS_OF(R) __launch_bounds__(TILE_BLOCK_NODES / R)
#define CAPPED(REGISTERS) __maxnreg__(REGISTERS)
#define TILE_KERNEL(real, suffix, KIND, kind, AMERICAN, style, R, BOUNDS)                         \
    extern "C" __global__ void BOUNDS lattice_tile_##suffix##_##kind##_##style##_r##R(            \
        const double* params, const real* in, real* out, real* layers, int top, int steps,       \
        int stride, int halo) {                                                                   \
        tile_kernel_if<thicket_wanted(THICKET_STRING(                                             \
                           lattice_tile_##suffix##_##kind##_##style##_r##R)),                     \
                       real, R, KIND, AMERICAN, true>(params, in, out, layers, top, steps,        \
                                                      stride, halo);                              \
    }

#define TILE_KERNELS(real, suffix, R, LOOKBACK_CAP)                                               \
    TILE_KERNEL(real, suffix, KIND_LOOKBACK, lookback, true, american, R, CAPPED(LOOKBACK_CAP))   \
    TILE_KERNEL(real, suffix, KIND_LOOKBACK, lookback, false, european, R, BOUNDS_OF(R))          \
    TILE_KERNEL(real, suffix, KIND_VANILLA, vanilla, true, american, R, BOUNDS_OF(R))             \
    TILE_KERNEL(real, suffix, KIND_VANILLA, vanilla, false, european, R, BOUNDS_OF(R))

TILE_KERNELS(float, f32, 16, 80)
TILE_KERNELS(double, f64, 16, 96)
// A European vanilla in f32 holds one 4-byte value per node: it takes 32 nodes a lane.
TILE_KERNEL(float, f32, KIND_VANILLA, vanilla, false, european, 32, BOUNDS_OF(32))

// One long lattice: lattice_long_<real>_<kind>_<style>_r<R>, blocks of LONG_THREADS alone on
// their SMs (tile_shape.rs). A lookback that starts today (the common case) runs kernels that
// know it at compile time (today's layer is 0, its nodes 0 .. 2); a seasoned one,
// `lattice_long_..._seasoned_r<R>`, keeps its window at run time. The window in the kernel
// every lookback shared made it spill under the book's register caps (ptxas: 104 bytes in f64
// at 12 nodes a lane, 308 in f32 at 16) and the long lattice 1.55x slower. Without the window,
// the American lookback is fastest under a register cap again, although its block is alone on
// its SM: 96 in f64 (0 spills), 72 in f32; uncapped (134 and 128 registers) it was 7% and 4%
// slower, 80 in f32 3% (docs/benchmarks.md). f64 takes 12 nodes a lane (tile_shape.rs).
#define LONG_BOUNDS __launch_bounds__(LONG_THREADS, 1)
#define LONG_KERNEL(real, suffix, KIND, kind, AMERICAN, style, SEASONED, seasoned, R, BOUNDS)    \
    extern "C" __global__ void BOUNDS lattice_long_##suffix##_##kind##_##style##seasoned##_r##R( \
        const double* params, const real* in, real* out, real* layers, int top, int steps,       \
        int stride, int halo) {                                                                   \
        tile_kernel_if<thicket_wanted(THICKET_STRING(                                             \
                           lattice_long_##suffix##_##kind##_##style##seasoned##_r##R)),           \
                       real, R, KIND, AMERICAN, SEASONED>(params, in, out, layers, top, steps,    \
                                                          stride, halo);                          \
    }
#define LONG_KERNELS(real, suffix, R, LOOKBACK_BOUNDS)                                            \
    LONG_KERNEL(real, suffix, KIND_LOOKBACK, lookback, true, american, false, , R,                \
                LOOKBACK_BOUNDS)                                                                  \
    LONG_KERNEL(real, suffix, KIND_LOOKBACK, lookback, false, european, false, , R, LONG_BOUNDS) \
    LONG_KERNEL(real, suffix, KIND_LOOKBACK, lookback, true, american, true, _seasoned, R,        \
                LONG_BOUNDS)                                                                      \
    LONG_KERNEL(real, suffix, KIND_LOOKBACK, lookback, false, european, true, _seasoned, R,       \
                LONG_BOUNDS)                                                                      \
    LONG_KERNEL(real, suffix, KIND_VANILLA, vanilla, true, american, false, , R, LONG_BOUNDS)    \
    LONG_KERNEL(real, suffix, KIND_VANILLA, vanilla, false, european, false, , R, LONG_BOUNDS)

LONG_KERNELS(float, f32, 16, CAPPED(72))
LONG_KERNELS(double, f64, 12, CAPPED(96))
