// Random inputs for the op table (tests/op_table.h), which the gradient
// check (test_gradcheck.cpp) and the CPU/CUDA parity suite
// (test_cuda_parity.cpp) iterate: what kind of values each input holds, and
// the host tensor made from it.
#pragma once
#include "engine/rng.h"
#include "engine/tensor.h"

namespace tapir::test {

enum class Kind { uniform, positive, away_from_zero, ids, mask, causal, off_knots };

struct Input {
  Shape shape;
  Kind kind = Kind::uniform;
  bool grad = true;
  int64_t range = 0;      // ids: values in [0, range); off_knots: the number of knots
  double lo = 0, hi = 0;  // off_knots: the spline's range
};

inline Input U(Shape s) {
  return {s, Kind::uniform, true, 0};
}
inline Input P(Shape s) {
  return {s, Kind::positive, true, 0};
}
inline Input A(Shape s) {
  return {s, Kind::away_from_zero, true, 0};
}
inline Input Const(Shape s) {  // positive, no gradient (ALiBi slopes, a frozen input)
  return {s, Kind::positive, false, 0};
}
inline Input Ids(Shape s, int64_t range) {
  return {s, Kind::ids, false, range};
}
inline Input Mask(Shape s) {
  return {s, Kind::mask, false, 0};
}
inline Input Causal(int64_t T) {
  return {Shape{T, T}, Kind::causal, false, 0};
}
// Inputs of a spline with `knots` knots on [lo, hi]: every value sits in the
// middle 80% of a knot interval (central differences never straddle a kink),
// two intervals' worth on each side lie outside the range.
inline Input OffKnots(Shape s, int64_t knots, double lo, double hi) {
  return {s, Kind::off_knots, true, knots, lo, hi};
}

// A host tensor of f64 (or i32) values drawn from rng, cast to f32 when
// float_type asks. requires_grad is left to the caller.
inline Tensor make_input(const Input& in, DType float_type, Rng& rng) {
  const bool integer = in.kind == Kind::ids || in.kind == Kind::causal;
  Tensor t = empty(in.shape, integer ? DType::i32 : DType::f64, Device::cpu);
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (in.kind) {
      case Kind::uniform:
        t.host_data<double>()[i] = rng.uniform_f64() * 2 - 1;
        break;
      case Kind::positive:
        t.host_data<double>()[i] = 0.5 + rng.uniform_f64() * 1.5;
        break;
      case Kind::away_from_zero: {
        // |x| in [0.1, 1]: kinks (relu) and steep regions stay out of reach of eps.
        const double v = 0.1 + 0.9 * rng.uniform_f64();
        t.host_data<double>()[i] = rng.uniform_f64() < 0.5 ? -v : v;
        break;
      }
      case Kind::ids:
        t.host_data<int32_t>()[i] = static_cast<int32_t>(rng.randint(in.range));
        break;
      case Kind::mask: {
        // A mix of excluded rows, ordinary rows and fractional weights.
        const double r = rng.uniform_f64();
        t.host_data<double>()[i] = r < 0.3 ? 0.0 : (r < 0.8 ? 1.0 : 0.5);
        break;
      }
      case Kind::off_knots: {
        const double h = (in.hi - in.lo) / double(in.range - 1);
        const double k = double(rng.randint(in.range + 3)) - 2;  // intervals -2 .. K
        t.host_data<double>()[i] = in.lo + (k + 0.1 + 0.8 * rng.uniform_f64()) * h;
        break;
      }
      case Kind::causal: {
        const int64_t T = in.shape[0], row = i / T, col = i % T;
        t.host_data<int32_t>()[i] = col > row ? 1 : 0;
        break;
      }
    }
  }
  if (!integer && float_type == DType::f32) t = cast(t, DType::f32);
  return t;
}

}  // namespace tapir::test
