// Bootstrap intervals and ratio verdicts (lab/intervals.h) on run sets whose
// answer is known: clearly faster, clearly slower, identical, all never,
// mixed censoring, too few seeds to tell, and searches that disagree; and
// spread ratios (variances of log steps) whose answer is known.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/error.h"
#include "engine/rng.h"
#include "lab/intervals.h"
#include "lab/stats.h"

using namespace tapir;

namespace {

using Groups = std::vector<std::vector<double>>;
constexpr double kBudget = 1000;

}  // namespace

TEST_CASE("intervals: a clearly faster variant, paired by seed") {
  const Groups variant = {{300, 310, 290, 305, 295}};
  const Groups baseline = {{700, 690, 710, 705, 695}};
  const StepsRatio r = steps_ratio(variant, baseline, kBudget, /*paired=*/true);
  CHECK(r.verdict == RatioVerdict::faster);
  CHECK(r.ratio.point == doctest::Approx(300.0 / 700.0));
  CHECK(r.ratio.lo <= r.ratio.point);
  CHECK(r.ratio.hi >= r.ratio.point);
  CHECK(r.ratio.hi < 1);
  CHECK(r.n == 5);
  CHECK(r.paired);
  CHECK(r.seeds_to_decide == 0);
  CHECK(format_ratio(r.ratio).rfind("0.43x [", 0) == 0);
}

TEST_CASE("intervals: a clearly slower variant, unpaired") {
  const StepsRatio r = steps_ratio({{700, 690, 710, 705, 695}}, {{300, 310, 290, 305, 295}},
                                   kBudget, /*paired=*/false);
  CHECK(r.verdict == RatioVerdict::slower);
  CHECK(r.ratio.lo > 1);
  CHECK(!r.paired);
  CHECK(std::string(ratio_verdict_word(r.verdict)) == "slower");
}

TEST_CASE("intervals: identical variants are inconclusive, and no number of seeds decides") {
  const Groups same = {{400, 500, 600, 450, 550}};
  const StepsRatio r = steps_ratio(same, same, kBudget, /*paired=*/true);
  CHECK(r.verdict == RatioVerdict::inconclusive);
  CHECK(r.ratio.point == 1);
  CHECK(r.ratio.lo == 1);  // paired: every resample is the same seeds on both sides
  CHECK(r.ratio.hi == 1);
  CHECK(r.seeds_to_decide == 0);
}

TEST_CASE(
    "intervals: when no run reaches the threshold the medians are never and nothing is decided") {
  const double never = kNever;
  const Groups all_never = {{never, never, never}};
  const StepsRatio r = steps_ratio(all_never, all_never, kBudget, /*paired=*/true);
  CHECK(r.verdict == RatioVerdict::inconclusive);
  CHECK(r.ratio.point == 1);  // both censored at the budget
  CHECK(r.seeds_to_decide == 0);
  const Interval m = median_interval({never, never, never});
  CHECK(std::isinf(m.point));
  CHECK(std::isinf(m.lo));
  CHECK(std::isinf(m.hi));
}

TEST_CASE("intervals: censored runs count at the budget, never dropped") {
  const double never = kNever;
  // Dropping the never-runs would leave a median of 100: faster. Censored at
  // the budget, the median is the budget: twice the baseline's 500.
  const StepsRatio r = steps_ratio({{100, never, never, never, never}}, {{500, 500, 500, 500, 500}},
                                   kBudget, /*paired=*/true);
  CHECK(r.ratio.point == doctest::Approx(2.0));
  CHECK(r.verdict != RatioVerdict::faster);
  const Interval m = median_interval({100, never, never, never, never});
  CHECK(std::isinf(m.point));
  CHECK(m.lo == 100);  // a resample of mostly the one finished run

  // A variant that nearly always gets there against a baseline that nearly
  // never does: faster, censoring and all.
  const StepsRatio mixed = steps_ratio({{300, 310, 320, 330, never, 305, 315, 325}},
                                       {{never, never, never, 900, never, never, never, never}},
                                       kBudget, /*paired=*/true);
  CHECK(mixed.verdict == RatioVerdict::faster);
  CHECK(mixed.ratio.point == doctest::Approx(317.5 / kBudget));
}

