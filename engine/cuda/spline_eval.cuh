// Evaluating and differentiating a linear spline on the device, with the
// CPU's locator (engine/spline_locator.h: interval and position of a point,
// NaN and +-inf picking a valid interval, linear or constant
// extrapolation), shared by the spline kernels (spline.cu) and the attention
// kernels with learned nonlinearities (attention.cu, attention_feature.cu).
// Also the deterministic knot sums: per group (a chunk of elements, or one
// (batch, head) pair), each knot is owned by one thread, which adds the
// group's contributions in element order; the groups' sums are then added in
// group order, in double.
#pragma once
#include <cstdint>

#include "engine/cuda/common.cuh"
#include "engine/kernels.h"
#include "engine/spline_locator.h"

namespace tapir::cuda {

// Elements per tile of the knot sums (shared memory: index, position,
// weight of each).
constexpr int kKnotTile = 1024;

// The block's threads add `count` located elements (interval s_index,
// position s_pos, weight s_w, in shared memory) to acc (K, device memory):
// knot k gets w (1 - t) from an element of interval k and w t from one of
// interval k - 1. Thread k % blockDim owns knot k for the whole group, so acc
// needs no synchronisation across tiles; the caller syncs around the tile.
// An index of -2 marks an element to skip.
template <typename T>
__device__ inline void knot_tile_sums(const int32_t* s_index, const T* s_pos, const T* s_w,
                                      int count, int64_t K, T* acc) {
  for (int64_t k = threadIdx.x; k < K; k += blockDim.x) {
    T s = acc[k];
    for (int e = 0; e < count; ++e) {
      const int32_t idx = s_index[e];
      if (idx == k)
        s += s_w[e] - s_w[e] * s_pos[e];
      else if (idx == k - 1)
        s += s_w[e] * s_pos[e];
    }
    acc[k] = s;
  }
}

// out[r * K + k] += the sum, in group order and in double, of partial[p * K + k]
// over the groups p with p % rows == r (rows == 1: all groups).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    knot_finish_kernel(const T* partial, int64_t groups, int64_t K, int64_t rows, T* out) {
  TAPIR_GRID_STRIDE(idx, rows * K) {
    const int64_t r = idx / K, k = idx % K;
    double s = 0;
    for (int64_t p = r; p < groups; p += rows) s += double(partial[p * K + k]);
    out[idx] += static_cast<T>(s);
  }
}

template <typename T>
void knot_finish(const T* partial, int64_t groups, int64_t K, int64_t rows, T* out) {
  knot_finish_kernel<<<grid_for(rows * K), kThreads, 0, stream()>>>(partial, groups, K, rows, out);
  TAPIR_LAUNCH_CHECK("knot_finish_kernel");
}

}  // namespace tapir::cuda
