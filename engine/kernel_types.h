// The types the kernels of both backends take (engine/kernels.h): the
// elementwise op codes (with their names and counts) and the knot grid of a linear spline. Defined
// once, so the CPU and CUDA kernels, the ops and the layers all speak of the same values.
#pragma once
#include <cstdint>
#include <string_view>

namespace tapir {

enum class BinaryOp { add, sub, mul, div };
enum class UnaryOp { exp, log, tanh, sqrt, relu, gelu };

// The name of the op each code computes (its name in the op registry), and
// nullptr past the last code. The switches have no default, so a code
// without a name does not compile (-Wswitch); the counts below are taken
// from them, so a loop over every code cannot miss a new one.
constexpr const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::add:
      return "add";
    case BinaryOp::sub:
      return "sub";
    case BinaryOp::mul:
      return "mul";
    case BinaryOp::div:
      return "div";
  }
  return nullptr;
}
constexpr const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::exp:
      return "exp";
    case UnaryOp::log:
      return "log";
    case UnaryOp::tanh:
      return "tanh";
    case UnaryOp::sqrt:
      return "sqrt";
    case UnaryOp::relu:
      return "relu";
    case UnaryOp::gelu:
      return "gelu";
  }
  return nullptr;
}
// The number of codes of Op: 0, 1, ... up to the first without a name.
template <typename Op>
constexpr int op_code_count() {
  int n = 0;
  while (op_name(static_cast<Op>(n)) != nullptr) ++n;
  return n;
}
constexpr int kBinaryOpCount = op_code_count<BinaryOp>();
constexpr int kUnaryOpCount = op_code_count<UnaryOp>();

// The knot grid of a 1-D linear spline: K equally spaced knots
// lo + k (hi - lo) / (K - 1), k = 0..K-1, and what happens outside [lo, hi]:
// the end segments continue (linear) or the end values hold (constant).
// A SplineGrid is valid by construction: the constructor refuses K outside
// [2, kMaxKnots] and a range that is not finite with lo < hi, so no kernel,
// op or layer checks it again.
class SplineGrid {
 public:
  static constexpr int64_t kMaxKnots = 100000;
  SplineGrid(int64_t knots, double lo, double hi, bool linear);  // engine/kernel_types.cpp
  // The constructor's two checks, for a caller that reports them apart.
  static void check_knots(int64_t knots);
  static void check_range(double lo, double hi);

  int64_t knots() const { return knots_; }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool linear() const { return linear_; }  // linear (true) or constant extrapolation
  // The extrapolation as config files spell it (the free functions below),
  // for base/json_fields.h, which knows the grid only as a type.
  static const char* extrapolation_word(bool linear);
  static bool parse_extrapolation_word(std::string_view name);
  double knot(int64_t k) const { return lo_ + double(k) * (hi_ - lo_) / double(knots_ - 1); }
  // Knot intervals per unit of x: (K - 1) / (hi - lo).
  double inv_spacing() const { return double(knots_ - 1) / (hi_ - lo_); }
  // Spelled out: the CUDA backend compiles this header as C++17.
  bool operator==(const SplineGrid& o) const {
    return knots_ == o.knots_ && lo_ == o.lo_ && hi_ == o.hi_ && linear_ == o.linear_;
  }
  bool operator!=(const SplineGrid& o) const { return !(*this == o); }

 private:
  int64_t knots_;
  double lo_, hi_;
  bool linear_;
};

// A grid's extrapolation by name, "linear" or "constant", as config files and
// the command line spell it.
bool parse_extrapolation(std::string_view name);
const char* extrapolation_name(bool linear);

// The feature-kernel attention's phi(x) = softplus(g(x)) + kFeatureEps keeps
// every kernel value positive.
constexpr double kFeatureEps = 1e-4;

}  // namespace tapir
