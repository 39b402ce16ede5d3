// Bootstrap intervals and ratio verdicts (lab/intervals.h) on run sets whose
// answer is known: clearly faster, clearly slower, identical, all never,
// mixed censoring, too few seeds to tell, and searches that disagree.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

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
