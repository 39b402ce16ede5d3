// The written form of a comparison (lab/compare.h): compare.md, which is
// also what `tapir compare` prints, and compare.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/json.h"
#include "lab/compare.h"

namespace tapir {

namespace {

// 0.99 -> "0.99", 0.9 -> "0.90", 0.995 -> "0.995": two decimals unless the
// threshold needs more.
std::string threshold_text(double threshold) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", threshold);
  if (std::strtod(buf, nullptr) != threshold) std::snprintf(buf, sizeof buf, "%g", threshold);
  return buf;
}

// Every split any variant logged, in the order the variants logged them.
std::vector<std::string> all_splits(const std::vector<VariantResult>& results) {
  std::vector<std::string> names;
  for (const VariantResult& r : results)
    for (const SplitSummary& s : r.splits)
      if (std::find(names.begin(), names.end(), s.split) == names.end()) names.push_back(s.split);
  return names;
}

const SplitSummary* find_split(const VariantResult& r, const std::string& split) {
  for (const SplitSummary& s : r.splits)
    if (s.split == split) return &s;
  return nullptr;
}

std::string split_table(const std::vector<VariantResult>& results, const std::string& split,
                        const std::vector<double>& thresholds) {
  bool bits = false;  // a column of bits per byte, where some variant has them
  for (const VariantResult& r : results)
    if (const SplitSummary* s = find_split(r, split))
      bits = bits || s->final_bits_per_byte.count > 0;
  std::string out = "| variant | seeds |", rule = "|---|---|";
  for (double t : thresholds) {
    const std::string text = threshold_text(t);
    out += " steps to " + text + ": median [95% CI] | never reached " + text + " |";
    rule += "---|---|";
  }
  out += " final " + split + " acc: median [95% CI] | best " + split + " loss: median [95% CI] |";
  rule += "---|---|";
  if (bits) {
    out += " final " + split + " bits per byte: median [95% CI] |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  char buf[256];
  for (const VariantResult& r : results) {
    const SplitSummary* s = find_split(r, split);
    if (s == nullptr) continue;
    out += "| " + r.variant.name + " | " + std::to_string(s->final_accuracy.count) + " |";
    for (size_t t = 0; t < thresholds.size(); ++t) {
      const Spread& steps = s->steps[t];
      const Interval& ci = s->steps_interval[t];
      out += " " + format_steps(steps.median) + " [" + format_steps(ci.lo) + ", " +
             format_steps(ci.hi) + "] |";
      out += " " + std::to_string(steps.never) + " of " + std::to_string(steps.count) + " |";
    }
    const Interval& acc = s->final_accuracy_interval;
    const Interval& loss = s->best_loss_interval;
    std::snprintf(buf, sizeof buf, " %.4f [%.4f, %.4f] | %.4f [%.4f, %.4f] |",
                  s->final_accuracy.median, acc.lo, acc.hi, s->best_loss.median, loss.lo, loss.hi);
    out += buf;
    if (bits) {
      const Interval& b = s->final_bits_per_byte_interval;
      if (s->final_bits_per_byte.count > 0)
        std::snprintf(buf, sizeof buf, " %.4f [%.4f, %.4f] |", s->final_bits_per_byte.median, b.lo,
                      b.hi);
      else
        std::snprintf(buf, sizeof buf, " - |");
      out += buf;
    }
    out += "\n";
  }
  return out;
}

// One row per group key, one column per variant: the final accuracy's
// median over seeds, "-" where a variant has no such group. "" when no
// variant logged groups for the split.
std::string groups_table(const std::vector<VariantResult>& results, const std::string& split) {
  std::vector<std::string> keys;
  std::string group_by;
  for (const VariantResult& r : results)
    if (const SplitSummary* s = find_split(r, split))
      for (const GroupSpread& g : s->groups) {
        if (group_by.empty()) group_by = r.group_by;
        if (std::find(keys.begin(), keys.end(), g.key) == keys.end()) keys.push_back(g.key);
      }
  if (keys.empty()) return "";
  std::string out = "| " + group_by + " |", rule = "|---|";
  for (const VariantResult& r : results) {
    out += " " + r.variant.name + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  char buf[32];
  for (const std::string& key : keys) {
    out += "| " + key + " |";
    for (const VariantResult& r : results) {
      const SplitSummary* s = find_split(r, split);
      std::string cell = "-";
      for (const GroupSpread& g : s ? s->groups : std::vector<GroupSpread>{})
        if (g.key == key) {
          std::snprintf(buf, sizeof buf, "%.4f", g.accuracy.median);
          cell = buf;
        }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  return "\nSplit " + split + ", final accuracy by " + group_by + " (median over seeds):\n\n" + out;
}

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

std::string compare_table_markdown(const std::vector<VariantResult>& results,
                                   const std::vector<double>& thresholds,
                                   const std::vector<VerdictSpec>& verdicts) {
  for (const VariantResult& r : results)
    TAPIR_CHECK(r.thresholds == thresholds, "variant ", r.variant.name,
                " was summarised at other thresholds");
  std::string out;
  const std::vector<std::string> splits = all_splits(results);
  for (size_t k = 0; k < splits.size(); ++k) {
    out += (k == 0 ? "Split " : "\nSplit ") + splits[k] +
           (k == 0 && splits.size() > 1 ? " (the first evaluation split):\n\n" : ":\n\n");
    out += split_table(results, splits[k], thresholds);
    out += groups_table(results, splits[k]);
  }
  const std::vector<std::string> lines = verdict_lines(judge(results, verdicts), /*spreads=*/true);
  if (!lines.empty()) out += "\n";
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

namespace {

// Each run's steps to the first threshold on `split`, and the step budget:
// the last step any run of any variant took.
std::vector<double> headline_steps(const VariantResult& r, const std::string& split,
                                   double& budget) {
  std::vector<double> steps;
  for (const SeedRun& run : r.runs) {
    const SplitRun& s = run_split(run, split);
    steps.push_back(s.steps_to.front());
    if (!s.accuracy.empty()) budget = std::max(budget, static_cast<double>(s.accuracy.back().step));
  }
  return steps;
}

}  // namespace

std::vector<BaselineVerdict> compare_against_baseline(const std::vector<VariantResult>& results,
                                                      const std::string& split_name) {
  const VariantResult* base = find_baseline(results);
  std::vector<BaselineVerdict> out;
  if (base == nullptr) return out;
  const std::string split = split_name.empty() ? base->first().split : split_name;
  double budget = 1;
  std::vector<std::vector<double>> steps;
  for (const VariantResult& r : results) steps.push_back(headline_steps(r, split, budget));
  const std::vector<double>& b = steps[static_cast<size_t>(base - results.data())];
  for (size_t k = 0; k < results.size(); ++k) {
    const VariantResult& r = results[k];
    if (&r == base) continue;
    BaselineVerdict v;
    v.variant = r.variant.name;
    v.threshold = r.thresholds.front();
    v.split = split;
    const GroupedRuns g = group_by_part(r, steps[k], *base);
    v.steps = steps_ratio(g.groups, {b}, budget, g.paired, k);
    v.spread = spread_ratio(g.groups, {b}, budget, g.paired, k);
    v.variant_steps = summary_split(r, split).steps.front();
    v.baseline_steps = summary_split(*base, split).steps.front();
    out.push_back(v);
  }
  return out;
}

namespace {

// "5 seeds", "2 searches x 5 seeds" (paired) or "3 seeds against 1".
std::string seeds_text(const BaselineVerdict& v) {
  const StepsRatio& s = v.steps;
  if (!s.paired)
    return std::to_string(v.variant_steps.count) + " seeds against " +
           std::to_string(v.baseline_steps.count);
  return paired_seeds_text(s.n, s.groups);
}

// "inconclusive against baseline at 5 seeds", "faster than baseline", ...
std::string verdict_text(const BaselineVerdict& v, const char* word, bool inconclusive) {
  if (!inconclusive) return std::string(word) + " than baseline";
  return "inconclusive against baseline at " +
         (v.steps.paired ? seeds_text(v) : std::to_string(v.variant_steps.count) + " seeds");
}

std::string design_text(const BaselineVerdict& v) {
  return (v.steps.paired ? "paired by seed, " : "unpaired, ") + seeds_text(v);
}

}  // namespace

std::string verdict_line(const BaselineVerdict& v) {
  const StepsRatio& s = v.steps;
  std::string line =
      "verdict: " + v.variant + " is " +
      verdict_text(v, ratio_verdict_word(s.verdict), s.verdict == RatioVerdict::inconclusive) +
      ": steps to " + threshold_text(v.threshold) + " on " + v.split + " at " +
      format_ratio(s.ratio) + " baseline (median " + format_steps(v.variant_steps.median) +
      " against " + format_steps(v.baseline_steps.median) + "; " + design_text(v) +
      "; never: " + std::to_string(v.variant_steps.never) + " of " +
      std::to_string(v.variant_steps.count) + " against " + std::to_string(v.baseline_steps.never) +
      " of " + std::to_string(v.baseline_steps.count) + ")";
  if (s.verdict != RatioVerdict::inconclusive) return line;
  if (std::isinf(v.variant_steps.median) && std::isinf(v.baseline_steps.median))
    line += "; neither median reached the threshold: run longer or lower it";
  else if (s.seeds_to_decide > 0)
    line += "; about " + std::to_string(s.seeds_to_decide) +
            (s.groups > 1 ? " seeds per search" : " seeds") + " would decide it";
  else
    line += "; the medians are equal: more seeds would not decide it";
  return line;
}

std::string spread_line(const BaselineVerdict& v) {
  const SpreadRatio& s = v.spread;
  const std::string what =
      "variance of log steps to " + threshold_text(v.threshold) + " on " + v.split;
  if (std::isnan(s.ratio.point))
    return "spread: " + v.variant + " is inconclusive against baseline: " + what +
           " needs 2 seeds a side that reach it (" + design_text(v) + ")";
  char p[32];
  std::snprintf(p, sizeof p, "%.2g", s.p);
  return "spread: " + v.variant + " is " +
         verdict_text(v, spread_verdict_word(s.verdict), s.verdict == SpreadVerdict::inconclusive) +
         ": " + what + " at " + format_ratio(s.ratio) + " baseline's (permutation p = " + p + "; " +
         design_text(v) + ")";
}

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
  for (const VariantResult& r : results) {
    Json v = Json::object();
    v.set("variant", r.variant.name);
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
