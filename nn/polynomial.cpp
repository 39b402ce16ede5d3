#include "nn/polynomial.h"

#include <algorithm>
#include <cmath>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "base/file_io.h"
#include "base/json_fields.h"

// The least-squares fit's QR. GCC 12's false -Wmaybe-uninitialized inside its
// own AVX-512 intrinsics (see engine/cpu/eigen.h) is silenced for Eigen's
// headers only, as there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/QR>
#pragma GCC diagnostic pop

namespace tapir {

namespace {

constexpr int kFitPoints = kPolyFitPoints;
constexpr int kMaxDegree = 20;

double to_t(const PolyFunction& f, double x) {
  return (2.0 * x - f.lo - f.hi) / (f.hi - f.lo);
}

}  // namespace

double PolyFunction::operator()(double x) const {
  double t = to_t(*this, x);
  if (clamp) t = std::clamp(t, -1.0, 1.0);
  double y = 0;
  for (auto c = coefficients.rbegin(); c != coefficients.rend(); ++c) y = y * t + *c;
  return y;
}

void PolyFunction::validate(const std::string& what) const {
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi, what,
              ": the range needs finite lo < hi, got [", lo, ", ", hi, "]");
  // The map onto t divides by hi - lo: a width that overflows, or one so
  // small that 2 / (hi - lo) does, gives no usable t.
  TAPIR_CHECK(std::isfinite(hi - lo) && std::isfinite(2.0 / (hi - lo)), what, ": the range [", lo,
              ", ", hi, "] is too ", std::isfinite(hi - lo) ? "narrow" : "wide",
              " to map onto [-1, 1]");
  TAPIR_CHECK(!coefficients.empty() && degree() <= kMaxDegree, what, ": expected 1 to ",
              kMaxDegree + 1, " coefficients, got ", coefficients.size());
  for (double c : coefficients)
    TAPIR_CHECK(std::isfinite(c), what, ": coefficient ", c, " is not finite");
  TAPIR_CHECK(layer >= -1, what, ": layer must be -1 (every block) or a block index, got ", layer);
}

Polynomial::Polynomial(PolyFunction f) : f_(std::move(f)) {
  f_.validate("MLP polynomial");
  coefficients_ = HeapTensor({f_.degree() + 1}, DType::f32);
  float* c = coefficients_.view().host_data<float>();
  for (size_t k = 0; k < f_.coefficients.size(); ++k) c[k] = static_cast<float>(f_.coefficients[k]);
}

Tensor Polynomial::forward(Tensor x) {
  // t onto [-1, 1] over the fitted range, then Horner's rule, in one op.
  const double scale = 2.0 / (f_.hi - f_.lo), shift = -(f_.lo + f_.hi) / (f_.hi - f_.lo);
  Tensor c = coefficients_.view();
  if (x.dtype() != DType::f32) {  // f64 (gradient checks): the exact coefficients
    c = empty({f_.degree() + 1}, x.dtype(), Device::cpu);
    for (size_t k = 0; k < f_.coefficients.size(); ++k)
      c.host_data<double>()[k] = f_.coefficients[k];
    c = tapir::to_device(c, x.device());
  }
  return poly(x, c, scale, shift, f_.clamp);
}

void Polynomial::move_buffers(Device device) {
  coefficients_.to_device(device);
}

