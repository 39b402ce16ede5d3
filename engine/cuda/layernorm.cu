// LayerNorm over the last axis, fused: one block per row; the forward keeps
// each row's mean and reciprocal standard deviation for the backward. The
// weight and bias gradients are column sums over rows (fixed tree).
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    layernorm_forward_kernel(const T* x, const T* w, const T* b, int64_t rows, int64_t C, T eps,
                             T* y, T* mean, T* rstd) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * C;
    T sum = T(0);
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) sum += px[i];
    const T m = block_sum(sum, shared) / T(C);
    T var = T(0);
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) var += (px[i] - m) * (px[i] - m);
    const T v = block_sum(var, shared) / T(C);  // biased variance
    const T s = T(1) / sqrt(v + eps);
    T* py = y + r * C;
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x)
      py[i] = (px[i] - m) * s * w[i] + (b ? b[i] : T(0));
    if (threadIdx.x == 0) {
      mean[r] = m;
      rstd[r] = s;
    }
  }
}

// d_x = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = d_y * w.
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    layernorm_backward_kernel(const T* x, const T* w, const T* mean, const T* rstd, const T* d_y,
                              int64_t rows, int64_t C, T* d_x, bool accumulate) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * C;
    const T* g = d_y + r * C;
    const T m = mean[r], s = rstd[r];
    T g_sum = T(0), gx_sum = T(0);
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) {
      const T gi = g[i] * w[i];
      g_sum += gi;
      gx_sum += gi * (px[i] - m) * s;
    }
    const T g_mean = block_sum(g_sum, shared) / T(C);
    const T gx_mean = block_sum(gx_sum, shared) / T(C);
    T* gx = d_x + r * C;
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) {
      const T d = s * (g[i] * w[i] - g_mean - (px[i] - m) * s * gx_mean);
      gx[i] = accumulate ? gx[i] + d : d;
    }
  }
}

template <typename T>
struct WeightTerm {  // d_y * xhat at (row, column)
  const T *x, *mean, *rstd, *d_y;
  int64_t C;
  __device__ T operator()(int64_t, int64_t r, int64_t i) const {
    return d_y[r * C + i] * (x[r * C + i] - mean[r]) * rstd[r];
  }
};
template <typename T>
struct BiasTerm {
  const T* d_y;
  int64_t C;
  __device__ T operator()(int64_t, int64_t r, int64_t i) const { return d_y[r * C + i]; }
};

}  // namespace

template <typename T>
void layernorm_forward(const T* x, const T* w, const T* b, int64_t rows, int64_t C, T eps, T* y,
                       T* mean, T* rstd) {
  if (rows <= 0 || C <= 0) return;
  layernorm_forward_kernel<<<grid_rows(rows), row_threads(C), 0, stream()>>>(x, w, b, rows, C, eps,
                                                                             y, mean, rstd);
  TAPIR_LAUNCH_CHECK("layernorm_forward_kernel");
}

template <typename T>
void layernorm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* d_y,
                        int64_t rows, int64_t C, T* d_x, T* d_w, T* d_b, bool accumulate_x) {
  if (rows <= 0 || C <= 0) return;
  if (d_x) {
    layernorm_backward_kernel<<<grid_rows(rows), row_threads(C), 0, stream()>>>(
        x, w, mean, rstd, d_y, rows, C, d_x, accumulate_x);
    TAPIR_LAUNCH_CHECK("layernorm_backward_kernel");
  }
  if (d_w) column_sums<T>(WeightTerm<T>{x, mean, rstd, d_y, C}, AddInto<T>{d_w, C}, 1, rows, C);
  if (d_b) column_sums<T>(BiasTerm<T>{d_y, C}, AddInto<T>{d_b, C}, 1, rows, C);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(layernorm_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(layernorm_backward);

}  // namespace tapir::cuda
