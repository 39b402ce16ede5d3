// Evaluating and differentiating a linear spline: the inline helpers that the
// spline kernels (spline.cpp) and the attention kernels with learned
// nonlinearities (attention.cpp, attention_feature.cpp) share. Locating one
// point, vectorisable loops over a range of points, the knot-gradient
// scatter, and the fixed chunking that makes knot sums deterministic.
#pragma once
#include <cstdint>

#include "engine/cpu/store_grad.h"
#include "engine/kernels.h"

namespace tapir::cpu {

// Where x falls on the knot grid: interval k in [0, K-2] between knots k and
// k+1, and the position t of x in it (0 at knot k, 1 at knot k+1). Inside the
// range t is in [0, 1]. Outside, linear extrapolation continues the end
// segment (t < 0 or t > 1); constant extrapolation clamps t to [0, 1].
// NaN stays NaN in t, so it reaches the output.
template <typename T>
struct SplineLocator {
  T inv_h, offset, last;  // knot k sits at x with x * inv_h + offset = k; last = K - 1
  int32_t k_max;          // K - 2
  bool linear;

  explicit SplineLocator(const SplineGrid& g)
      : inv_h(static_cast<T>(g.inv_spacing())),
        offset(static_cast<T>(-g.lo() * g.inv_spacing())),
        last(static_cast<T>(g.knots() - 1)),
        k_max(static_cast<int32_t>(g.knots() - 2)),
        linear(g.linear()) {}

  // x in knot units; only used to pick the interval and the extrapolation
  // side, so its rounding (about ulp(K)) does not matter.
  inline T units(T x) const { return x * inv_h + offset; }
  inline int32_t interval(T u) const {
    // Written so that NaN and +-inf pick a valid interval: comparisons with
    // NaN are false.
    const T c = u > T(0) ? (u < last ? u : last) : T(0);
    const int32_t k = static_cast<int32_t>(c);
    return k < k_max ? k : k_max;
  }
  // The position of x in interval k. Adding the small integer offset - k to
  // x * inv_h, rather than subtracting k from units(x), keeps t accurate to
  // the precision of x: at the identity init the spline reproduces its input
  // to a few ulp(x), not ulp(K). The template forms fix the extrapolation at
  // compile time (for the vectorised loops of spline.cpp).
  template <bool Linear>
  inline T position(T x, int32_t k) const {
    T t = x * inv_h + (offset - T(k));
    if constexpr (!Linear) {
      t = t < T(0) ? T(0) : t;
      t = t > T(1) ? T(1) : t;
    }
    return t;
  }
  inline T position(T x, int32_t k) const {
    return linear ? position<true>(x, k) : position<false>(x, k);
  }
  // The derivative of the spline at x is slope_scale(u) * (v[k+1] - v[k]):
  // inv_h inside (and everywhere with linear extrapolation), 0 where constant
  // extrapolation holds the end value.
  template <bool Linear>
  inline T slope_scale(T u) const {
    if constexpr (Linear) return inv_h;
    return (u >= T(0) && u <= last) ? inv_h : T(0);
  }
  inline T slope_scale(T u) const { return linear ? slope_scale<true>(u) : slope_scale<false>(u); }
};

template <typename T>
inline T spline_value(const T* values, int32_t k, T t) {
  return values[k] + t * (values[k + 1] - values[k]);
}

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
    const int32_t k = index[i];
    return loc.template slope_scale<Linear>(loc.units(x[i])) * (values[k + 1] - values[k]) *
           d_out[i];
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
