// Bootstrap intervals and ratio verdicts (lab/intervals.h).
#include "lab/intervals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/error.h"
#include "engine/rng.h"
#include "lab/stats.h"

namespace tapir {

namespace {

// The bootstrap's own seed: any fixed value; changing it changes every
// interval tapir prints (within their resampling noise).
constexpr uint64_t kBootstrapSeed = 20260101;

double median_of(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

// Censored runs count as the budget.
double censored_at(double value, double budget) {
  return std::isinf(value) ? budget : value;
}

// One bootstrap draw of a group-of-seeds design: `groups` drawn with
// replacement, then within each drawn group its indices drawn with
// replacement. Returns (group, index) pairs.
std::vector<std::pair<size_t, size_t>> draw(const std::vector<std::vector<double>>& groups,
                                            Rng& rng) {
  std::vector<std::pair<size_t, size_t>> picks;
  const auto k = static_cast<int64_t>(groups.size());
  for (int64_t g = 0; g < k; ++g) {
    const auto group = static_cast<size_t>(k == 1 ? 0 : rng.randint(k));
    const auto n = static_cast<int64_t>(groups[group].size());
    for (int64_t i = 0; i < n; ++i) picks.emplace_back(group, static_cast<size_t>(rng.randint(n)));
  }
  return picks;
}

std::vector<double> flatten(const std::vector<std::vector<double>>& groups) {
  std::vector<double> all;
  for (const auto& g : groups) all.insert(all.end(), g.begin(), g.end());
  return all;
}

Interval percentile_interval(double point, std::vector<double> draws) {
  const double tail = (1 - kIntervalLevel) / 2;
  return {point, quantile(draws, tail), quantile(draws, 1 - tail)};
}

void check_groups(const std::vector<std::vector<double>>& groups, const char* what) {
  TAPIR_CHECK(!groups.empty(), "intervals: no ", what, " values");
  for (const auto& g : groups) TAPIR_CHECK(!g.empty(), "intervals: an empty group of ", what);
}

// About how many seeds per group would move the interval's far end past 1,
// if it narrows as 1/sqrt(n) on a log scale around today's ratio.
int seeds_to_decide(const Interval& ratio, int n) {
  if (!(ratio.point > 0) || ratio.point == 1 || !std::isfinite(ratio.point)) return 0;
  const double centre = std::log(ratio.point);
  const double far = ratio.point < 1 ? std::log(ratio.hi) : std::log(ratio.lo);
  const double width = std::abs(far - centre);
  const double factor = width / std::abs(centre);
  // At least one more seed: an interval that ends exactly at 1 (ties in
  // the steps, which come on the evaluation grid) is not decided either.
  const double needed = std::ceil(static_cast<double>(n) * factor * factor);
  return static_cast<int>(std::min(std::max(needed, n + 1.0), 1e6));
}

}  // namespace

Interval median_interval(const std::vector<double>& values, uint64_t stream) {
  if (values.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  return grouped_median_interval({values}, stream);
}

Interval grouped_median_interval(const std::vector<std::vector<double>>& groups, uint64_t stream) {
  check_groups(groups, "median");
  Rng rng(kBootstrapSeed, stream);
  std::vector<double> draws(kBootstrapResamples);
  std::vector<double> sample;
  for (double& d : draws) {
    sample.clear();
    for (const auto& [g, i] : draw(groups, rng)) sample.push_back(groups[g][i]);
    d = median_of(sample);
  }
  return percentile_interval(median_of(flatten(groups)), std::move(draws));
}

StepsRatio steps_ratio(const std::vector<std::vector<double>>& variant,
                       const std::vector<std::vector<double>>& baseline, double budget, bool paired,
                       uint64_t stream) {
  check_groups(variant, "variant");
  check_groups(baseline, "baseline");
  TAPIR_CHECK(budget > 0, "intervals: the step budget must be positive, got ", budget);
  if (paired) {
    TAPIR_CHECK(baseline.size() == 1 || baseline.size() == variant.size(),
                "intervals: paired groups differ in number");
    for (size_t g = 0; g < variant.size(); ++g)
      TAPIR_CHECK(variant[g].size() == baseline[baseline.size() == 1 ? 0 : g].size(),
                  "intervals: paired seeds differ in number");
  }
  auto censor = [budget](std::vector<double> v) {
    for (double& x : v) x = censored_at(x, budget);
    return v;
  };
  StepsRatio out;
  out.paired = paired;
  out.groups = static_cast<int>(variant.size());
  out.n = static_cast<int>(std::min(variant.front().size(), baseline.front().size()));
  const double point = median_of(censor(flatten(variant))) / median_of(censor(flatten(baseline)));

  Rng rng(kBootstrapSeed, stream);
  std::vector<double> draws(kBootstrapResamples);
  std::vector<double> v_sample, b_sample;
  for (double& d : draws) {
    v_sample.clear();
    b_sample.clear();
    const auto picks = draw(variant, rng);
    for (const auto& [g, i] : picks) v_sample.push_back(censored_at(variant[g][i], budget));
    if (paired) {
      for (const auto& [g, i] : picks)
        b_sample.push_back(censored_at(baseline[baseline.size() == 1 ? 0 : g][i], budget));
    } else {
      for (const auto& [g, i] : draw(baseline, rng))
        b_sample.push_back(censored_at(baseline[g][i], budget));
    }
    d = median_of(v_sample) / median_of(b_sample);
  }
  out.ratio = percentile_interval(point, std::move(draws));
  if (out.ratio.hi < 1)
    out.verdict = RatioVerdict::faster;
  else if (out.ratio.lo > 1)
    out.verdict = RatioVerdict::slower;
  else
    out.seeds_to_decide = seeds_to_decide(out.ratio, out.n);
  return out;
}

const char* ratio_verdict_word(RatioVerdict verdict) {
  switch (verdict) {
    case RatioVerdict::faster:
      return "faster";
    case RatioVerdict::slower:
      return "slower";
    case RatioVerdict::inconclusive:
      break;
  }
  return "inconclusive";
}

std::string format_ratio(const Interval& ratio) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2fx [%.2f, %.2f]", ratio.point, ratio.lo, ratio.hi);
  return buf;
}

}  // namespace tapir