PolyFunction fit_polynomial(const std::vector<float>& values, const SplineGrid& grid, double lo,
                            double hi, int degree, FitError* error,
                            const std::vector<double>& weights) {
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi,
              "fit-poly: the range needs finite lo < hi, got [", lo, ", ", hi, "]");
  TAPIR_CHECK(degree >= 0 && degree <= kMaxDegree, "fit-poly: the degree must be in [0, ",
              kMaxDegree, "], got ", degree);
  TAPIR_CHECK(static_cast<int64_t>(values.size()) == grid.knots(), "fit-poly: ", values.size(),
              " values for a grid of ", grid.knots(), " knots");
  Eigen::VectorXd w = Eigen::VectorXd::Ones(kFitPoints);
  if (!weights.empty()) {
    TAPIR_CHECK(static_cast<int>(weights.size()) == kFitPoints, "fit-poly: ", weights.size(),
                " weights, expected one per fit point (", kFitPoints, ")");
    for (int i = 0; i < kFitPoints; ++i) {
      TAPIR_CHECK(std::isfinite(weights[size_t(i)]) && weights[size_t(i)] >= 0, "fit-poly: weight ",
                  weights[size_t(i)], " is not a finite value >= 0");
      w[i] = weights[size_t(i)];
    }
    TAPIR_CHECK(w.sum() > 0, "fit-poly: every weight is 0 (no input fell in [", lo, ", ", hi, "])");
  }
  PolyFunction f;
  f.lo = lo;
  f.hi = hi;
  f.clamp = true;
  // The spline on the fit points, through the spline op itself (f64, cpu).
  Eigen::VectorXd y(kFitPoints);
  {
    NoGrad no_grad;
    Tensor x = empty({kFitPoints}, DType::f64, Device::cpu);
    Tensor v = empty({grid.knots()}, DType::f64, Device::cpu);
    for (int i = 0; i < kFitPoints; ++i)
      x.host_data<double>()[i] = lo + (hi - lo) * double(i) / double(kFitPoints - 1);
    std::copy(values.begin(), values.end(), v.host_data<double>());
    const Tensor s = spline(x, v, grid);
    for (int i = 0; i < kFitPoints; ++i) y[i] = s.host_data<double>()[i];
    reset_step();
  }
  // Weighted least squares in t = -1 .. 1: the Vandermonde matrix's rows and
  // the targets scaled by sqrt(w), solved by QR.
  Eigen::MatrixXd a(kFitPoints, degree + 1);
  for (int i = 0; i < kFitPoints; ++i) {
    const double t = -1.0 + 2.0 * double(i) / double(kFitPoints - 1);
    double power = 1;
    for (int k = 0; k <= degree; ++k, power *= t) a(i, k) = power;
  }
  const Eigen::VectorXd root_w = w.cwiseSqrt();
  const Eigen::VectorXd c =
      (root_w.asDiagonal() * a).colPivHouseholderQr().solve(root_w.cwiseProduct(y));
  f.coefficients.assign(c.data(), c.data() + c.size());
  if (error) {
    const Eigen::VectorXd r = a * c - y;
    error->max_abs = 0;
    for (int i = 0; i < kFitPoints; ++i)
      if (w[i] > 0) error->max_abs = std::max(error->max_abs, std::abs(r[i]));
    error->rms = std::sqrt(w.dot(r.cwiseAbs2()) / w.sum());
  }
  return f;
}

void save_poly_file(const std::string& path, const PolyFile& file) {
  write_file_atomic(path, to_json(fields_to_json(file), 2) + "\n");
}

PolyFile load_poly_file(const std::string& path) {
  return read_json_file(path, [&](const Json& j) {
    PolyFile file;
    file.format.clear();
    fields_from_json(j, file);
    TAPIR_CHECK(file.format == PolyFile::kFormat, "format is '", file.format, "', expected '",
                PolyFile::kFormat, "'");
    TAPIR_CHECK(file.degree >= 0 && file.degree <= kMaxDegree, "degree ", file.degree,
                ": expected 0 to ", kMaxDegree);
    const auto n = static_cast<int64_t>(file.functions.size());
    // One per block at most, and a model has at most 256 (nn/transformer.h).
    TAPIR_CHECK(n > 0 && n <= 256, "expected 1 to 256 functions (one per block), got ", n);
    const bool shared = n == 1 && file.functions.front().poly.layer == -1;
    for (int64_t k = 0; k < n; ++k) {
      const PolyFunction& f = file.functions[size_t(k)].poly;
      f.validate("function " + std::to_string(k));
      TAPIR_CHECK(f.degree() == file.degree, "function ", k, " has ", f.coefficients.size(),
                  " coefficients, expected ", file.degree + 1, " for degree ", file.degree);
      const FitError& error = file.functions[size_t(k)].error;
      TAPIR_CHECK(std::isfinite(error.max_abs) && error.max_abs >= 0 && std::isfinite(error.rms) &&
                      error.rms >= 0,
                  "function ", k, ": max_abs_error ", error.max_abs, " and rms_error ", error.rms,
                  ", expected finite errors >= 0");
      TAPIR_CHECK(f.layer == (shared ? -1 : k), "function ", k, " is for layer ", f.layer,
                  ", expected ", shared ? -1 : k,
                  " (one polynomial for every block, or one per block in order)");
    }
    return file;
  });
}

std::vector<PolyFunction> poly_functions(const PolyFile& file) {
  std::vector<PolyFunction> out;
  for (const FittedPoly& f : file.functions) out.push_back(f.poly);
  return out;
}

}  // namespace tapir
