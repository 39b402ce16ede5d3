// Reductions: sum over an axis, max over the last axis.
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

template <typename T>
void sum_axis_forward(const T* x, int64_t outer, int64_t n, int64_t inner, T* out) {
  parallel_for(outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      T* po = out + o * inner;
      for (int64_t j = 0; j < inner; ++j) po[j] = 0;
      for (int64_t k = 0; k < n; ++k) {
        const T* px = x + (o * n + k) * inner;
        for (int64_t j = 0; j < inner; ++j) po[j] += px[j];
      }
    }
  });
}

template <typename T>
void sum_axis_backward(const T* d_out, int64_t outer, int64_t n, int64_t inner, T scale, T* d_x) {
  parallel_for(outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const T* g = d_out + o * inner;
      for (int64_t k = 0; k < n; ++k) {
        T* px = d_x + (o * n + k) * inner;
        for (int64_t j = 0; j < inner; ++j) px[j] += g[j] * scale;
      }
    }
  });
}

template <typename T>
void max_last_forward(const T* x, int64_t rows, int64_t n, T* out, int32_t* argmax) {
  parallel_for(rows, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* px = x + r * n;
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i)
        if (px[i] > px[best]) best = i;
      out[r] = px[best];
      argmax[r] = static_cast<int32_t>(best);
    }
  });
}

template <typename T>
void max_last_backward(const T* d_out, const int32_t* argmax, int64_t rows, int64_t n, T* d_x) {
  for (int64_t r = 0; r < rows; ++r) d_x[r * n + argmax[r]] += d_out[r];
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(sum_axis_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(sum_axis_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(max_last_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(max_last_backward);

}  // namespace tapir::cpu
