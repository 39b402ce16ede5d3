// Evaluating and differentiating a linear spline: the inline helpers that the
// spline kernels (spline.cpp) and the attention kernels with learned
// nonlinearities (attention.cpp, attention_feature.cpp) share: vectorisable
// loops over a range of points (each located by the SplineLocator of
// engine/spline_locator.h, shared with the CUDA kernels), the knot-gradient
// scatter, and the fixed chunking that makes knot sums deterministic.
#pragma once
#include <cstdint>

#include "engine/cpu/store_grad.h"
#include "engine/kernels.h"
#include "engine/spline_locator.h"

namespace tapir::cpu {

// The element loops take restrict pointers and the locator by value: with
// the pointers read through a lambda's captures, or possibly aliasing the
// output, the compiler would not vectorise them.
template <typename T, bool Linear>
inline void spline_values_range(const SplineLocator<T> loc, const T* __restrict x, int64_t n,
                                const T* __restrict values, T* __restrict out) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = loc.interval(loc.units(x[i]));
    out[i] = spline_value(values, k, loc.template position<Linear>(x[i], k));
  }
}

// Intervals and positions of n elements, and d_x += f'(x) d_out (d_x may be
// null; with accumulate false, d_x = f'(x) d_out, its old contents unread).
template <typename T, bool Linear>
inline void spline_locate_range(const SplineLocator<T> loc, const T* __restrict x, int64_t n,
                                const T* __restrict values, const T* __restrict d_out,
                                T* __restrict d_x, int32_t* __restrict index,
                                T* __restrict position, bool accumulate = true) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = loc.interval(loc.units(x[i]));
    index[i] = k;
    position[i] = loc.template position<Linear>(x[i], k);
  }
  if (!d_x) return;
  store_grad(accumulate, 0, n, d_x, [&](int64_t i) {
    return loc.template slope<Linear>(values, loc.units(x[i]), index[i]) * d_out[i];
  });
}

// The knot sums of n located elements with weights d_out: knot k of an
// element's interval gets d_out (1 - t), knot k + 1 gets d_out t. Elements go
// to kSplineCopies interleaved histograms (copies, kSplineCopies * K,
// accumulated into), so that runs of elements in the same interval do not
// wait on each other's stores.
constexpr int kSplineCopies = 4;
template <typename T>
inline void spline_scatter(const int32_t* index, const T* position, const T* d_out, int64_t n,
                           int64_t K, T* copies) {
  for (int64_t i = 0; i < n; ++i) {
    T* h = copies + (i % kSplineCopies) * K + index[i];
    const T g = d_out[i], t = position[i];
    h[0] += g - g * t;
    h[1] += g * t;
  }
}
// out[k] = the sum of the copies' entries for knot k, in copy order.
template <typename T>
inline void spline_gather_copies(const T* copies, int64_t K, T* out) {
  for (int64_t k = 0; k < K; ++k) {
    T s = T(0);
    for (int c = 0; c < kSplineCopies; ++c) s += copies[c * K + k];
    out[k] = s;
  }
}

// Knot-gradient sums are formed per fixed chunk of this many elements (or
// per (batch, head) pair in attention) and the partial sums added in chunk
// order, so the result does not depend on the thread count.
constexpr int64_t kSplineChunk = 1 << 14;

}  // namespace tapir::cpu
