// RMSNorm over the last axis, fused: one block per row; the forward keeps
// each row's reciprocal root mean square for the backward. The weight's
// gradient is a column sum over rows (fixed tree).
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    rmsnorm_forward_kernel(const T* x, const T* w, int64_t rows, int64_t C, T eps, T* y, T* rstd) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * C;
    T sq = T(0);
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) sq += px[i] * px[i];
    const T s = T(1) / sqrt(block_sum(sq, shared) / T(C) + eps);
    T* py = y + r * C;
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) py[i] = px[i] * s * (w ? w[i] : T(1));
    if (threadIdx.x == 0) rstd[r] = s;
  }
}

// d_x = rstd * (g - xhat * mean(g * xhat)), g = d_y * w, xhat = x * rstd.
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    rmsnorm_backward_kernel(const T* x, const T* w, const T* rstd, const T* d_y, int64_t rows,
                            int64_t C, T* d_x, bool accumulate) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * C;
    const T* g = d_y + r * C;
    const T s = rstd[r];
    T gx_sum = T(0);
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x)
      gx_sum += g[i] * (w ? w[i] : T(1)) * px[i] * s;
    const T gx_mean = block_sum(gx_sum, shared) / T(C);
    T* gx = d_x + r * C;
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) {
      const T d = s * (g[i] * (w ? w[i] : T(1)) - px[i] * s * gx_mean);
      gx[i] = accumulate ? gx[i] + d : d;
    }
  }
}

template <typename T>
struct WeightTerm {  // d_y * xhat at (row, column)
  const T *x, *rstd, *d_y;
  int64_t C;
  __device__ T operator()(int64_t, int64_t r, int64_t i) const {
    return d_y[r * C + i] * x[r * C + i] * rstd[r];
  }
};

}  // namespace

template <typename T>
void rmsnorm_forward(const T* x, const T* w, int64_t rows, int64_t C, T eps, T* y, T* rstd) {
  if (rows <= 0 || C <= 0) return;
  rmsnorm_forward_kernel<<<grid_rows(rows), row_threads(C), 0, stream()>>>(x, w, rows, C, eps, y,
                                                                           rstd);
  TAPIR_LAUNCH_CHECK("rmsnorm_forward_kernel");
}

template <typename T>
void rmsnorm_backward(const T* x, const T* w, const T* rstd, const T* d_y, int64_t rows, int64_t C,
                      T* d_x, T* d_w, bool accumulate_x) {
  if (rows <= 0 || C <= 0) return;
  if (d_x) {
    rmsnorm_backward_kernel<<<grid_rows(rows), row_threads(C), 0, stream()>>>(x, w, rstd, d_y, rows,
                                                                              C, d_x, accumulate_x);
    TAPIR_LAUNCH_CHECK("rmsnorm_backward_kernel");
  }
  if (d_w) column_sums<T>(WeightTerm<T>{x, rstd, d_y, C}, AddInto<T>{d_w, C}, 1, rows, C);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(rmsnorm_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rmsnorm_backward);

}  // namespace tapir::cuda
