// Eigen for the CPU kernels (elementwise.cpp, softmax.cpp, attention.cpp) and
// engine/gemm_libraries.cpp (bench --gemm): the kernels'
// one place to include it, single-threaded (the kernels parallelise
// themselves). Outside the kernels only nn/polynomial.cpp uses it (a QR for
// the polynomial fit), with the same pragma.
//
// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsics
// (_mm512_undefined_ps and friends initialise a variable from itself; GCC
// PR 105593), wherever Eigen's AVX-512 packets are instantiated. The false
// positive is attributed to Eigen's templates, so it is silenced for the
// lines of Eigen's headers only: the pragma's scope ends here, and the
// kernels' own code keeps every warning. The AVX-512 compile check
// (TAPIR_AVX512_CHECK in CMakeLists.txt) keeps it honest.
#pragma once

#define EIGEN_DONT_PARALLELIZE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#pragma GCC diagnostic pop

#include <cstdint>

#include "engine/cpu/lanes.h"

namespace tapir::cpu {

// The numerators of a softmax row: y[j] = exp(x[j] - m) for j < n, with m
// the row's maximum (returned); y may be x. The exponential is Eigen's
// vectorised one. *sum gets the sum of y in lanes (engine/cpu/lanes.h); y's
// bits depend only on n and on where x and y sit (Eigen treats an unaligned
// head apart), never on the thread that runs it.
template <typename T>
T exp_minus_max(const T* x, int64_t n, T* y, T* sum) {
  using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
  const Eigen::Map<const Row> in(x, n);
  Eigen::Map<Row> out(y, n);
  const T m = in.maxCoeff();
  out = (in - m).exp();
  *sum = lane_sum(y, n);
  return m;
}

}  // namespace tapir::cpu
