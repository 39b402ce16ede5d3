// Helpers shared by the op implementations: dtype dispatch and input checks.
#pragma once
#include <cmath>

#include "engine/cpu/kernels.h"
#include "engine/tensor.h"

namespace tapir {

// Calls f.template operator()<float>() or <double>() for x's dtype; i32 fails.
template <typename F>
decltype(auto) dispatch_float(const char* op, DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f.template operator()<float>();
    case DType::f64:
      return f.template operator()<double>();
    default:
      fail(op, ": expected an f32 or f64 tensor, got ", dtype_name(t));
  }
}

inline void check_defined(const char* op, Tensor t, const char* what) {
  TAPIR_CHECK(t.defined(), op, ": ", what, " is undefined");
}

inline void check_same_dtype(const char* op, Tensor a, Tensor b) {
  TAPIR_CHECK(a.dtype() == b.dtype(), op, ": dtypes differ (", a.describe(), " and ", b.describe(),
              ")");
}

inline void check_dtype(const char* op, Tensor t, DType want, const char* what) {
  TAPIR_CHECK(t.dtype() == want, op, ": ", what, " must be ", dtype_name(want), ", got ",
              t.describe());
}

// Normalises a possibly negative axis and checks it is in range.
inline int normalize_axis(const char* op, Tensor t, int axis) {
  int a = axis < 0 ? axis + t.rank() : axis;
  TAPIR_CHECK(a >= 0 && a < t.rank(), op, ": axis ", axis, " out of range for ", t.describe());
  return a;
}

// Checks a spline's values (..., K) and range and returns its knot grid.
inline cpu::SplineGrid spline_grid(const char* op, Tensor values, double lo, double hi,
                                   bool linear_extrapolation) {
  check_defined(op, values, "values");
  const int64_t K = values.rank() >= 1 ? values.shape().last() : 0;
  TAPIR_CHECK(K >= 2, op, ": spline values must have at least 2 knots, got ", values.describe());
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi, op,
              ": spline range must be finite with lo < hi, got [", lo, ", ", hi, "]");
  return cpu::SplineGrid{K, lo, hi, linear_extrapolation};
}

}  // namespace tapir