TEST_CASE("intervals: too few seeds to tell, with an estimate of how many would") {
  const StepsRatio r = steps_ratio({{380, 520, 700, 300, 450}}, {{500, 600, 450, 700, 550}},
                                   kBudget, /*paired=*/true);
  CHECK(r.verdict == RatioVerdict::inconclusive);
  CHECK(r.ratio.lo < 1);
  CHECK(r.ratio.hi > 1);
  CHECK(r.seeds_to_decide > r.n);
  // The same pattern over four times the seeds is decided (or at least
  // narrower), as the estimate says it should be.
  std::vector<double> v, b;
  for (int k = 0; k < 4 * r.seeds_to_decide / 5 + 4; ++k)
    for (double x : {380.0, 520.0, 700.0, 300.0, 450.0}) v.push_back(x);
  for (int k = 0; k < 4 * r.seeds_to_decide / 5 + 4; ++k)
    for (double x : {500.0, 600.0, 450.0, 700.0, 550.0}) b.push_back(x);
  const StepsRatio many = steps_ratio({v}, {b}, kBudget, /*paired=*/true);
  CHECK(many.ratio.hi - many.ratio.lo < r.ratio.hi - r.ratio.lo);
  CHECK(many.verdict == RatioVerdict::faster);
}

TEST_CASE(
    "intervals: searches that disagree widen the interval (resampling searches, then seeds)") {
  // Two searches: one whose functions help a lot, one that does nothing.
  const Groups searches = {{300, 310, 290, 305, 295}, {700, 690, 710, 705, 695}};
  const Groups baseline = {{700, 690, 710, 705, 695}};
  const StepsRatio grouped = steps_ratio(searches, baseline, kBudget, /*paired=*/true);
  CHECK(grouped.groups == 2);
  CHECK(grouped.verdict == RatioVerdict::inconclusive);  // one search is no evidence either way
  // The same ten values as one search would look decided.
  const Groups pooled = {{300, 310, 290, 305, 295, 700, 690, 710, 705, 695}};
  const Interval one = grouped_median_interval(pooled);
  const Interval two = grouped_median_interval(searches);
  CHECK(two.hi - two.lo >= one.hi - one.lo);
}

TEST_CASE("intervals: the same runs give the same bits; streams draw differently") {
  const std::vector<double> values = {310, 290, 450, 380, 500, 275, 330};
  const Interval a = median_interval(values, 3), b = median_interval(values, 3);
  CHECK(a.point == b.point);
  CHECK(a.lo == b.lo);
  CHECK(a.hi == b.hi);
  CHECK(a.point == 330);
  CHECK(a.lo <= a.point);
  CHECK(a.hi >= a.point);
  const Interval constant = median_interval({7, 7, 7, 7});
  CHECK(constant.lo == 7);
  CHECK(constant.hi == 7);
}

namespace {

// n steps to a threshold around 500 whose logs have standard deviation
// `sd`: deterministic normal draws from the engine's RNG.
std::vector<double> lognormal_steps(int n, double sd, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> steps;
  for (int i = 0; i < n; ++i) steps.push_back(500 * std::exp(sd * rng.normal()));
  return steps;
}

}  // namespace

TEST_CASE("spread: a variant with 4x the variance of log steps is wider; swapped, narrower") {
  // Standard deviations 0.4 and 0.2 on a log scale: variances 4x apart.
  const Groups wide = {lognormal_steps(30, 0.4, 1)};
  const Groups narrow = {lognormal_steps(30, 0.2, 2)};
  const SpreadRatio r = spread_ratio(wide, narrow, 1e9, /*paired=*/false);
  CHECK(r.verdict == SpreadVerdict::wider);
  CHECK(r.ratio.lo > 1);
  CHECK(r.ratio.lo <= r.ratio.point);
  CHECK(r.ratio.hi >= r.ratio.point);
  CHECK(r.p < 0.05);
  CHECK(r.p > 0);
  CHECK(r.n == 30);
  CHECK(std::string(spread_verdict_word(r.verdict)) == "wider");

  const SpreadRatio swapped = spread_ratio(narrow, wide, 1e9, /*paired=*/false);
  CHECK(swapped.verdict == SpreadVerdict::narrower);
  CHECK(swapped.ratio.hi < 1);
  CHECK(swapped.ratio.point == doctest::Approx(1 / r.ratio.point));
  CHECK(swapped.p < 0.05);
  CHECK(std::string(spread_verdict_word(swapped.verdict)) == "narrower");

  // Paired, every draw takes the same seeds on both sides, so swapping the
  // sides takes the reciprocal of every draw, and of the interval.
  const SpreadRatio p = spread_ratio(wide, narrow, 1e9, /*paired=*/true);
  const SpreadRatio q = spread_ratio(narrow, wide, 1e9, /*paired=*/true);
  CHECK(p.verdict == SpreadVerdict::wider);
  CHECK(q.verdict == SpreadVerdict::narrower);
  CHECK(q.ratio.lo == doctest::Approx(1 / p.ratio.hi).epsilon(0.02));
  CHECK(q.ratio.hi == doctest::Approx(1 / p.ratio.lo).epsilon(0.02));
  CHECK(p.p < 0.05);
}

