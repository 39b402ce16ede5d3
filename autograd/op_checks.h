// Helpers shared by the op implementations: the checks of their inputs
// (each failure a one-line tapir::Error naming the op), on top of the
// engine's device and dtype dispatch (engine/dispatch.h), which every op
// file reaches through this header.
#pragma once

#include "autograd/tape.h"
#include "engine/dispatch.h"
#include "engine/tensor.h"

namespace tapir {

// Element 0 of t's gradient as a double, wherever it lives (one value).
inline double grad_item(Tensor t) {
  return grad_view(t).item();
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

// The data of an optional operand, or null when it is undefined.
template <typename F>
F* data_or_null(Tensor t) {
  return t.defined() ? t.data<F>() : nullptr;
}

// Normalises a possibly negative axis and checks it is in range.
inline int normalize_axis(const char* op, Tensor t, int axis) {
  int a = axis < 0 ? axis + t.rank() : axis;
  TAPIR_CHECK(a >= 0 && a < t.rank(), op, ": axis ", axis, " out of range for ", t.describe());
  return a;
}

// The spline ops keep their grid on the node for backward: f[2] = lo,
// f[3] = hi, i[2] = knots, i[3] = linear extrapolation.
inline void save_grid(Node& node, const SplineGrid& grid) {
  node.f[2] = grid.lo();
  node.f[3] = grid.hi();
  node.i[2] = grid.knots();
  node.i[3] = grid.linear() ? 1 : 0;
}
inline SplineGrid saved_grid(const Node& node) {
  return SplineGrid(node.i[2], node.f[2], node.f[3], node.i[3] != 0);
}

// Checks that a spline's values (..., K) hold one value per knot of `grid`.
inline void check_spline_values(const char* op, Tensor values, const SplineGrid& grid) {
  check_defined(op, values, "values");
  TAPIR_CHECK(values.rank() >= 1 && values.shape().last() == grid.knots(), op,
              ": spline values must hold one value per knot (", grid.knots(), "), got ",
              values.describe());
}

}  // namespace tapir
