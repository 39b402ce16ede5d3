// Multi-seed comparison of training variants (`tapir compare`, and the
// building block of `tapir transfer` and the main job). Each (variant, seed)
// is its own run folder, so an interrupted comparison continues where it
// stopped: finished runs are reused, unfinished ones resumed. Sits in lab/:
// the commands in tools/ turn flags into variants (tools/variant_options.h).
#pragma once
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "lab/arm_cost.h"
#include "lab/intervals.h"
#include "lab/progress.h"
#include "lab/run_jobs.h"
#include "lab/stats.h"
#include "optim/train_config.h"

namespace tapir {

struct Variant {
  std::string name;               // as given: "baseline", "arch:FILE", "pos=alibi,arch:FILE"
  std::vector<std::string> args;  // as train flags: {"--pos=alibi", "--arch=FILE"}
  std::string pool;               // "pool=NAME": pooled with the other variants of NAME
};
// The base config with a variant's options applied on top
// (tools/variant_options.h: apply_variant).
using ApplyVariant = std::function<TrainConfig(const TrainConfig& base, const Variant& variant)>;

// A group's accuracy (by length, depth, digits, ...), key as logged ("12").
struct GroupAccuracy {
  std::string key;
  double accuracy = 0;
};

// One evaluation split of one run, as its metrics.jsonl logged it.
struct SplitRun {
  std::string split;
  Curve accuracy, loss;                      // over steps
  std::vector<double> steps_to, seconds_to;  // per threshold; kNever when not reached
  double final_accuracy = 0, best_loss = 0;
  // The last evaluation's bits per byte (text runs log it); NaN when not logged.
  double final_bits_per_byte = std::numeric_limits<double>::quiet_NaN();
  std::vector<GroupAccuracy> final_groups;  // the last evaluation's, in logged order
};

struct SeedRun {
  uint64_t seed = 0;
  std::string dir;
  int64_t steps_done = 0;        // the last logged evaluation's step
  double wall_s = 0;             // and its wall seconds
  std::string build;             // the build that finished it ("" if not recorded)
  std::string group_by;          // "length", ...; empty when the task has no groups
  std::vector<SplitRun> splits;  // in the task's order: the first is "test"
  const SplitRun& first() const { return splits.front(); }
};
// The split named `split` of a run; fails naming the split and the run's
// folder when the run did not log it.
const SplitRun& run_split(const SeedRun& run, const std::string& split);

// A group's final accuracy over seeds.
struct GroupSpread {
  std::string key;
  Spread accuracy;
};

// One split of one variant over seeds.
struct SplitSummary {
  std::string split;
  std::vector<Spread> steps, seconds;  // per threshold of the variant
  Spread final_accuracy, best_loss;
  // Medians with their 95% bootstrap intervals over seeds (lab/intervals.h).
  std::vector<Interval> steps_interval;  // per threshold; never-runs censored
  Interval final_accuracy_interval, best_loss_interval;
  // Bits per byte at the last evaluation, where every run logged it (the
  // scale on which character and subword runs compare); count 0 otherwise.
  Spread final_bits_per_byte;
  Interval final_bits_per_byte_interval;
  std::vector<GroupSpread> groups;  // in logged order; empty for tasks without groups
};

struct VariantResult {
  Variant variant;
  std::vector<double> thresholds;
  std::string group_by;
  std::vector<SeedRun> runs;
  std::vector<SplitSummary> splits;  // in the task's order
  // A pooled variant (pool_variants): the variants it pools, and for each
  // run the index of the one it came from; empty otherwise.
  std::vector<std::string> pooled;
  std::vector<int> part_of_run;
  // What it cost (its parts' sum for a pooled variant), and how its
  // settings were tuned (lab/tune.h; null when they were not).
  ArmCost compute;
  Json tuning;
  // The first split ("test"): what a comparison is decided on, at thresholds[0].
  const SplitSummary& first() const { return splits.front(); }
};
// The summary of the split named `split`; fails naming it when the variant
// has none.
const SplitSummary& summary_split(const VariantResult& r, const std::string& split);

struct CompareOptions {
  TrainConfig base;
  std::vector<Variant> variants;
  int seeds = 5;
  std::vector<double> thresholds = {0.99};
  std::string out_dir;
  Progress* progress = nullptr;  // nullptr: train silently
};

// "0.9,0.99" as thresholds, each in (0, 1] and none twice; fails with one
// line naming the bad item.
std::vector<double> parse_thresholds(const std::string& text);

// The runs of one configuration over seeds config.seed, config.seed + 1,
// ..., in dir/seed-N, labelled "<variant> seed N".
// The folder name a variant's runs go in: its name with every character
// but letters, digits and '.' as '_', its last 80 characters.
std::string variant_folder(const std::string& name);
std::vector<PlannedRun> plan_variant(const TrainConfig& config, const Variant& variant, int seeds,
                                     const std::string& dir);
// Reads the finished runs of plan_variant and summarises them.
VariantResult read_variant(const Variant& variant, const std::vector<PlannedRun>& runs,
                           const std::vector<double>& thresholds);
// Every variant applied to options.base and its model built once, with its
// input files read: fails on the first bad, empty, repeated or clashing
// variant (two names that share a folder). A command calls it before it
// touches its folder.
std::vector<TrainConfig> check_variants(const CompareOptions& options,
                                        const ApplyVariant& apply_variant);
// Trains (or reuses) every run, then summarises. Every variant is applied
// to options.base before the first run trains, so a bad one fails at once.
std::vector<VariantResult> run_compare(const CompareOptions& options,
                                       const ApplyVariant& apply_variant);
// Reads one finished run folder: every split's curves, and for each
// threshold the first step (and its wall time) at or above it.
SeedRun read_run(const std::string& dir, const std::vector<double>& thresholds);
// Medians and spreads over the runs of one variant, split by split (splits
// in the order the runs logged them), threshold by threshold, group by group.
VariantResult summarise_variant(const Variant& variant, std::vector<SeedRun> runs,
                                const std::vector<double>& thresholds);

// The runs of several variants as one, named `name`: e.g. the functions of
// K independent searches (arch:search-0/..., arch:search-1/...) as one
// method. Its medians are over all runs, and its intervals (and its verdict
// against the baseline) resample the parts first, then the seeds within
// each drawn part (lab/intervals.h), so that they hold the variation
// between searches too.
VariantResult pool_variants(const std::string& name,
                            const std::vector<const VariantResult*>& parts);
// The indices into r.runs of each part of a pooled variant, in part order;
// one part holding every run for a variant that pools nothing.
std::vector<std::vector<size_t>> runs_by_part(const VariantResult& r);
// The variants arch:FILE of `arch_files` (e.g. `tapir compare --arch-file`
// given once per search) pooled as "arch: K searches".
VariantResult pool_arch_files(const std::vector<VariantResult>& results,
                              const std::vector<std::string>& arch_files);
// The variants that name a pool ("pool=NAME" in their spec): one more row
// per NAME, "NAME: K pooled", in the order the names first appear.
std::vector<VariantResult> pool_named(const std::vector<VariantResult>& results);
// Stops unless every pool name is held by two variants or more, naming the
// pool, before anything trains.
void check_pools(const std::vector<Variant>& variants);

// What a verdict judges (`tapir compare --verdict METRIC[:SPLIT]`): the steps
// to the first threshold (a ratio, faster or slower: compare_against_baseline),
// or the final accuracy or bits per byte (a difference of medians, higher or
// lower: compare_on_metric), on one evaluation split.
enum class VerdictMetric { steps, accuracy, bits_per_byte };
template <>
struct Names<VerdictMetric> {
  static constexpr const char* what = "verdict metric";
  static constexpr std::pair<VerdictMetric, const char*> table[] = {
      {VerdictMetric::steps, "steps"},
      {VerdictMetric::accuracy, "accuracy"},
      {VerdictMetric::bits_per_byte, "bits-per-byte"}};
};
struct VerdictSpec {
  VerdictMetric metric = VerdictMetric::steps;
  std::string split;  // "": the first evaluation split
  bool operator==(const VerdictSpec&) const = default;
};
// "accuracy:test_long", "steps" (the first split), ...; fails naming the
// metrics it knows.
VerdictSpec parse_verdict_spec(const std::string& text);
// Stops before anything trains unless every split a verdict names is one
// the task of `base` evaluates.
void check_verdict_splits(const TrainConfig& base, const std::vector<VerdictSpec>& verdicts);
// "accuracy on test_long", "steps on the first split".
std::string verdict_spec_text(const VerdictSpec& spec);
// What compare judges when --verdict is not given: the steps to the first
// threshold on the first split, and the final accuracy on test_long where
// the runs have it (the lengths or digits never trained on: the claim of
// length generalisation is about that split).
std::vector<VerdictSpec> default_verdicts(const std::vector<VariantResult>& results);

// Every split any variant logged, in the order the variants logged them.
std::vector<std::string> all_splits(const std::vector<VariantResult>& results);

// compare.md (also printed): per split a table of the variants, one group
// of columns per threshold, and for grouped tasks a table of the final
// accuracy per group. compare.json: the same numbers with their spreads
// and the per-run values (docs/experiments.md); both end with the verdicts
// of `verdicts` (default_verdicts when empty): verdict_lines.
std::string compare_table_markdown(const std::vector<VariantResult>& results,
                                   const std::vector<double>& thresholds,
                                   const std::vector<VerdictSpec>& verdicts = {});
std::string compare_json(const std::vector<VariantResult>& results,
                         const std::vector<double>& thresholds,
                         const std::vector<VerdictSpec>& verdicts = {});

// The variant named "baseline", or null when there is none.
const VariantResult* find_baseline(const std::vector<VariantResult>& results);
// One value per run of `r` (`values[i]` for r.runs[i]) in groups, one per
// part (a search; runs_by_part), and whether the comparison with `base` is
// paired: every part ran the baseline's seeds, so seed i saw the same data
// order on both sides.
struct GroupedRuns {
  std::vector<std::vector<double>> groups;
  bool paired = true;
};
GroupedRuns group_by_part(const VariantResult& r, const std::vector<double>& values,
                          const VariantResult& base);
// "5 seeds", "1 seed", "2 searches x 5 seeds": a paired design's size.
std::string paired_seeds_text(int seeds, int searches);

// A variant against the variant named "baseline" at the headline (first
// split, first threshold): the ratio of their median steps to the threshold
// with its 95% bootstrap interval (lab/intervals.h; runs that never got
// there counted at the budget, the last step any run took), paired by seed
// when both ran the same seeds, and the verdict the interval supports; and
// on the same runs the ratio of their spreads over seeds (variances of log
// steps) with its interval and permutation test.
struct BaselineVerdict {
  std::string variant;  // its name, as given
  std::string label;    // its short name (variant_labels), as a person reads it
  double threshold = 0;
  std::string split;
  StepsRatio steps;
  SpreadRatio spread;
  Spread variant_steps, baseline_steps;  // medians and never-counts
};
// The names a person reads, one per result: a variant is named by what it
// is, its path left to compare.json and the legend of compare.md:
//   arch:runs/x/search/search-0/arch.safetensors  ->  search 0
//   arch:runs/x/found.safetensors                 ->  found
//   arch: 3 searches (the searches pooled)        ->  3 searches pooled
//   pos=alibi,arch:.../search-1/arch.safetensors  ->  pos=alibi,search 1
// Any other name is its own short name. Where two different names would
// get the same short name, both keep their full names.
std::vector<std::string> variant_labels(const std::vector<VariantResult>& results);
// The name a person reads of a compare.json entry (of `variants`,
// `against_baseline` or `on_metric`): its `label`, or its `variant` in a
// compare.json written before there were short names.
const std::string& shown_variant(const Json& entry);

// One per variant other than "baseline"; none without a baseline.
std::vector<BaselineVerdict> compare_against_baseline(const std::vector<VariantResult>& results,
                                                      const std::string& split = "");
// One line per verdict, e.g.
// "verdict: arch:s/arch.safetensors is faster than baseline: steps to 0.90 on
// test at 0.43x baseline [0.31, 0.60] (median 300 against 700; paired by
// seed, 5 seeds; never: 0 of 5 against 0 of 5)", or "... is inconclusive
// against baseline at 5 seeds: ... about 24 seeds would decide it".
std::string verdict_line(const BaselineVerdict& verdict);
// The line that follows it, on the spread, e.g. "spread: arch is narrower
// than baseline: variance of log steps to 0.90 on test at 0.31x [0.12, 0.85]
// baseline's (permutation p = 0.02; paired by seed, 5 seeds)".
std::string spread_line(const BaselineVerdict& verdict);

// A variant against the baseline on a final metric of one split: the
// difference of their medians over seeds (variant - baseline) with its 95%
// bootstrap interval, drawn as the steps ratio is (searches, then seeds;
// paired by seed when both ran the same seeds).
struct MetricVerdict {
  std::string variant, split;
  std::string label;  // the variant's short name (variant_labels)
  VerdictMetric metric = VerdictMetric::accuracy;
  MedianDifference difference;
  double variant_median = 0, baseline_median = 0;
  int variant_runs = 0, baseline_runs = 0;
};
// One per variant other than "baseline" (none without a baseline); the
// metric accuracy or bits-per-byte. Fails naming the split when a run did
// not log it (or, for bits per byte, did not log bits per byte on it).
std::vector<MetricVerdict> compare_on_metric(const std::vector<VariantResult>& results,
                                             const VerdictSpec& spec);
// "verdict: arch: 3 searches is higher than baseline: final accuracy on
// test_long at +0.3180 [+0.2780, +0.4020] baseline (median 0.4380 against
// 0.1200; paired by seed, 3 searches x 3 seeds)" (the main job's COPY).
std::string metric_verdict_line(const MetricVerdict& verdict);
// compare.json's object for one.
Json metric_verdict_json(const MetricVerdict& verdict);
// The verdicts of one VerdictSpec: steps (compare_against_baseline) or a
// final metric (compare_on_metric), one per variant other than the baseline.
struct Judgement {
  VerdictSpec spec;
  std::vector<BaselineVerdict> steps;
  std::vector<MetricVerdict> metric;
};
// Each of `verdicts` (default_verdicts when empty) computed once, in order.
std::vector<Judgement> judge(const std::vector<VariantResult>& results,
                             const std::vector<VerdictSpec>& verdicts);
// Their lines, in order: for steps each variant's verdict_line (followed by
// its spread_line with `spreads`), for a final metric each variant's
// metric_verdict_line.
std::vector<std::string> verdict_lines(const std::vector<Judgement>& judged, bool spreads);

}  // namespace tapir