TEST_CASE("spread: twice the steps on every seed is the same spread, exactly") {
  const std::vector<double> base = lognormal_steps(12, 0.3, 3);
  std::vector<double> doubled;
  for (double x : base) doubled.push_back(2 * x);
  for (bool paired : {true, false}) {
    const SpreadRatio r = spread_ratio({doubled}, {base}, 1e9, paired);
    CHECK(r.ratio.point == 1);
    CHECK(r.verdict == SpreadVerdict::inconclusive);
    CHECK(r.ratio.lo <= 1);
    CHECK(r.ratio.hi >= 1);
    CHECK(r.p == 1);  // the deviations are the same bits: every arrangement ties
  }
  const SpreadRatio paired = spread_ratio({doubled}, {base}, 1e9, /*paired=*/true);
  CHECK(paired.ratio.lo == 1);  // each draw takes the same seeds of both
  CHECK(paired.ratio.hi == 1);
}

TEST_CASE("spread: censored runs count at the budget, never dropped") {
  const double never = kNever;
  const Groups baseline = {{450, 520, 610, 480, 700, 530}};
  const SpreadRatio censored = spread_ratio({{400, never, 600, never, 650, 500}}, baseline, kBudget,
                                            /*paired=*/true);
  const SpreadRatio at_budget =
      spread_ratio({{400, kBudget, 600, kBudget, 650, 500}}, baseline, kBudget, /*paired=*/true);
  CHECK(censored.ratio.point == at_budget.ratio.point);
  CHECK(censored.ratio.lo == at_budget.ratio.lo);
  CHECK(censored.ratio.hi == at_budget.ratio.hi);
  CHECK(censored.p == at_budget.p);
  // Dropping the two never-runs would leave under half the spread (1.8x the
  // baseline's, against 5.2x counted at the budget).
  const SpreadRatio dropped = spread_ratio({{400, 600, 650, 500}}, baseline, kBudget, false);
  CHECK(censored.ratio.point == doctest::Approx(5.206).epsilon(0.001));
  CHECK(dropped.ratio.point == doctest::Approx(1.776).epsilon(0.001));
  // A variant that (all but once) never gets there has no spread to
  // compare: counted at the budget it would read as narrower. Read it with
  // the steps ratio, which calls it slower.
  for (const std::vector<double>& runs :
       {std::vector<double>{never, never, never, never, never, never},
        std::vector<double>{never, 500, never, never, never, never}}) {
    const SpreadRatio mostly_never = spread_ratio({runs}, baseline, kBudget, true);
    CHECK(std::isnan(mostly_never.ratio.point));
    CHECK(mostly_never.verdict == SpreadVerdict::inconclusive);
  }
  // Two that got there are enough.
  CHECK_FALSE(std::isnan(
      spread_ratio({{never, 500, never, never, 700, never}}, baseline, kBudget, true).ratio.point));
}

TEST_CASE("spread: the same runs give the same bits") {
  const Groups v = {lognormal_steps(8, 0.5, 4), lognormal_steps(8, 0.4, 5)};
  const Groups b = {lognormal_steps(8, 0.3, 6)};
  const SpreadRatio one = spread_ratio(v, b, 1e9, /*paired=*/true, 7);
  const SpreadRatio two = spread_ratio(v, b, 1e9, /*paired=*/true, 7);
  CHECK(one.ratio.point == two.ratio.point);
  CHECK(one.ratio.lo == two.ratio.lo);
  CHECK(one.ratio.hi == two.ratio.hi);
  CHECK(one.p == two.p);
  CHECK(one.groups == 2);
  CHECK(one.n == 8);
  // Paired, a baseline without searches counts once per search, as its pairs do.
  const SpreadRatio twice = spread_ratio(v, {b[0], b[0]}, 1e9, /*paired=*/true, 7);
  CHECK(twice.ratio.point == one.ratio.point);
  CHECK(twice.ratio.lo == one.ratio.lo);
  CHECK(twice.ratio.hi == one.ratio.hi);
  CHECK(twice.p == one.p);
  const SpreadRatio unpaired = spread_ratio(v, {b[0], b[0]}, 1e9, /*paired=*/false, 7);
  CHECK(unpaired.ratio.point == one.ratio.point);  // pairing changes the draws only
  CHECK(unpaired.ratio.lo != one.ratio.lo);
}

