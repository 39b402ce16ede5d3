// compare.json, the comparison in full (lab/compare.h; its fields:
// docs/formats.md#comparison-folder).
#include <cmath>

#include "base/json.h"
#include "lab/compare.h"

namespace tapir {

namespace {

Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json spread_json(const Spread& s) {
  Json j = Json::object();
  j.set("median", number(s.median));
  j.set("q1", number(s.q1));
  j.set("q3", number(s.q3));
  j.set("min", number(s.min));
  j.set("max", number(s.max));
  j.set("count", s.count);
  j.set("never", s.never);
  return j;
}

// {"median": ..., "lo": ..., "hi": ...}, the point under the name `point`.
Json interval_json(const Interval& i, const char* point = "median") {
  return Json::object().set(point, number(i.point)).set("lo", number(i.lo)).set("hi", number(i.hi));
}

Json numbers(const std::vector<double>& values) {
  Json j = Json::array();
  for (double v : values) j.push_back(number(v));
  return j;
}

Json split_summary_json(const SplitSummary& s, const std::vector<double>& thresholds) {
  Json j = Json::object();
  Json per_threshold = Json::array();
  for (size_t t = 0; t < thresholds.size(); ++t)
    per_threshold.push_back(
        Json::object()
            .set("threshold", thresholds[t])
            .set("steps_to_threshold", spread_json(s.steps[t]))
            .set("steps_to_threshold_interval", interval_json(s.steps_interval[t]))
            .set("seconds_to_threshold", spread_json(s.seconds[t])));
  j.set("thresholds", per_threshold);
  j.set("final_accuracy", spread_json(s.final_accuracy));
  j.set("final_accuracy_interval", interval_json(s.final_accuracy_interval));
  j.set("best_loss", spread_json(s.best_loss));
  j.set("best_loss_interval", interval_json(s.best_loss_interval));
  if (s.final_bits_per_byte.count > 0) {
    j.set("final_bits_per_byte", spread_json(s.final_bits_per_byte));
    j.set("final_bits_per_byte_interval", interval_json(s.final_bits_per_byte_interval));
  }
  if (!s.groups.empty()) {
    Json groups = Json::object();
    for (const GroupSpread& g : s.groups) groups.set(g.key, spread_json(g.accuracy));
    j.set("groups", groups);
  }
  return j;
}

Json split_run_json(const SplitRun& s) {
  Json j = Json::object();
  j.set("steps_to_threshold", numbers(s.steps_to));
  j.set("seconds_to_threshold", numbers(s.seconds_to));
  j.set("final_accuracy", s.final_accuracy);
  j.set("best_loss", s.best_loss);
  if (std::isfinite(s.final_bits_per_byte)) j.set("final_bits_per_byte", s.final_bits_per_byte);
  if (!s.final_groups.empty()) {
    Json groups = Json::object();
    for (const GroupAccuracy& g : s.final_groups) groups.set(g.key, g.accuracy);
    j.set("groups", groups);
  }
  return j;
}

Json baseline_verdict_json(const BaselineVerdict& v) {
  return Json::object()
      .set("variant", v.variant)
      .set("label", v.label)
      .set("split", v.split)
      .set("threshold", v.threshold)
      .set("verdict", ratio_verdict_word(v.steps.verdict))
      .set("steps_ratio", interval_json(v.steps.ratio, "ratio"))
      .set("paired", v.steps.paired)
      .set("seeds", v.steps.n)
      .set("searches", v.steps.groups)
      .set("seeds_to_decide", v.steps.seeds_to_decide)
      .set("spread_ratio", interval_json(v.spread.ratio, "ratio"))
      .set("spread_verdict", spread_verdict_word(v.spread.verdict))
      .set("spread_p", number(v.spread.p));
}

}  // namespace

std::string compare_json(const std::vector<VariantResult>& results,
                         const std::vector<double>& thresholds,
                         const std::vector<VerdictSpec>& verdicts) {
  TAPIR_CHECK(!thresholds.empty(), "compare needs at least one threshold");
  for (const VariantResult& r : results)
    TAPIR_CHECK(r.thresholds == thresholds, "variant ", r.variant.name,
                " was summarised at other thresholds");
  Json root = Json::object();
  root.set("threshold", thresholds.front());  // the one the top-level numbers use
  root.set("thresholds", numbers(thresholds));
  Json split_names = Json::array();
  for (const std::string& s : all_splits(results)) split_names.push_back(s);
  root.set("splits", split_names);
  for (const VariantResult& r : results)
    if (!r.group_by.empty()) {
      root.set("group_by", r.group_by);
      break;
    }
  Json variants = Json::array();
  const std::vector<std::string> labels = variant_labels(results);
  for (size_t k = 0; k < results.size(); ++k) {
    const VariantResult& r = results[k];
    Json v = Json::object();
    v.set("variant", r.variant.name);
    v.set("label", labels[k]);
    if (!r.pooled.empty()) {
      Json pooled = Json::array();
      for (const std::string& name : r.pooled) pooled.push_back(name);
      v.set("pooled", pooled);
    }
    // The first split at the first threshold, as a one-threshold comparison
    // has always written them.
    const SplitSummary& first = r.first();
    v.set("steps_to_threshold", spread_json(first.steps.front()));
    v.set("steps_to_threshold_interval", interval_json(first.steps_interval.front()));
    v.set("seconds_to_threshold", spread_json(first.seconds.front()));
    v.set("final_accuracy", spread_json(first.final_accuracy));
    v.set("final_accuracy_interval", interval_json(first.final_accuracy_interval));
    v.set("best_loss", spread_json(first.best_loss));
    v.set("best_loss_interval", interval_json(first.best_loss_interval));
    Json splits = Json::object();
    for (const SplitSummary& s : r.splits) splits.set(s.split, split_summary_json(s, thresholds));
    v.set("splits", splits);
    Json runs = Json::array();
    for (const SeedRun& run : r.runs) {
      Json j = Json::object();
      j.set("seed", static_cast<int64_t>(run.seed));
      j.set("dir", run.dir);
      if (!run.build.empty()) j.set("build", run.build);
      j.set("steps_to_threshold", number(run.first().steps_to.front()));
      j.set("final_accuracy", run.first().final_accuracy);
      j.set("best_loss", run.first().best_loss);
      Json run_splits = Json::object();
      for (const SplitRun& s : run.splits) run_splits.set(s.split, split_run_json(s));
      j.set("splits", run_splits);
      runs.push_back(j);
    }
    v.set("runs", runs);
    v.set("compute", arm_cost_json(r.compute));
    if (!r.tuning.is_null()) v.set("tuning", r.tuning);
    variants.push_back(v);
  }
  root.set("variants", variants);
  Json lines = Json::array(), against = Json::array(), on_metric = Json::array();
  const std::vector<Judgement> judged = judge(results, verdicts);
  for (const std::string& line : verdict_lines(judged, /*spreads=*/false)) lines.push_back(line);
  for (const Judgement& j : judged) {
    for (const BaselineVerdict& v : j.steps) against.push_back(baseline_verdict_json(v));
    for (const MetricVerdict& v : j.metric) on_metric.push_back(metric_verdict_json(v));
  }
  if (lines.size() > 0) {
    root.set("verdicts", lines);
    root.set("against_baseline", against);
    root.set("on_metric", on_metric);
  }
  return to_json(root, 2) + "\n";
}

}  // namespace tapir
