// The single-precision GEMM measurements of `tapir bench` (lab/bench.h): the
// peak its MFU is taken against, and one direct BLAS call to compare tapir's
// matmul with. Here because the engine is the only layer that calls BLAS.
#pragma once
#include <cstdint>

#include "engine/device.h"

namespace tapir {

// GFLOP/s of the fastest of `reps` square products of size n (after two
// untimed ones) through the engine's gemm kernel on `device`: OpenBLAS on
// the cpu, split over the threads as every product of a step is; cuBLAS on
// cuda, synchronized. The fastest, not the median: a peak is what the
// machine can do, and on a shared machine a few slow products (another
// process on the core) would otherwise lower it and raise every MFU of the
// run.
double sgemm_peak_gflops(Device device, int64_t n, int reps);

// C = A B for row-major n x n host matrices in one cblas_sgemm call on the
// calling thread: no blocks over the pool, no kernel profile.
void direct_sgemm(int64_t n, const float* a, const float* b, float* c);

}  // namespace tapir
