// Evaluating a linear spline at one point: the inline helpers that the
// spline kernels (spline.cpp) and the attention kernels with learned
// nonlinearities (attention.cpp, attention_feature.cpp) share, and the fixed
// chunking that makes their knot-gradient sums deterministic.
#pragma once
#include <cstdint>

#include "engine/cpu/kernels.h"

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
      : inv_h(static_cast<T>(double(g.knots - 1) / (g.hi - g.lo))),
        offset(static_cast<T>(-g.lo * (double(g.knots - 1) / (g.hi - g.lo)))),
        last(static_cast<T>(g.knots - 1)),
        k_max(static_cast<int32_t>(g.knots - 2)),
        linear(g.linear) {}

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
  // to a few ulp(x), not ulp(K).
  inline T position(T x, int32_t k) const {
    T t = x * inv_h + (offset - T(k));
    if (!linear) {
      t = t < T(0) ? T(0) : t;
      t = t > T(1) ? T(1) : t;
    }
    return t;
  }
  // The derivative of the spline at x is slope_scale(u) * (v[k+1] - v[k]):
  // inv_h inside (and everywhere with linear extrapolation), 0 where constant
  // extrapolation holds the end value.
  inline T slope_scale(T u) const { return (linear || (u >= T(0) && u <= last)) ? inv_h : T(0); }
};

template <typename T>
inline T spline_value(const T* values, int32_t k, T t) {
  return values[k] + t * (values[k + 1] - values[k]);
}

// Knot-gradient sums are formed per fixed chunk of this many elements (or
// per (batch, head) pair in attention) and the partial sums added in chunk
// order, so the result does not depend on the thread count.
constexpr int64_t kSplineChunk = 1 << 14;

}  // namespace tapir::cpu
