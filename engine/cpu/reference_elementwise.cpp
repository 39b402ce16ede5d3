// The naive reference kernels (engine/reference.h) that map element by
// element: the binary and unary ops, affine, the fixed polynomial, the
// linear spline and the rotary positions. Each value is formed in double
// and rounded once; a broadcast operand's gradient is summed in double.
#include <cmath>
#include <vector>

#include "engine/cpu/reference_common.h"
#include "engine/kernels.h"
#include "engine/reference.h"

namespace tapir::reference {

using detail::locate;
using detail::spline_at;
using detail::spline_slope;
using detail::SplinePoint;
using detail::store;

namespace {

double binary_value(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::add:
      return a + b;
    case BinaryOp::sub:
      return a - b;
    case BinaryOp::mul:
      return a * b;
    case BinaryOp::div:
      return a / b;
  }
  return 0;
}

// y = f(x) and f'(x), written from x alone.
double unary_value(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::exp:
      return std::exp(x);
    case UnaryOp::log:
      return std::log(x);
    case UnaryOp::tanh:
      return std::tanh(x);
    case UnaryOp::sqrt:
      return std::sqrt(x);
    case UnaryOp::relu:
      return x > 0 ? x : 0.0;
    case UnaryOp::gelu:  // x Phi(x), Phi the standard normal's distribution function
      return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  }
  return 0;
}
double unary_derivative(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::exp:
      return std::exp(x);
    case UnaryOp::log:
      return 1 / x;
    case UnaryOp::tanh:
      return 1 - std::tanh(x) * std::tanh(x);
    case UnaryOp::sqrt:
      return 0.5 / std::sqrt(x);
    case UnaryOp::relu:
      return x > 0 ? 1.0 : 0.0;
    case UnaryOp::gelu:  // Phi(x) + x phi(x), phi the standard normal's density
      return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
             x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
  }
  return 0;
}

}  // namespace

// out[i] = a[i % n_a] op b[i % n_b] over max(n_a, n_b) elements (the smaller
// operand repeats).
template <typename T>
void binary_forward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, T* out) {
  const int64_t n = n_a == 0 || n_b == 0 ? 0 : std::max(n_a, n_b);
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(binary_value(op, double(a[i % n_a]), double(b[i % n_b])));
}

// d_a[i % n_a] += d(a op b)/da d_out[i], d_b likewise: add (1, 1), sub (1, -1),
// mul (b, a), div (1 / b, -a / b^2); a repeated operand's gradient sums
// over its repeats.
template <typename T>
void binary_backward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, const T* d_out,
                     T* d_a, T* d_b) {
  const int64_t n = n_a == 0 || n_b == 0 ? 0 : std::max(n_a, n_b);
  std::vector<double> ga(static_cast<size_t>(n_a), 0.0), gb(static_cast<size_t>(n_b), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const double x = double(a[i % n_a]), y = double(b[i % n_b]), g = double(d_out[i]);
    switch (op) {
      case BinaryOp::add:
        ga[i % n_a] += g;
        gb[i % n_b] += g;
        break;
      case BinaryOp::sub:
        ga[i % n_a] += g;
        gb[i % n_b] -= g;
        break;
      case BinaryOp::mul:
        ga[i % n_a] += g * y;
        gb[i % n_b] += g * x;
        break;
      case BinaryOp::div:
        ga[i % n_a] += g / y;
        gb[i % n_b] -= g * x / (y * y);
        break;
    }
  }
  for (int64_t i = 0; d_a && i < n_a; ++i) store(true, d_a[i], ga[i]);
  for (int64_t i = 0; d_b && i < n_b; ++i) store(true, d_b[i], gb[i]);
}

// out = f(x): exp, log, tanh, sqrt, relu, or GeLU 0.5 x (1 + erf(x / sqrt 2)).
template <typename T>
void unary_forward(UnaryOp op, const T* x, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(unary_value(op, double(x[i])));
}

// d_x += f'(x) d_out, from x (the tuned kernel reads y where cheaper).
template <typename T>
void unary_backward(UnaryOp op, const T* x, const T*, const T* d_out, int64_t n, T* d_x,
                    bool accumulate) {
  for (int64_t i = 0; i < n; ++i)
    store(accumulate, d_x[i], unary_derivative(op, double(x[i])) * double(d_out[i]));
}

// out = a scale + shift.
template <typename T>
void affine_forward(const T* a, int64_t n, T scale, T shift, T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(double(a[i]) * scale + double(shift));
}

// d_a += d_out scale.
template <typename T>
void affine_backward(const T* d_out, int64_t n, T scale, T* d_a) {
  for (int64_t i = 0; i < n; ++i) store(true, d_a[i], double(d_out[i]) * double(scale));
}

