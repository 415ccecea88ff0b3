// Fixed work for one build of crates/thicket-schedule/kernels/ils.cu (included as ILS_SOURCE),
// for scripts/schedule-kernel-check.sh: every chain starts from the same MCT schedule (each task
// in order to the machine that finishes it first), then `launches` launches of `kicks` kicks a
// chain with seed 1 and no restarts. Prints the best and summed makespans and a hash of every
// chain's assignment (equal for two builds that take the same moves) and the kicks a second.
//
//     driver FILE CHAINS KICKS LAUNCHES        (FILE: a Braun-format matrix with its header)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include ILS_SOURCE

static bool read_matrix(const char* path, unsigned* tasks, unsigned* machines, std::vector<double>* etc) {
    FILE* f = fopen(path, "r");
    char line[256];
    if (!f || !fgets(line, sizeof line, f)) return false;
    if (sscanf(line, "%u %u", tasks, machines) != 2) return false;
    etc->resize((size_t)*tasks * *machines);
    for (double& time : *etc)
        if (fscanf(f, "%lf", &time) != 1) return false;
    return true;
}

int main(int argc, char** argv) {
    if (argc != 5) return 2;
    unsigned tasks, machines;
    std::vector<double> etc;
    if (!read_matrix(argv[1], &tasks, &machines, &etc)) {
        fprintf(stderr, "%s: not a Braun matrix with a header\n", argv[1]);
        return 2;
    }
    unsigned chains = atoi(argv[2]), kicks = atoi(argv[3]), launches = atoi(argv[4]);
    std::vector<double> loads(machines, 0.0);
    std::vector<unsigned> all((size_t)tasks * chains);
    for (unsigned t = 0; t < tasks; t++) {
        unsigned at = 0;
        for (unsigned m = 1; m < machines; m++)
            if (loads[m] + etc[(size_t)t * machines + m] < loads[at] + etc[(size_t)t * machines + at]) at = m;
        loads[at] += etc[(size_t)t * machines + at];
        for (unsigned c = 0; c < chains; c++) all[(size_t)c * tasks + t] = at;
    }
    double *d_etc, *d_spans;
    unsigned* d_assign;
    unsigned long long* d_done;
    cudaMalloc(&d_etc, etc.size() * 8);
    cudaMalloc(&d_assign, all.size() * 4);
    cudaMalloc(&d_spans, chains * 8);
    cudaMalloc(&d_done, 8);
    cudaMemcpy(d_etc, etc.data(), etc.size() * 8, cudaMemcpyHostToDevice);
    // The kernel's layout (src/gpu/ils.rs, shared_bytes), from the build's own defines; a kernel
    // from before the grouping needs less.
    size_t shared = 32 * machines + 12 * ILS_WARPS + 4 * (2 * machines + 1) + 4 * ILS_SURVIVORS + 2 * machines
                    + 6 * tasks + 8;
    cudaFuncSetAttribute(ils_chains, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    // A launch of descents alone first (module load, clocks), then the timed launches.
    for (int timed = 0; timed < 2; timed++) {
        cudaMemcpy(d_assign, all.data(), all.size() * 4, cudaMemcpyHostToDevice);
        cudaMemset(d_done, 0, 8);
        cudaEvent_t from, to;
        cudaEventCreate(&from);
        cudaEventCreate(&to);
        cudaEventRecord(from);
        for (unsigned l = 0; l < (timed ? launches : 1); l++)
            ils_chains<<<chains, ILS_THREADS, shared>>>(d_etc, tasks, machines, d_assign, d_spans, timed ? kicks : 0,
                                                       1, l, 0.0, d_done);
        cudaEventRecord(to);
        cudaEventSynchronize(to);
        if (cudaGetLastError() != cudaSuccess) {
            fprintf(stderr, "%s: the kernel failed\n", argv[1]);
            return 1;
        }
        if (!timed) continue;
        float ms;
        cudaEventElapsedTime(&ms, from, to);
        std::vector<double> spans(chains);
        std::vector<unsigned> out(all.size());
        unsigned long long done;
        cudaMemcpy(spans.data(), d_spans, chains * 8, cudaMemcpyDeviceToHost);
        cudaMemcpy(out.data(), d_assign, out.size() * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(&done, d_done, 8, cudaMemcpyDeviceToHost);
        double best = spans[0], sum = 0.0;
        for (double s : spans) best = s < best ? s : best, sum += s;
        unsigned long long hash = 1469598103934665603ull;
        for (unsigned m : out) hash = (hash ^ m) * 1099511628211ull;
        printf("best %.17g sum %.17g hash %016llx kicks %llu ms %.1f kicks_per_s %.0f\n", best, sum, hash, done, ms,
               done / (ms / 1000.0));
    }
    return 0;
}
