// Tuned arms (`tapir compare --tune KEY=V1,V2,...`): before a comparison,
// each variant's settings are chosen from a grid, so that a baseline and a
// learned-function variant compare best against best. Every point of the
// grid trains on tuning seeds kept apart from the comparison's (seed +
// kTuneSeedOffset, ...), on the train split alone, and is scored on the
// held-out arch split (--eval-on arch), never on test, by the metric of the
// comparison's first verdict. The best point's settings are then applied to
// the variant, which runs on the comparison's own seeds as usual. What was
// tried, each point's score, the choice and the cost (lab/arm_cost.h) go
// into compare.json ("tuning" of each variant) and compare.md. Sits in
// lab/, on lab/compare.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lab/compare.h"

namespace tapir {

// One key of the grid and the values tried, as given: "lr=1e-3,3e-3".
struct TuneAxis {
  std::string key;
  std::vector<std::string> values;
};

struct TuneOptions {
  std::vector<TuneAxis> axes;  // empty: no tuning
  // --tune-baseline: the baseline's own grid in place of `axes` (empty: it
  // tunes on `axes` too). A larger grid gives it a compute-matched arm: as
  // much tuning as the learned functions' search and tuning cost together.
  std::vector<TuneAxis> baseline_axes;
  int seeds = 2;  // tuning seeds per point
  bool enabled() const { return !axes.empty(); }
  const std::vector<TuneAxis>& axes_for(const std::string& variant) const {
    return variant == "baseline" && !baseline_axes.empty() ? baseline_axes : axes;
  }
};

// Tuning seeds start this far from the comparison's first seed: --seeds is
// at most 1000, and searches seed their models a million apart (search K:
// seed + 1000000 K + m), so tuning shares no seed with either.
inline constexpr uint64_t kTuneSeedOffset = 500'000;

// The share of the training data a tuning run holds out as its arch split
// where the comparison's options hold none out (arch-frac 0).
inline constexpr const char* kTuneArchFrac = "0.2";

// The keys a grid may tune: the optimizer's and the schedule's settings.
const std::vector<std::string>& tune_keys();
// "lr=1e-3,3e-3" as an axis; fails in one line naming the keys it takes
// when the key is not one of them, or a value is empty or repeated.
TuneAxis parse_tune_axis(const std::string& text);
// Fails when two axes share a key.
void check_tune_axes(const std::vector<TuneAxis>& axes);

// What scores a point: the comparison's first verdict's metric (steps to
// the first threshold when there is no verdict), on the arch split.
struct TuneGoal {
  VerdictMetric metric = VerdictMetric::steps;
  double threshold = 0.99;
};
TuneGoal tune_goal(const std::vector<VerdictSpec>& verdicts, const std::vector<double>& thresholds);
// "median steps to 90% on arch", "median final accuracy on arch".
std::string tune_goal_text(const TuneGoal& goal);

struct TunedVariants {
  std::vector<Variant> variants;  // as given, the chosen settings appended
  std::vector<Json> records;      // per variant: grid, points, choice, cost
  std::vector<WorkCost> costs;    // per variant
};

// Tunes every variant of `options` (runs in out_dir/tune/VARIANT/POINT/
// seed-N, reused when finished, as every run of a comparison).
TunedVariants tune_variants(const CompareOptions& options, const ApplyVariant& apply_variant,
                            const TuneOptions& tune, const TuneGoal& goal);

// compare.md's section on the tuning: per variant, each point's score and
// the choice; "" when `results` were not tuned.
std::string tuning_markdown(const std::vector<VariantResult>& results);
// compare.md's "Compute" table: per variant its runs, searches and tuning
// in FLOPs and wall seconds.
std::string compute_markdown(const std::vector<VariantResult>& results);

}  // namespace tapir
