// What the naive reference kernels (engine/reference.h) share: a gradient's
// store, one softmax row in double, and where a point falls on a spline's
// grid. Inside engine/cpu/ only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/kernel_types.h"

namespace tapir::reference::detail {

// A gradient's store: d = g, or d += g when accumulating (rounded once).
template <typename T>
void store(bool accumulate, T& d, double g) {
  d = accumulate ? static_cast<T>(double(d) + g) : static_cast<T>(g);
}

// One row's softmax in double: p_i = exp(x_i - max x) / sum_j exp(x_j - max x).
template <typename X>
std::vector<double> softmax_row(const X* x, int64_t n) {
  double m = double(x[0]);
  for (int64_t i = 1; i < n; ++i) m = std::max(m, double(x[i]));
  std::vector<double> p(static_cast<size_t>(n));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += p[i] = std::exp(double(x[i]) - m);
  for (int64_t i = 0; i < n; ++i) p[i] /= sum;
  return p;
}

// Where x falls on the grid: interval k and position t in it, and whether x
// is outside [lo, hi] (where constant extrapolation holds the end value).
struct SplinePoint {
  int64_t k;
  double t;
  bool outside;
};
inline SplinePoint locate(double x, const SplineGrid& g) {
  const int64_t K = g.knots();
  const double u = (x - g.lo()) * double(K - 1) / (g.hi() - g.lo());
  const int64_t k = std::min(static_cast<int64_t>(std::max(std::floor(u), 0.0)), K - 2);
  double t = u - double(k);
  if (!g.linear()) t = std::min(std::max(t, 0.0), 1.0);
  return {k, t, x < g.lo() || x > g.hi()};
}

// The spline with knot values v at x: v[k] + t (v[k+1] - v[k]), and its
// slope there ((v[k+1] - v[k]) (K - 1) / (hi - lo), 0 where constant
// extrapolation holds an end value).
template <typename T>
double spline_at(const T* v, const SplinePoint& s) {
  return double(v[s.k]) + s.t * (double(v[s.k + 1]) - double(v[s.k]));
}
template <typename T>
double spline_slope(const T* v, const SplinePoint& s, const SplineGrid& g) {
  if (s.outside && !g.linear()) return 0.0;
  return (double(v[s.k + 1]) - double(v[s.k])) * g.inv_spacing();
}

}  // namespace tapir::reference::detail
