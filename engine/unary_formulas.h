// The elementwise unary ops (UnaryOp, engine/kernel_types.h) as formulas
// that the CPU kernels (engine/cpu/elementwise.cpp) and the CUDA kernels
// (engine/cuda/elementwise.cu) share, one struct per op: value(x) is
// y = f(x), and grad(x, y, g) the gradient it passes back, f'(x) g, written
// from x, y = f(x) and g = d y, whichever the op reads cheapest.
// visit_unary_op turns a code into its formula, so each backend writes one
// loop for every op, and a new op is one struct and one case here.
#pragma once
#include <cmath>
#include <type_traits>

#include "engine/kernel_formulas.h"
#include "engine/kernel_types.h"

namespace tapir {

// The element type of x: x's own type for a number, X::Scalar for an Eigen
// array expression.
template <typename X, typename = void>
struct FormulaScalar {
  using type = X;
};
template <typename X>
struct FormulaScalar<X, std::void_t<typename X::Scalar>> {
  using type = typename X::Scalar;
};

// kOnArrays: the formula uses only what Eigen arrays have as well (+, *,
// exp, erf), so the CPU evaluates it on a range of elements at once,
// vectorised. The others are applied element by element: they branch, or
// call the scalar std:: functions, whose bits Eigen's vectorised ones do
// not match.
struct ExpFormula {
  static constexpr bool kOnArrays = false;
  template <typename T>
  TAPIR_HOST_DEVICE static T value(T x) {
    using std::exp;
    return exp(x);
  }
  template <typename T>
  TAPIR_HOST_DEVICE static T grad(T, T y, T g) {
    return y * g;
  }
};

struct LogFormula {
  static constexpr bool kOnArrays = false;
  template <typename T>
  TAPIR_HOST_DEVICE static T value(T x) {
    using std::log;
    return log(x);
  }
  template <typename T>
  TAPIR_HOST_DEVICE static T grad(T x, T, T g) {
    return g / x;
  }
};

struct TanhFormula {
  static constexpr bool kOnArrays = false;
  template <typename T>
  TAPIR_HOST_DEVICE static T value(T x) {
    using std::tanh;
    return tanh(x);
  }
  template <typename T>
  TAPIR_HOST_DEVICE static T grad(T, T y, T g) {
    return (T(1) - y * y) * g;
  }
};

struct SqrtFormula {
  static constexpr bool kOnArrays = false;
  template <typename T>
  TAPIR_HOST_DEVICE static T value(T x) {
    using std::sqrt;
    return sqrt(x);
  }
  template <typename T>
  TAPIR_HOST_DEVICE static T grad(T, T y, T g) {
    return T(0.5) / y * g;
  }
};

struct ReluFormula {
  static constexpr bool kOnArrays = false;
  template <typename T>
  TAPIR_HOST_DEVICE static T value(T x) {
    return x > T(0) ? x : T(0);
  }
  template <typename T>
  TAPIR_HOST_DEVICE static T grad(T x, T, T g) {
    return x > T(0) ? g : T(0);
  }
};

// GeLU, exact (erf) form: 0.5 x (1 + erf(x / sqrt 2)), and its derivative
// Phi(x) + x phi(x). x is a number or an Eigen array (Eigen's float erf is
// within a few ulp of std::erf).
struct GeluFormula {
  static constexpr bool kOnArrays = true;
  template <typename X>
  TAPIR_HOST_DEVICE static auto value(const X& x) {
    using T = typename FormulaScalar<X>::type;
    using std::erf;
    return T(0.5) * x * (T(1) + erf(x * T(0.70710678118654752440)));
  }
  template <typename X>
  TAPIR_HOST_DEVICE static auto grad(const X& x, const X&, const X& g) {
    using T = typename FormulaScalar<X>::type;
    using std::erf;
    using std::exp;
    return g * (T(0.5) * (T(1) + erf(x * T(0.70710678118654752440))) +
                x * exp(T(-0.5) * (x * x)) * T(0.39894228040143267794));
  }
};

// fn(Formula{}) for the formula of op. The switch has no default: a code
// without a formula does not compile (-Wswitch).
template <typename Fn>
inline void visit_unary_op(UnaryOp op, Fn&& fn) {
  switch (op) {
    case UnaryOp::exp:
      return fn(ExpFormula{});
    case UnaryOp::log:
      return fn(LogFormula{});
    case UnaryOp::tanh:
      return fn(TanhFormula{});
    case UnaryOp::sqrt:
      return fn(SqrtFormula{});
    case UnaryOp::relu:
      return fn(ReluFormula{});
    case UnaryOp::gelu:
      return fn(GeluFormula{});
  }
}

}  // namespace tapir
