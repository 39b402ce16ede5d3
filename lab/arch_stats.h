// `tapir arch stats`: how rough the learned functions of an architecture
// file are over a range of inputs (default [-3, 3], where most inputs of a
// normalised model fall). Two measures per function (per row, for a
// per-head attention function), both documented in docs/nonlinearities.md:
//   curvature: the rms of the second differences of the knot values inside
//     the range, divided by the knot spacing squared, so that grids of
//     different spacing compare (a discrete second derivative);
//   poly8 error: the rms distance, over the range, between the spline and
//     its least-squares polynomial of degree 8 (nn/polynomial.h's fit).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/architecture.h"

namespace tapir {

struct FunctionRoughness {
  std::string name;  // the parameter name; " row R" appended for per-head rows
  int64_t knots_in_range = 0;
  double spacing = 0;        // between knots
  double curvature_rms = 0;  // rms of (v[k-1] - 2 v[k] + v[k+1]) / spacing^2
  double poly8_rms = 0;      // rms error of the degree-8 least-squares fit
};

// The first and last knots of `grid` inside [lo, hi]; {-1, -1} when none is.
std::pair<int64_t, int64_t> knots_in_range(const SplineGrid& grid, double lo, double hi);

// Every function of `arch` over [lo, hi]; fails unless lo < hi and every
// grid has at least 3 knots inside the range.
std::vector<FunctionRoughness> arch_roughness(const Architecture& arch, double lo, double hi);

// One line per function and one with the means over them.
std::string roughness_text(const std::vector<FunctionRoughness>& functions, double lo, double hi);

}  // namespace tapir
