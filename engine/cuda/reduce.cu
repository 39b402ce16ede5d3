// Reductions: sum over an axis (a column sum with a fixed tree) and max over
// the last axis (one block per row).
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

template <typename T>
struct AxisTerm {
  const T* x;
  int64_t n, inner;
  __device__ T operator()(int64_t o, int64_t k, int64_t j) const {
    return x[(o * n + k) * inner + j];
  }
};
template <typename T>
struct StoreInto {
  T* out;
  int64_t inner;
  __device__ void operator()(int64_t o, int64_t j, T s) const { out[o * inner + j] = s; }
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
    sum_axis_backward_kernel(const T* d_out, int64_t outer, int64_t n, int64_t inner, T scale,
                             T* d_x) {
  TAPIR_GRID_STRIDE(i, outer * n * inner) {
    const int64_t j = i % inner, o = i / (n * inner);
    d_x[i] += d_out[o * inner + j] * scale;
  }
}

// The CPU rule, `if (x[i] > x[best]) best = i` from best = 0: the first
// index of the maximum among the non-NaN elements, except that a NaN at index
// 0 is never replaced. Threads scan strided elements in order; candidates
// combine by (valid, larger, smaller index).
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    max_last_kernel(const T* x, int64_t rows, int64_t n, T* out, int32_t* argmax) {
  __shared__ T s_value[32];
  __shared__ int64_t s_index[32];
  __shared__ bool s_valid[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * n;
    bool valid = false;
    T best = T(0);
    int64_t index = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const T v = px[i];
      if (v == v && (!valid || v > best)) {
        valid = true;
        best = v;
        index = i;
      }
    }
    // Combine: first within warps (shuffles), then the warps in order.
    for (int offset = 16; offset > 0; offset /= 2) {
      const T ov = __shfl_down_sync(0xffffffffu, best, offset);
      const int64_t oi = __shfl_down_sync(0xffffffffu, index, offset);
      const bool ok = __shfl_down_sync(0xffffffffu, valid, offset);
      if (ok && (!valid || ov > best || (ov == best && oi < index))) {
        valid = true;
        best = ov;
        index = oi;
      }
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
      s_value[warp] = best;
      s_index[warp] = index;
      s_valid[warp] = valid;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < int(blockDim.x / 32); ++w)
        if (s_valid[w] &&
            (!valid || s_value[w] > best || (s_value[w] == best && s_index[w] < index))) {
          valid = true;
          best = s_value[w];
          index = s_index[w];
        }
      const T first = px[0];
      if (first != first || !valid) index = 0;  // NaN at 0 (or all NaN) keeps index 0
      out[r] = px[index];
      argmax[r] = static_cast<int32_t>(index);
    }
    __syncthreads();
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    max_last_backward_kernel(const T* d_out, const int32_t* argmax, int64_t rows, int64_t n,
                             T* d_x) {
  TAPIR_GRID_STRIDE(r, rows) {
    d_x[r * n + argmax[r]] += d_out[r];
  }
}

}  // namespace

template <typename T>
void sum_axis_forward(const T* x, int64_t outer, int64_t n, int64_t inner, T* out) {
  column_sums<T>(AxisTerm<T>{x, n, inner}, StoreInto<T>{out, inner}, outer, n, inner);
}

template <typename T>
void sum_axis_backward(const T* d_out, int64_t outer, int64_t n, int64_t inner, T scale, T* d_x) {
  const int64_t total = outer * n * inner;
  if (total <= 0 || !d_x) return;
  sum_axis_backward_kernel<<<grid_for(total), kThreads, 0, stream()>>>(d_out, outer, n, inner,
                                                                       scale, d_x);
  TAPIR_LAUNCH_CHECK("sum_axis_backward_kernel");
}

template <typename T>
void max_last_forward(const T* x, int64_t rows, int64_t n, T* out, int32_t* argmax) {
  if (rows <= 0 || n <= 0) return;
  max_last_kernel<<<grid_rows(rows), row_threads(n), 0, stream()>>>(x, rows, n, out, argmax);
  TAPIR_LAUNCH_CHECK("max_last_kernel");
}

template <typename T>
void max_last_backward(const T* d_out, const int32_t* argmax, int64_t rows, int64_t n, T* d_x) {
  if (rows <= 0 || !d_x) return;
  max_last_backward_kernel<<<grid_for(rows), kThreads, 0, stream()>>>(d_out, argmax, rows, n, d_x);
  TAPIR_LAUNCH_CHECK("max_last_backward_kernel");
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(sum_axis_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(sum_axis_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(max_last_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(max_last_backward);

}  // namespace tapir::cuda
