// Verdicts on a chosen metric and split (lab/compare.h): which verdicts a
// comparison gives, computed once each, the difference of final accuracies
// or bits per byte against the baseline with its interval, and what every
// verdict shares (the baseline, the runs grouped by search, the design).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "base/json.h"
#include "lab/compare.h"
#include "tasks/task.h"

namespace tapir {

const SplitRun& run_split(const SeedRun& run, const std::string& split) {
  for (const SplitRun& s : run.splits)
    if (s.split == split) return s;
  fail("the run in ", run.dir, " logged no split ", quoted(split));
}

const SplitSummary& summary_split(const VariantResult& r, const std::string& split) {
  for (const SplitSummary& s : r.splits)
    if (s.split == split) return s;
  fail("variant ", r.variant.name, " has no split ", quoted(split));
}

const VariantResult* find_baseline(const std::vector<VariantResult>& results) {
  for (const VariantResult& r : results)
    if (r.variant.name == "baseline") return &r;
  return nullptr;
}

GroupedRuns group_by_part(const VariantResult& r, const std::vector<double>& values,
                          const VariantResult& base) {
  std::vector<uint64_t> base_seeds;
  for (const SeedRun& run : base.runs) base_seeds.push_back(run.seed);
  GroupedRuns out;
  for (const std::vector<size_t>& part : runs_by_part(r)) {
    std::vector<double>& group = out.groups.emplace_back();
    std::vector<uint64_t> seeds;
    for (size_t i : part) {
      group.push_back(values[i]);
      seeds.push_back(r.runs[i].seed);
    }
    out.paired = out.paired && seeds == base_seeds;
  }
  return out;
}

std::string paired_seeds_text(int seeds, int searches) {
  const std::string text = std::to_string(seeds) + (seeds == 1 ? " seed" : " seeds");
  return searches > 1 ? std::to_string(searches) + " searches x " + text : text;
}

VerdictSpec parse_verdict_spec(const std::string& text) {
  const size_t colon = text.find(':');
  VerdictSpec spec;
  spec.metric = parse_name<VerdictMetric>(text.substr(0, colon));
  if (colon != std::string::npos) {
    spec.split = text.substr(colon + 1);
    TAPIR_CHECK(!spec.split.empty(), "a verdict is METRIC or METRIC:SPLIT, got ", quoted(text));
  }
  return spec;
}

void check_verdict_splits(const TrainConfig& base, const std::vector<VerdictSpec>& verdicts) {
  const std::vector<std::string> splits = make_task(base.task, base.task_options)->eval_splits();
  std::string known;
  for (const std::string& s : splits) known += (known.empty() ? "" : ", ") + s;
  for (const VerdictSpec& v : verdicts)
    TAPIR_CHECK(v.split.empty() || std::find(splits.begin(), splits.end(), v.split) != splits.end(),
                "--verdict: task ", base.task, " evaluates no split ", quoted(v.split),
                " (its splits: ", known, ")");
}

std::string verdict_spec_text(const VerdictSpec& spec) {
  return std::string(name_of(spec.metric)) + " on " +
         (spec.split.empty() ? std::string("the first split") : spec.split);
}

std::vector<VerdictSpec> default_verdicts(const std::vector<VariantResult>& results) {
  std::vector<VerdictSpec> specs = {{VerdictMetric::steps, ""}};
  const bool long_split =
      !results.empty() && std::all_of(results.begin(), results.end(), [](const VariantResult& r) {
        return std::any_of(r.splits.begin(), r.splits.end(),
                           [](const SplitSummary& s) { return s.split == "test_long"; });
      });
  if (long_split) specs.push_back({VerdictMetric::accuracy, "test_long"});
  return specs;
}

namespace {

// Each run's final value of the metric on the split.
std::vector<double> final_values(const VariantResult& r, const VerdictSpec& spec) {
  std::vector<double> values;
  for (const SeedRun& run : r.runs) {
    const SplitRun& s = run_split(run, spec.split);
    if (spec.metric == VerdictMetric::accuracy) {
      values.push_back(s.final_accuracy);
    } else {
      TAPIR_CHECK(std::isfinite(s.final_bits_per_byte), "the run in ", run.dir,
                  " logged no bits per byte on ", s.split, " (only text runs do)");
      values.push_back(s.final_bits_per_byte);
    }
  }
  return values;
}

const char* metric_words(VerdictMetric metric) {
  return metric == VerdictMetric::accuracy ? "final accuracy" : "final bits per byte";
}

// "paired by seed, 3 searches x 5 seeds" or "unpaired, 15 runs against 5".
std::string design_words(const MetricVerdict& v) {
  const MedianDifference& d = v.difference;
  if (!d.paired)
    return "unpaired, " + std::to_string(v.variant_runs) + " runs against " +
           std::to_string(v.baseline_runs);
  return "paired by seed, " + paired_seeds_text(d.n, d.groups);
}

}  // namespace

std::vector<MetricVerdict> compare_on_metric(const std::vector<VariantResult>& results,
                                             const VerdictSpec& spec) {
  TAPIR_CHECK(spec.metric != VerdictMetric::steps,
              "compare_on_metric judges a final metric; steps are compare_against_baseline's");
  const VariantResult* base = find_baseline(results);
  std::vector<MetricVerdict> out;
  if (base == nullptr) return out;
  VerdictSpec named = spec;
  if (named.split.empty()) named.split = base->first().split;
  const std::vector<double> b = final_values(*base, named);
  const std::vector<std::string> labels = variant_labels(results);
  for (size_t k = 0; k < results.size(); ++k) {
    const VariantResult& r = results[k];
    if (&r == base) continue;
    const std::vector<double> values = final_values(r, named);
    const GroupedRuns g = group_by_part(r, values, *base);
    MetricVerdict v;
    v.variant = r.variant.name;
    v.label = labels[k];
    v.split = named.split;
    v.metric = named.metric;
    // Its own streams, apart from the steps verdicts' (0 .. variants).
    v.difference = median_difference(g.groups, {b}, g.paired, 1000 + k);
    v.variant_median = quantile(values, 0.5);
    v.baseline_median = quantile(b, 0.5);
    v.variant_runs = static_cast<int>(values.size());
    v.baseline_runs = static_cast<int>(b.size());
    out.push_back(v);
  }
  return out;
}

std::string metric_verdict_line(const MetricVerdict& v) {
  const MedianDifference& d = v.difference;
  const bool decided = d.verdict != DifferenceVerdict::inconclusive;
  char medians[96];
  std::snprintf(medians, sizeof medians, "median %.4f against %.4f", v.variant_median,
                v.baseline_median);
  return "verdict: " + v.label + " is " +
         (decided ? std::string(difference_verdict_word(d.verdict)) + " than baseline"
                  : "inconclusive against baseline") +
         ": " + metric_words(v.metric) + " on " + v.split + " at " +
         format_difference(d.difference) + " baseline (" + medians + "; " + design_words(v) + ")";
}

Json metric_verdict_json(const MetricVerdict& v) {
  const Interval& d = v.difference.difference;
  return Json::object()
      .set("variant", v.variant)
      .set("label", v.label)
      .set("metric", name_of(v.metric))
      .set("split", v.split)
      .set("verdict", difference_verdict_word(v.difference.verdict))
      .set("difference", Json::object().set("difference", d.point).set("lo", d.lo).set("hi", d.hi))
      .set("median", v.variant_median)
      .set("baseline_median", v.baseline_median)
      .set("paired", v.difference.paired)
      .set("seeds", v.difference.n)
      .set("searches", v.difference.groups)
      .set("runs", v.variant_runs)
      .set("baseline_runs", v.baseline_runs);
}

std::vector<Judgement> judge(const std::vector<VariantResult>& results,
                             const std::vector<VerdictSpec>& verdicts) {
  std::vector<Judgement> judged;
  for (const VerdictSpec& spec : verdicts.empty() ? default_verdicts(results) : verdicts) {
    Judgement& j = judged.emplace_back();
    j.spec = spec;
    if (spec.metric == VerdictMetric::steps)
      j.steps = compare_against_baseline(results, spec.split);
    else
      j.metric = compare_on_metric(results, spec);
  }
  return judged;
}

std::vector<std::string> verdict_lines(const std::vector<Judgement>& judged, bool spreads) {
  std::vector<std::string> lines;
  for (const Judgement& j : judged) {
    for (const BaselineVerdict& v : j.steps) {
      lines.push_back(verdict_line(v));
      if (spreads) lines.push_back(spread_line(v));
    }
    for (const MetricVerdict& v : j.metric) lines.push_back(metric_verdict_line(v));
  }
  return lines;
}

}  // namespace tapir
