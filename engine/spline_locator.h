// Where a point falls on a linear spline's knot grid, and the spline's value
// there: the one locator that the CPU spline kernels (engine/cpu/spline_eval.h)
// and the CUDA ones (engine/cuda/spline_eval.cuh) both use, host and device
// compiling the same code, so both backends pick the same interval and
// position for every x, NaN and +-inf included.
#pragma once
#include <cstdint>

#include "engine/kernel_formulas.h"
#include "engine/kernel_types.h"

namespace tapir {

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

  SplineLocator() = default;  // zeros when value-initialised; a kernel argument's placeholder
  // The grid's spacing and offset computed in double, then rounded to T.
  explicit SplineLocator(const SplineGrid& g)
      : inv_h(static_cast<T>(g.inv_spacing())),
        offset(static_cast<T>(-g.lo() * g.inv_spacing())),
        last(static_cast<T>(g.knots() - 1)),
        k_max(static_cast<int32_t>(g.knots() - 2)),
        linear(g.linear()) {}

  // x in knot units; only used to pick the interval and the extrapolation
  // side, so its rounding (about ulp(K)) does not matter.
  TAPIR_HOST_DEVICE T units(T x) const { return x * inv_h + offset; }
  TAPIR_HOST_DEVICE int32_t interval(T u) const {
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
  // compile time (for the vectorised loops of engine/cpu/spline.cpp).
  template <bool Linear>
  TAPIR_HOST_DEVICE T position(T x, int32_t k) const {
    T t = x * inv_h + (offset - T(k));
    if constexpr (!Linear) {
      t = t < T(0) ? T(0) : t;
      t = t > T(1) ? T(1) : t;
    }
    return t;
  }
  TAPIR_HOST_DEVICE T position(T x, int32_t k) const {
    return linear ? position<true>(x, k) : position<false>(x, k);
  }
  // The derivative of the spline at x is slope_scale(u) * (v[k+1] - v[k]):
  // inv_h inside (and everywhere with linear extrapolation), 0 where constant
  // extrapolation holds the end value.
  template <bool Linear>
  TAPIR_HOST_DEVICE T slope_scale(T u) const {
    if constexpr (Linear) return inv_h;
    return (u >= T(0) && u <= last) ? inv_h : T(0);
  }
  TAPIR_HOST_DEVICE T slope_scale(T u) const {
    return linear ? slope_scale<true>(u) : slope_scale<false>(u);
  }
  // The spline's derivative at x, from u = units(x) and k = interval(u).
  template <bool Linear>
  TAPIR_HOST_DEVICE T slope(const T* values, T u, int32_t k) const {
    return slope_scale<Linear>(u) * (values[k + 1] - values[k]);
  }
  TAPIR_HOST_DEVICE T slope(const T* values, T u, int32_t k) const {
    return slope_scale(u) * (values[k + 1] - values[k]);
  }
  // The spline with knot values `values` at x.
  TAPIR_HOST_DEVICE T value(const T* values, T x) const;
};

// The spline's value at position t of interval k.
template <typename T>
TAPIR_HOST_DEVICE inline T spline_value(const T* values, int32_t k, T t) {
  return values[k] + t * (values[k + 1] - values[k]);
}

template <typename T>
TAPIR_HOST_DEVICE inline T SplineLocator<T>::value(const T* values, T x) const {
  const int32_t k = interval(units(x));
  return spline_value(values, k, position(x, k));
}

}  // namespace tapir
