// LayerNorm over the last axis, fused: the forward keeps each row's mean and
// reciprocal standard deviation so the backward needs no second pass over x.
// Every row sum runs in lanes (engine/cpu/lanes.h).
#include <cmath>
#include <vector>

#include "engine/cpu/lanes.h"
#include "engine/cpu/store_grad.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

template <typename T>
void layernorm_forward(const T* x, const T* w, const T* b, int64_t rows, int64_t C, T eps, T* y,
                       T* mean, T* rstd) {
  parallel_for(rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* px = x + r * C;
      const T m = lane_sum(px, C) / T(C);
      // The biased variance, as in the usual definition.
      const T v = lane_sum<T>(C, [&](int64_t i) { return (px[i] - m) * (px[i] - m); }) / T(C);
      const T s = T(1) / std::sqrt(v + eps);
      T* py = y + r * C;
      for (int64_t i = 0; i < C; ++i) py[i] = (px[i] - m) * s * w[i] + (b ? b[i] : T(0));
      mean[r] = m;
      rstd[r] = s;
    }
  });
}

// With xhat = (x - mean) * rstd and g = d_y * w:
//   d_x = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//   d_w = sum over rows of d_y * xhat,  d_b = sum over rows of d_y.
template <typename T>
void layernorm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* d_y,
                        int64_t rows, int64_t C, T* d_x, T* d_w, T* d_b, bool accumulate_x) {
  if (d_x) {
    parallel_for(rows, 16, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* px = x + r * C;
        const T* g = d_y + r * C;
        const T m = mean[r], s = rstd[r];
        const T g_mean = lane_sum<T>(C, [&](int64_t i) { return g[i] * w[i]; }) / T(C);
        const T gx_mean =
            lane_sum<T>(C, [&](int64_t i) { return g[i] * w[i] * (px[i] - m) * s; }) / T(C);
        T* gx = d_x + r * C;
        store_grad(accumulate_x, 0, C, gx, [&](int64_t i) {
          return s * (g[i] * w[i] - g_mean - (px[i] - m) * s * gx_mean);
        });
      }
    });
  }
  // Parameter gradients: a sum over rows in row order (deterministic).
  if (d_w || d_b) {
    for (int64_t r = 0; r < rows; ++r) {
      const T* px = x + r * C;
      const T* g = d_y + r * C;
      const T m = mean[r], s = rstd[r];
      if (d_w)
        for (int64_t i = 0; i < C; ++i) d_w[i] += g[i] * (px[i] - m) * s;
      if (d_b)
        for (int64_t i = 0; i < C; ++i) d_b[i] += g[i];
    }
  }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(layernorm_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(layernorm_backward);

}  // namespace tapir::cpu
