// The one check of a spline grid and the names of its extrapolation
// (engine/kernel_types.h).
#include "engine/kernel_types.h"

#include <cmath>

#include "base/error.h"

namespace tapir {

SplineGrid::SplineGrid(int64_t knots, double lo, double hi, bool linear)
    : knots_(knots), lo_(lo), hi_(hi), linear_(linear) {
  check_knots(knots);
  check_range(lo, hi);
}

void SplineGrid::check_knots(int64_t knots) {
  TAPIR_CHECK(knots >= 2 && knots <= kMaxKnots, "spline grid: knots must be in [2, ", kMaxKnots,
              "] (at least 2 knots), got ", knots);
}

void SplineGrid::check_range(double lo, double hi) {
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi,
              "spline grid: range must be finite with lo < hi, got [", lo, ", ", hi, "]");
}

bool parse_extrapolation(std::string_view name) {
  TAPIR_CHECK(name == "linear" || name == "constant",
              "spline extrapolation must be linear or constant, got '", name, "'");
  return name == "linear";
}

const char* extrapolation_name(bool linear) {
  return linear ? "linear" : "constant";
}

const char* SplineGrid::extrapolation_word(bool linear) {
  return extrapolation_name(linear);
}
bool SplineGrid::parse_extrapolation_word(std::string_view name) {
  return parse_extrapolation(name);
}

}  // namespace tapir
