// The thesis's kernel of the module lattice.cu: it follows lattice.cuh (kernels.rs).

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

#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_thesis_layer_f32)
extern "C" __global__ void thesis_layer_f32(const float* in, float* out, int count, float u,
                                            float d, float pu, float pd, int american) {
    extern __shared__ float staged_f32[];
    thesis_layer<float>(in, out, count, u, d, pu, pd, american, staged_f32);
}
#endif

#if !defined(THICKET_KERNEL) || defined(THICKET_KERNEL_thesis_layer_f64)
extern "C" __global__ void thesis_layer_f64(const double* in, double* out, int count, double u,
                                            double d, double pu, double pd, int american) {
    extern __shared__ double staged_f64[];
    thesis_layer<double>(in, out, count, u, d, pu, pd, american, staged_f64);
}
#endif

