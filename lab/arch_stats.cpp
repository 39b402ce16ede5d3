// The roughness of learned functions (lab/arch_stats.h).
#include "lab/arch_stats.h"

#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "nn/polynomial.h"

namespace tapir {

namespace {

constexpr int kPolyDegree = 8;

// The rms of the scaled second differences of `values` over the knots of
// `grid` inside [lo, hi] (all three knots of each difference inside).
double curvature_rms(const std::vector<float>& values, const SplineGrid& grid, int64_t first,
                     int64_t last) {
  const double h = 1.0 / grid.inv_spacing();
  double sum = 0;
  int64_t count = 0;
  for (int64_t k = first + 1; k < last; ++k) {
    const double d2 =
        double(values[size_t(k - 1)]) - 2.0 * values[size_t(k)] + values[size_t(k + 1)];
    sum += (d2 / (h * h)) * (d2 / (h * h));
    ++count;
  }
  return std::sqrt(sum / double(count));
}

FunctionRoughness roughness_of(const std::string& name, const std::vector<float>& values,
                               const SplineGrid& grid, double lo, double hi) {
  const auto [first, last] = knots_in_range(grid, lo, hi);
  const int64_t inside = first < 0 ? 0 : last - first + 1;
  TAPIR_CHECK(inside >= 3, "arch stats: ", name, " has ", inside, " knots in [", lo, ", ", hi,
              "] (its grid: ", grid.knots(), " knots on [", grid.lo(), ", ", grid.hi(),
              "]); give a --range that holds at least 3");
  FunctionRoughness r;
  r.name = name;
  r.knots_in_range = inside;
  r.spacing = 1.0 / grid.inv_spacing();
  r.curvature_rms = curvature_rms(values, grid, first, last);
  FitError error;
  fit_polynomial(values, grid, lo, hi, kPolyDegree, &error);
  r.poly8_rms = error.rms;
  return r;
}

}  // namespace

std::pair<int64_t, int64_t> knots_in_range(const SplineGrid& grid, double lo, double hi) {
  int64_t first = -1, last = -1;
  for (int64_t k = 0; k < grid.knots(); ++k)
    if (grid.knot(k) >= lo && grid.knot(k) <= hi) {
      if (first < 0) first = k;
      last = k;
    }
  return {first, last};
}

std::vector<FunctionRoughness> arch_roughness(const Architecture& arch, double lo, double hi) {
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi,
              "arch stats: --range expects finite LO < HI, got [", lo, ", ", hi, "]");
  std::vector<FunctionRoughness> out;
  for (const Architecture::Function& f : arch.functions) {
    const SplineGrid& grid = arch.spline_of(f).grid;
    const size_t knots = size_t(grid.knots());
    for (int64_t row = 0; row < f.rows; ++row) {
      const auto begin = f.values.begin() + std::ptrdiff_t(size_t(row) * knots);
      const std::vector<float> values(begin, begin + std::ptrdiff_t(knots));
      const std::string name = f.rows > 1 ? f.name + " row " + std::to_string(row) : f.name;
      out.push_back(roughness_of(name, values, grid, lo, hi));
    }
  }
  TAPIR_CHECK(!out.empty(), "arch stats: the architecture has no learned function");
  return out;
}

std::string roughness_text(const std::vector<FunctionRoughness>& functions, double lo, double hi) {
  std::string text;
  char buf[512];
  double curvature = 0, poly = 0;
  for (const FunctionRoughness& r : functions) {
    std::snprintf(buf, sizeof buf,
                  "%s: %lld knots in [%g, %g] (spacing %.4g): curvature rms %.4g, degree-%d fit "
                  "rms error %.4g\n",
                  r.name.c_str(), static_cast<long long>(r.knots_in_range), lo, hi, r.spacing,
                  r.curvature_rms, kPolyDegree, r.poly8_rms);
    text += buf;
    curvature += r.curvature_rms;
    poly += r.poly8_rms;
  }
  const double n = double(functions.size());
  std::snprintf(buf, sizeof buf,
                "mean of %zu functions: curvature rms %.4g, degree-%d fit rms error %.4g\n",
                functions.size(), curvature / n, kPolyDegree, poly / n);
  return text + buf;
}

}  // namespace tapir
