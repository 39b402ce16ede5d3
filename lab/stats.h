// Statistics over seeds for `tapir compare`: steps to a threshold, quantiles
// that treat "never reached" as +infinity (so failures stay visible in the
// median instead of being dropped), and curve aggregation for plots.
// Sits in lab/ and includes only the standard library.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tapir {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct CurvePoint {
  int64_t step = 0;
  double value = 0;    // accuracy or loss
  double seconds = 0;  // wall time of the run at this evaluation
};
using Curve = std::vector<CurvePoint>;

// The first evaluated step whose value is >= threshold, or kNever.
double steps_to_threshold(const Curve& curve, double threshold);
double seconds_to_threshold(const Curve& curve, double threshold);

// Quantile q in [0, 1] with linear interpolation between order statistics
// (the "type 7" rule of most statistics packages). Infinite values sort last;
// an interpolation that touches one gives +infinity. Empty input: NaN.
double quantile(std::vector<double> values, double q);

struct Spread {
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  int count = 0, never = 0;  // values, and how many of them are +infinity
};
Spread spread(const std::vector<double>& values);

// Per-step aggregate of several curves evaluated at the same steps (the
// steps of the first curve; curves that stop early contribute to the steps
// they have): median, min and max.
struct Band {
  std::vector<int64_t> steps;
  std::vector<double> median, min, max;
};
Band band(const std::vector<Curve>& curves);

// "1250", "never", "1250 (never: 2 of 5)"-style text for tables.
std::string format_steps(double steps);

}  // namespace tapir
