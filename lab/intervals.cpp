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

using Groups = std::vector<std::vector<double>>;

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

// A percentile bootstrap of `statistic` (a function of a vector of values)
// over groups drawn as draw() draws them.
template <class Statistic>
Interval bootstrap(const Groups& groups, Statistic statistic, uint64_t stream) {
  Rng rng(kBootstrapSeed, stream);
  std::vector<double> draws(kBootstrapResamples);
  std::vector<double> sample;
  for (double& d : draws) {
    sample.clear();
    for (const auto& [g, i] : draw(groups, rng)) sample.push_back(groups[g][i]);
    d = statistic(sample);
  }
  return percentile_interval(statistic(flatten(groups)), std::move(draws));
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (double x : values) sum += x;
  return sum / static_cast<double>(values.size());
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

// The baseline's group that pairs with the variant's group g: its only one
// when the baseline ran no search.
size_t paired_group(const Groups& baseline, size_t g) {
  return baseline.size() == 1 ? 0 : g;
}

void check_sides(const Groups& variant, const Groups& baseline, double budget, bool paired) {
  check_groups(variant, "variant");
  check_groups(baseline, "baseline");
  TAPIR_CHECK(budget > 0, "intervals: the step budget must be positive, got ", budget);
  if (!paired) return;
  TAPIR_CHECK(baseline.size() == 1 || baseline.size() == variant.size(),
              "intervals: paired groups differ in number");
  for (size_t g = 0; g < variant.size(); ++g)
    TAPIR_CHECK(variant[g].size() == baseline[paired_group(baseline, g)].size(),
                "intervals: paired seeds differ in number");
}

// Seeds per group: pairs when paired, the smaller side otherwise.
int seeds_of_sides(const Groups& variant, const Groups& baseline) {
  return static_cast<int>(std::min(variant.front().size(), baseline.front().size()));
}

Groups censored(Groups groups, double budget) {
  for (auto& g : groups)
    for (double& x : g) x = censored_at(x, budget);
  return groups;
}

// One bootstrap draw of both sides: pairs drawn together when paired (the
// baseline's value of the same group and seed), each side on its own
// otherwise.
void draw_sides(const Groups& variant, const Groups& baseline, bool paired, Rng& rng,
                std::vector<double>& v_sample, std::vector<double>& b_sample) {
  v_sample.clear();
  b_sample.clear();
  const auto picks = draw(variant, rng);
  for (const auto& [g, i] : picks) v_sample.push_back(variant[g][i]);
  for (const auto& [g, i] : paired ? picks : draw(baseline, rng))
    b_sample.push_back(baseline[paired_group(baseline, g)][i]);
}

// The baseline in the variant's shape: its one group once per search when
// it ran no search. Paired, both variances are then taken over the same
// pairs, as every bootstrap draw takes them (n - 1 differs otherwise).
Groups paired_shape(const Groups& variant, const Groups& baseline) {
  Groups out;
  for (size_t g = 0; g < variant.size(); ++g) out.push_back(baseline[paired_group(baseline, g)]);
  return out;
}

// log(steps / the side's median steps), censored at the budget. Centring
// before the log changes no variance, and makes the statistic exactly
// scale-free for a factor of 2: steps that are all twice another side's
// give bit-identical logs (scaling by 2 commutes with rounding). A run at
// the threshold at step 0 counts as step 1, so that its log is finite.
Groups centred_log_steps(const Groups& steps, double budget) {
  Groups out = censored(steps, budget);
  for (auto& g : out)
    for (double& x : g) x = std::max(x, 1.0);
  const double centre = median_of(flatten(out));
  for (auto& g : out)
    for (double& x : g) x = std::log(x / centre);
  return out;
}

// The sample variance (n - 1 in the denominator); 0 for one value.
double variance_of(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double mean = mean_of(values);
  double squares = 0;
  for (double x : values) squares += (x - mean) * (x - mean);
  return squares / static_cast<double>(values.size() - 1);
}

// variant / baseline, defined where a variance is 0 (lab/intervals.h).
double variance_ratio(double variant, double baseline) {
  if (baseline == 0) return variant == 0 ? 1 : std::numeric_limits<double>::infinity();
  return variant / baseline;
}

Interval spread_ratio_interval(const Groups& v_log, const Groups& b_log, bool paired,
                               uint64_t stream) {
  const double point = variance_ratio(variance_of(flatten(v_log)), variance_of(flatten(b_log)));
  Rng rng(kBootstrapSeed, stream);
  std::vector<double> draws(kBootstrapResamples);
  std::vector<double> v_sample, b_sample;
  for (double& d : draws) {
    draw_sides(v_log, b_log, paired, rng, v_sample, b_sample);
    d = variance_ratio(variance_of(v_sample), variance_of(b_sample));
  }
  return percentile_interval(point, std::move(draws));
}

// Each run's |log steps - its side's median log steps| (Brown-Forsythe's
// deviations), in the groups' shape.
Groups deviations(const Groups& logs) {
  const double centre = median_of(flatten(logs));
  Groups out = logs;
  for (auto& g : out)
    for (double& x : g) x = std::abs(x - centre);
  return out;
}

// Permuted statistics within this of the observed one count as ties, so
// that rounding in the logs cannot decide a test of equal spreads.
constexpr double kTie = 1e-9;

// The share of arrangements, the observed one included (so p > 0), whose
// statistic is at least the observed one.
double p_value(int at_least) {
  return (1.0 + at_least) / (1.0 + kPermutationDraws);
}

// Paired: the mean over pairs of the variant's deviation minus the
// baseline's, each pair's two swapped (its difference negated) with chance 1/2.
double paired_permutation_p(const Groups& v_dev, const Groups& b_dev, Rng& rng) {
  std::vector<double> diffs;
  for (size_t g = 0; g < v_dev.size(); ++g)
    for (size_t i = 0; i < v_dev[g].size(); ++i)
      diffs.push_back(v_dev[g][i] - b_dev[paired_group(b_dev, g)][i]);
  const double observed = std::abs(mean_of(diffs));
  int at_least = 0;
  for (int k = 0; k < kPermutationDraws; ++k) {
    double sum = 0;
    for (double d : diffs) sum += (rng.next_u32() & 1) != 0 ? -d : d;
    at_least += std::abs(sum / static_cast<double>(diffs.size())) >= observed - kTie ? 1 : 0;
  }
  return p_value(at_least);
}

// Unpaired: the difference of the sides' mean deviations, the deviations
// shuffled between the sides.
double pooled_permutation_p(const std::vector<double>& v_dev, const std::vector<double>& b_dev,
                            Rng& rng) {
  std::vector<double> all = v_dev;
  all.insert(all.end(), b_dev.begin(), b_dev.end());
  const size_t n_variant = v_dev.size();
  auto difference = [&](const std::vector<int32_t>& order) {
    double v_sum = 0, b_sum = 0;
    for (size_t k = 0; k < order.size(); ++k)
      (k < n_variant ? v_sum : b_sum) += all[static_cast<size_t>(order[k])];
    return std::abs(v_sum / static_cast<double>(n_variant) -
                    b_sum / static_cast<double>(all.size() - n_variant));
  };
  std::vector<int32_t> order(all.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int32_t>(k);
  const double observed = difference(order);
  int at_least = 0;
  for (int k = 0; k < kPermutationDraws; ++k) {
    rng.permutation(static_cast<int64_t>(all.size()), order.data());
    at_least += difference(order) >= observed - kTie ? 1 : 0;
  }
  return p_value(at_least);
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
  return bootstrap(groups, median_of, stream);
}

Interval mean_interval(const std::vector<double>& values, uint64_t stream) {
  if (values.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  return bootstrap({values}, mean_of, stream);
}

StepsRatio steps_ratio(const Groups& variant, const Groups& baseline, double budget, bool paired,
                       uint64_t stream) {
  check_sides(variant, baseline, budget, paired);
  const Groups v = censored(variant, budget), b = censored(baseline, budget);
  StepsRatio out;
  out.paired = paired;
  out.groups = static_cast<int>(variant.size());
  out.n = seeds_of_sides(variant, baseline);
  const double point = median_of(flatten(v)) / median_of(flatten(b));

  Rng rng(kBootstrapSeed, stream);
  std::vector<double> draws(kBootstrapResamples);
  std::vector<double> v_sample, b_sample;
  for (double& d : draws) {
    draw_sides(v, b, paired, rng, v_sample, b_sample);
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

MedianDifference median_difference(const Groups& variant, const Groups& baseline, bool paired,
                                   uint64_t stream) {
  check_sides(variant, baseline, 1, paired);
  for (const Groups* side : {&variant, &baseline})
    for (double x : flatten(*side))
      TAPIR_CHECK(!std::isnan(x), "intervals: a difference of medians over a NaN value");
  MedianDifference out;
  out.paired = paired;
  out.groups = static_cast<int>(variant.size());
  out.n = seeds_of_sides(variant, baseline);
  const double point = median_of(flatten(variant)) - median_of(flatten(baseline));
  Rng rng(kBootstrapSeed, stream);
  std::vector<double> draws(kBootstrapResamples);
  std::vector<double> v_sample, b_sample;
  for (double& d : draws) {
    draw_sides(variant, baseline, paired, rng, v_sample, b_sample);
    d = median_of(v_sample) - median_of(b_sample);
  }
  out.difference = percentile_interval(point, std::move(draws));
  if (out.difference.lo > 0)
    out.verdict = DifferenceVerdict::higher;
  else if (out.difference.hi < 0)
    out.verdict = DifferenceVerdict::lower;
  return out;
}

namespace {

// Runs that reached the threshold (finite steps).
size_t reached(const Groups& groups) {
  const std::vector<double> all = flatten(groups);
  return static_cast<size_t>(
      std::count_if(all.begin(), all.end(), [](double s) { return std::isfinite(s); }));
}

}  // namespace

SpreadRatio spread_ratio(const Groups& variant, const Groups& baseline, double budget, bool paired,
                         uint64_t stream) {
  check_sides(variant, baseline, budget, paired);
  SpreadRatio out;
  out.paired = paired;
  out.groups = static_cast<int>(variant.size());
  out.n = seeds_of_sides(variant, baseline);
  // A run that never got there counts at the budget, which squeezes the
  // spread: a side with fewer than 2 runs that got there has no spread.
  if (reached(variant) < 2 || reached(baseline) < 2) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out.ratio = {nan, nan, nan};
    out.p = nan;
    return out;
  }
  const Groups v_log = centred_log_steps(variant, budget);
  const Groups b_log =
      centred_log_steps(paired ? paired_shape(variant, baseline) : baseline, budget);
  out.ratio = spread_ratio_interval(v_log, b_log, paired, stream);
  // Its own stream, so that the permutations do not shift the bootstrap's draws.
  Rng rng = Rng(kBootstrapSeed, stream).split(1);
  out.p = paired
              ? paired_permutation_p(deviations(v_log), deviations(b_log), rng)
              : pooled_permutation_p(flatten(deviations(v_log)), flatten(deviations(b_log)), rng);
  if (out.ratio.hi < 1)
    out.verdict = SpreadVerdict::narrower;
  else if (out.ratio.lo > 1)
    out.verdict = SpreadVerdict::wider;
  return out;
}

}  // namespace tapir