TEST_CASE("spread: the edge cases are defined") {
  // Fewer than 2 values on a side: no variance to compare.
  for (const SpreadRatio& r : {spread_ratio({{300}}, {{400, 500}}, kBudget, false),
                               spread_ratio({{300, 350}}, {{400}}, kBudget, false)}) {
    CHECK(std::isnan(r.ratio.point));
    CHECK(std::isnan(r.ratio.lo));
    CHECK(std::isnan(r.ratio.hi));
    CHECK(std::isnan(r.p));
    CHECK(r.verdict == SpreadVerdict::inconclusive);
  }
  // Both variances 0: the same spread.
  const SpreadRatio flat = spread_ratio({{300, 300, 300}}, {{700, 700, 700}}, kBudget, true);
  CHECK(flat.ratio.point == 1);
  CHECK(flat.ratio.lo == 1);
  CHECK(flat.ratio.hi == 1);
  CHECK(flat.verdict == SpreadVerdict::inconclusive);
  CHECK(flat.p == 1);
  // The baseline's variance 0, the variant's not: infinitely wider.
  const SpreadRatio wider = spread_ratio({{300, 400, 500, 600, 700, 800, 900, 350}},
                                         {{500, 500, 500, 500, 500, 500, 500, 500}}, kBudget, true);
  CHECK(std::isinf(wider.ratio.point));
  CHECK(wider.verdict == SpreadVerdict::wider);
  // Steps 0 (at the threshold from the first evaluation) count as 1.
  CHECK(std::isfinite(spread_ratio({{0, 100, 200}}, {{100, 150, 200}}, kBudget, true).ratio.point));
  CHECK_THROWS_AS(spread_ratio({{300, 400}}, {{300, 400, 500}}, kBudget, /*paired=*/true), Error);
}

TEST_CASE("intervals: the mean of a paired difference and its interval") {
  // Every seed better by about 0.1: the interval excludes 0.
  const Interval better = mean_interval({0.09, 0.11, 0.10, 0.12, 0.08});
  CHECK(better.point == doctest::Approx(0.10));
  CHECK(better.lo > 0);
  CHECK(better.lo <= better.point);
  CHECK(better.hi >= better.point);
  CHECK(format_difference(better).rfind("+0.1000 [+0.0", 0) == 0);
  // Seeds on both sides of 0: the interval holds it.
  const Interval mixed = mean_interval({-0.2, 0.1, 0.15, -0.05, 0.0});
  CHECK(mixed.lo < 0);
  CHECK(mixed.hi > 0);
  // No spread, no width; nothing, nothing known.
  const Interval constant = mean_interval({1, 1, 1});
  CHECK(constant.lo == 1);
  CHECK(constant.hi == 1);
  CHECK(std::isnan(mean_interval({}).point));
  // Many values: the percentile interval is close to mean +- 1.96 sd / sqrt(n).
  Rng rng(5, 0);
  std::vector<double> values(400);
  double sum = 0, squares = 0;
  for (double& v : values) {
    v = rng.normal();
    sum += v;
  }
  const double mean = sum / 400;
  for (double v : values) squares += (v - mean) * (v - mean);
  const double half = 1.96 * std::sqrt(squares / 399) / std::sqrt(400.0);
  const Interval wide = mean_interval(values);
  CHECK(wide.point == doctest::Approx(mean));
  CHECK(std::abs((wide.hi - wide.lo) / (2 * half) - 1) < 0.1);
  CHECK(std::abs((wide.lo + wide.hi) / 2 - mean) < 0.1 * half);
}

TEST_CASE("difference of medians: paired shifts are exact; the interval gives the verdict") {
  const std::vector<double> base = {0.10, 0.12, 0.08, 0.11, 0.09};
  std::vector<double> up = base;
  for (double& x : up) x += 0.4;
  // Paired, every draw moves both sides together: the interval is the shift.
  const MedianDifference d = median_difference({up}, {base}, /*paired=*/true);
  CHECK(d.difference.point == doctest::Approx(0.4));
  CHECK(d.difference.lo == doctest::Approx(0.4));
  CHECK(d.difference.hi == doctest::Approx(0.4));
  CHECK(d.verdict == DifferenceVerdict::higher);
  CHECK(d.n == 5);
  CHECK(median_difference({base}, {up}, true).verdict == DifferenceVerdict::lower);
  // Unpaired, overlapping sides: inconclusive, the interval holding 0.
  const MedianDifference same = median_difference({{0.1, 0.5, 0.3}}, {{0.2, 0.4, 0.3}}, false);
  CHECK(same.verdict == DifferenceVerdict::inconclusive);
  CHECK(same.difference.lo < 0);
  CHECK(same.difference.hi > 0);
  // Groups (searches) against a baseline that ran no search, paired.
  const MedianDifference grouped = median_difference({up, up, up}, {base}, true);
  CHECK(grouped.groups == 3);
  CHECK(grouped.paired);
  CHECK(grouped.difference.lo == doctest::Approx(0.4));
  CHECK_THROWS_AS(median_difference({{0.1, std::nan("")}}, {{0.1, 0.2}}, false), Error);
  CHECK_THROWS_AS(median_difference({{0.1, 0.2}}, {{0.1}}, true), Error);  // pairs differ in number
  CHECK(std::string(difference_verdict_word(DifferenceVerdict::higher)) == "higher");
  CHECK(std::string(difference_verdict_word(DifferenceVerdict::inconclusive)) == "inconclusive");
}
