// Statistics over seeds (lab/stats.h).
#include "lab/stats.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tapir {

double steps_to_threshold(const Curve& curve, double threshold) {
  for (const CurvePoint& p : curve)
    if (p.value >= threshold) return static_cast<double>(p.step);
  return kNever;
}

double seconds_to_threshold(const Curve& curve, double threshold) {
  for (const CurvePoint& p : curve)
    if (p.value >= threshold) return p.seconds;
  return kNever;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = static_cast<size_t>(std::ceil(pos));
  if (std::isinf(values[hi]) || std::isinf(values[lo])) return kNever;
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

Spread spread(const std::vector<double>& values) {
  Spread s;
  s.count = static_cast<int>(values.size());
  for (double v : values) s.never += std::isinf(v) ? 1 : 0;
  if (values.empty()) return s;
  s.median = quantile(values, 0.5);
  s.q1 = quantile(values, 0.25);
  s.q3 = quantile(values, 0.75);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

Band band(const std::vector<Curve>& curves) {
  Band b;
  if (curves.empty()) return b;
  std::map<int64_t, std::vector<double>> at;
  for (const Curve& c : curves)
    for (const CurvePoint& p : c) at[p.step].push_back(p.value);
  for (const auto& [step, values] : at) {
    b.steps.push_back(step);
    b.median.push_back(quantile(values, 0.5));
    b.min.push_back(*std::min_element(values.begin(), values.end()));
    b.max.push_back(*std::max_element(values.begin(), values.end()));
  }
  return b;
}

std::string format_steps(double steps) {
  if (std::isinf(steps)) return "never";
  if (std::isnan(steps)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", steps);
  return buf;
}

}  // namespace tapir