// t = x scale + shift (clamped to [-1, 1] when clamp), out = sum_k c[k] t^k.
template <typename T>
void poly_forward(const T* x, int64_t n, const T* c, int64_t count, T scale, T shift, bool clamp,
                  T* out) {
  for (int64_t i = 0; i < n; ++i) {
    double t = double(x[i]) * double(scale) + double(shift);
    if (clamp) t = std::min(std::max(t, -1.0), 1.0);
    double sum = 0;
    for (int64_t k = 0; k < count; ++k) sum += double(c[k]) * std::pow(t, double(k));
    out[i] = static_cast<T>(sum);
  }
}

// d_x += d_out scale sum_k k c[k] t^(k-1), and nothing where clamp moved t.
template <typename T>
void poly_backward(const T* x, const T* d_out, int64_t n, const T* c, int64_t count, T scale,
                   T shift, bool clamp, T* d_x) {
  if (!d_x) return;
  for (int64_t i = 0; i < n; ++i) {
    const double t = double(x[i]) * double(scale) + double(shift);
    if (clamp && (t < -1 || t > 1)) continue;
    double slope = 0;
    for (int64_t k = 1; k < count; ++k)
      slope += double(k) * double(c[k]) * std::pow(t, double(k - 1));
    store(true, d_x[i], double(d_out[i]) * double(scale) * slope);
  }
}

// u = (x - lo) (K - 1) / (hi - lo), k = clamp(floor(u), 0, K - 2), t = u - k (clamped to
// [0, 1] with constant extrapolation): out = v[k] + t (v[k+1] - v[k]).
template <typename T>
void spline_forward(const T* x, int64_t n, const T* values, const SplineGrid& grid, T* out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(spline_at(values, locate(double(x[i]), grid)));
}

// d_x = (v[k+1] - v[k]) (K - 1) / (hi - lo) d_out (0 outside [lo, hi] when constant);
// d_values[k] += (1 - t) d_out, d_values[k+1] += t d_out: one plain scatter-add loop.
template <typename T>
void spline_backward(const T* x, int64_t n, const T* values, const SplineGrid& grid, const T* d_out,
                     T* d_x, T* d_values, bool accumulate_x) {
  std::vector<double> knots(static_cast<size_t>(grid.knots()), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const SplinePoint s = locate(double(x[i]), grid);
    if (d_x) store(accumulate_x, d_x[i], spline_slope(values, s, grid) * double(d_out[i]));
    knots[s.k] += (1 - s.t) * double(d_out[i]);
    knots[s.k + 1] += s.t * double(d_out[i]);
  }
  if (d_values)
    for (int64_t k = 0; k < grid.knots(); ++k) store(true, d_values[k], knots[k]);
}

// x (B, T, G, D): at position t, pair i = (x[i], x[i + D/2]) turns by the
// angle t base^(-2i/D): y[i] = x[i] cos + x[i + D/2] sin,
// y[i + D/2] = x[i + D/2] cos - x[i] sin.
template <typename T>
void rope_forward(const T* x, int64_t B, int64_t T_len, int64_t G, int64_t D, double base, T* y) {
  const int64_t half = D / 2;
  for (int64_t r = 0; r < B * T_len; ++r)
    for (int64_t g = 0; g < G; ++g)
      for (int64_t i = 0; i < half; ++i) {
        const double angle = double(r % T_len) * std::pow(base, -double(2 * i) / double(D));
        const int64_t e = (r * G + g) * D + i;
        const double a = double(x[e]), b = double(x[e + half]);
        y[e] = static_cast<T>(a * std::cos(angle) + b * std::sin(angle));
        y[e + half] = static_cast<T>(b * std::cos(angle) - a * std::sin(angle));
      }
}

// The transposed rotation (the angle negated), added into d_x.
template <typename T>
void rope_backward(const T* d_y, int64_t B, int64_t T_len, int64_t G, int64_t D, double base,
                   T* d_x) {
  const int64_t half = D / 2;
  for (int64_t r = 0; r < B * T_len; ++r)
    for (int64_t g = 0; g < G; ++g)
      for (int64_t i = 0; i < half; ++i) {
        const double angle = double(r % T_len) * std::pow(base, -double(2 * i) / double(D));
        const int64_t e = (r * G + g) * D + i;
        const double a = double(d_y[e]), b = double(d_y[e + half]);
        store(true, d_x[e], a * std::cos(angle) - b * std::sin(angle));
        store(true, d_x[e + half], b * std::cos(angle) + a * std::sin(angle));
      }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(binary_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(binary_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(unary_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(unary_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(affine_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(affine_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(poly_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(poly_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rope_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rope_backward);

}  // namespace tapir::reference
