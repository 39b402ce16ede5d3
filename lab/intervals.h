// Intervals and verdicts over seeds (and searches) for `tapir compare`: a
// percentile bootstrap of the median, of the ratio of two variants'
// medians, and of the ratio of their spreads (variances of log steps, with
// a permutation test of equal spreads), with the verdict that each ratio's
// interval supports.
//
// Censoring: a run that never reached a threshold has steps kNever. In a
// median and its interval it sorts last ("never" when it is the median);
// in a ratio it counts as the run's budget (its last step), so a variant
// that never gets there is at least budget / baseline slower, never dropped.
//
// Every resampling draws from the engine's counter-based RNG with a fixed
// seed, so the same runs give the same intervals on every machine.
// Sits in lab/ with lab/stats.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tapir {

// How many resamples an interval takes, and the coverage.
constexpr int kBootstrapResamples = 4000;
constexpr double kIntervalLevel = 0.95;

// A point estimate and its 95% interval [lo, hi]; lo <= point <= hi where
// finite, all kNever where the median is censored.
struct Interval {
  double point = 0, lo = 0, hi = 0;
};

// The median of `values` with a percentile bootstrap interval over them.
// `stream` picks the RNG stream so that two intervals in one table use
// different draws. Empty input: all NaN.
Interval median_interval(const std::vector<double>& values, uint64_t stream = 0);

// Groups of values (e.g. one group per search, its seeds inside): the
// median over all values, with a two-level bootstrap that resamples groups,
// then values within each drawn group. One group is the plain bootstrap.
Interval grouped_median_interval(const std::vector<std::vector<double>>& groups,
                                 uint64_t stream = 0);

// The mean of `values` with a percentile bootstrap interval over them: for
// a paired difference seed by seed (robust-compare's constrained arm minus
// ERM, where the runs of one seed share the initialisation and the data
// order), an interval that excludes 0 says which way the arms differ.
// Empty input: all NaN.
Interval mean_interval(const std::vector<double>& values, uint64_t stream = 0);

// "+0.0123 [-0.0045, +0.0290]" (4 decimals, signed).
std::string format_difference(const Interval& difference);

enum class RatioVerdict { faster, slower, inconclusive };

// variant / baseline on the medians of steps to a threshold (censored at
// `budget`): the ratio, its interval, and what the interval says: faster
// (whole interval below 1), slower (whole interval above 1), or inconclusive.
struct StepsRatio {
  Interval ratio;
  RatioVerdict verdict = RatioVerdict::inconclusive;
  bool paired = false;  // resampled by seed (both variants saw the same data orders)
  int n = 0;            // seeds (pairs when paired; the smaller side otherwise)
  int groups = 1;       // searches (groups of seeds)
  // Inconclusive only: about how many seeds per group would give an interval
  // that excludes 1 at today's ratio (the interval narrows as 1/sqrt(n) on
  // a log scale); 0 when the ratio is 1 (no number of seeds decides it).
  int seeds_to_decide = 0;
};

// Paired: variant[i] and baseline[i] are the same seed (index i in every
// group), resampled together. Unpaired: each side resampled on its own.
// groups: variant and baseline hold one vector per search (the baseline's
// groups are its seeds again when it has no search: pass it once, and it
// is resampled as one group).
StepsRatio steps_ratio(const std::vector<std::vector<double>>& variant,
                       const std::vector<std::vector<double>>& baseline, double budget, bool paired,
                       uint64_t stream = 0);

// variant - baseline on the medians of a final metric (accuracy, bits per
// byte) over seeds, drawn as steps_ratio draws (searches, then seeds; pairs
// together when paired): the difference, its 95% interval, and what the
// interval says: higher (whole interval above 0), lower (whole interval
// below 0), or inconclusive. NaN values are not allowed.
enum class DifferenceVerdict { higher, lower, inconclusive };
struct MedianDifference {
  Interval difference;
  DifferenceVerdict verdict = DifferenceVerdict::inconclusive;
  bool paired = false;
  int n = 0;       // seeds (pairs when paired; the smaller side otherwise)
  int groups = 1;  // searches
};
MedianDifference median_difference(const std::vector<std::vector<double>>& variant,
                                   const std::vector<std::vector<double>>& baseline, bool paired,
                                   uint64_t stream = 0);

// "higher", "lower", "inconclusive".
const char* difference_verdict_word(DifferenceVerdict verdict);

// How many permutations the test of equal spreads draws.
constexpr int kPermutationDraws = 4000;

enum class SpreadVerdict { narrower, wider, inconclusive };

// variant / baseline on the variance over seeds of log(steps to a threshold)
// (censored at `budget`), the question "do learned functions make training
// less seed-dependent?". On a log scale the spread is scale-free: a variant
// that is uniformly 2x faster has the baseline's spread (ratio 1, exactly
// so for a factor that is a power of 2).
// The interval is a percentile bootstrap drawn like steps_ratio's (searches,
// then seeds; pairs together when paired); the verdict: narrower (whole
// interval below 1), wider (whole interval above 1), or inconclusive.
// `p` is a permutation test of equal spreads (Brown-Forsythe style: each
// run's absolute deviation of log steps from its side's median, the mean
// deviations compared; unpaired, the deviations are shuffled between sides;
// paired, each pair's two are swapped with chance 1/2). It treats every
// seed as exchangeable and so, unlike the interval, ignores searches.
// Paired against a baseline that ran no search, the baseline's seeds count
// once per search, as their pairs do.
//
// Defined edge cases: fewer than 2 runs on a side that reached the
// threshold (a side that mostly never got there has no spread to speak
// of; counted at the budget, its runs would read as "narrower"): ratio,
// interval and p NaN, inconclusive. Both variances 0: ratio 1. Baseline variance 0 and the
// variant's above 0: +inf. A run at the threshold at step 0 counts as step 1.
struct SpreadRatio {
  Interval ratio;
  SpreadVerdict verdict = SpreadVerdict::inconclusive;
  double p = 0;         // permutation p-value of equal spreads, in (0, 1]; NaN as above
  bool paired = false;  // as in StepsRatio
  int n = 0;
  int groups = 1;
};

// Arguments as steps_ratio's.
SpreadRatio spread_ratio(const std::vector<std::vector<double>>& variant,
                         const std::vector<std::vector<double>>& baseline, double budget,
                         bool paired, uint64_t stream = 0);

// "narrower", "wider", "inconclusive".
const char* spread_verdict_word(SpreadVerdict verdict);

// "faster", "slower", "inconclusive".
const char* ratio_verdict_word(RatioVerdict verdict);

// "0.43x [0.31, 0.60]"; censored ends read "never".
std::string format_ratio(const Interval& ratio);

}  // namespace tapir
