// RMSNorm over the last axis, fused: the forward keeps each row's reciprocal
// root mean square so the backward needs no second reduction over x. Every
// row sum runs in lanes (engine/cpu/lanes.h).
#include <cmath>

#include "engine/cpu/lanes.h"
#include "engine/cpu/store_grad.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

template <typename T>
void rmsnorm_forward(const T* x, const T* w, int64_t rows, int64_t C, T eps, T* y, T* rstd) {
  parallel_for(rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* px = x + r * C;
      const T sq = lane_dot(px, px, C);
      const T s = T(1) / std::sqrt(sq / T(C) + eps);
      T* py = y + r * C;
      for (int64_t i = 0; i < C; ++i) py[i] = px[i] * s * (w ? w[i] : T(1));
      rstd[r] = s;
    }
  });
}

// With xhat = x * rstd and g = d_y * w:
//   d_x = rstd * (g - xhat * mean(g * xhat)),  d_w = sum over rows of d_y * xhat.
template <typename T>
void rmsnorm_backward(const T* x, const T* w, const T* rstd, const T* d_y, int64_t rows, int64_t C,
                      T* d_x, T* d_w, bool accumulate_x) {
  if (d_x) {
    parallel_for(rows, 16, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* px = x + r * C;
        const T* g = d_y + r * C;
        const T s = rstd[r];
        const T gx_mean =
            lane_sum<T>(C, [&](int64_t i) { return g[i] * (w ? w[i] : T(1)) * px[i] * s; }) / T(C);
        T* gx = d_x + r * C;
        store_grad(accumulate_x, 0, C, gx,
                   [&](int64_t i) { return s * (g[i] * (w ? w[i] : T(1)) - px[i] * s * gx_mean); });
      }
    });
  }
  // The weight's gradient: a sum over rows in row order (deterministic).
  if (d_w) {
    for (int64_t r = 0; r < rows; ++r) {
      const T* px = x + r * C;
      const T* g = d_y + r * C;
      for (int64_t i = 0; i < C; ++i) d_w[i] += g[i] * px[i] * rstd[r];
    }
  }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(rmsnorm_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rmsnorm_backward);

}  // namespace tapir::cpu
