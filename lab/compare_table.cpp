// The written form of a comparison (lab/compare.h): compare.md, which is
// also what `tapir compare` prints, and its verdict lines; compare.json is
// lab/compare_json.cpp's.
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
  const std::vector<std::string> labels = variant_labels(results);
  for (size_t k = 0; k < results.size(); ++k) {
    const VariantResult& r = results[k];
    const SplitSummary* s = find_split(r, split);
    if (s == nullptr) continue;
    out += "| " + labels[k] + " | " + std::to_string(s->final_accuracy.count) + " |";
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
  for (const std::string& label : variant_labels(results)) {
    out += " " + label + " |";
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

}  // namespace

std::vector<std::string> all_splits(const std::vector<VariantResult>& results) {
  std::vector<std::string> names;
  for (const VariantResult& r : results)
    for (const SplitSummary& s : r.splits)
      if (std::find(names.begin(), names.end(), s.split) == names.end()) names.push_back(s.split);
  return names;
}

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
  // The legend of the short names: each full name once.
  const std::vector<std::string> labels = variant_labels(results);
  std::string legend;
  for (size_t k = 0; k < results.size(); ++k)
    if (labels[k] != results[k].variant.name)
      legend += "| " + labels[k] + " | " + results[k].variant.name + " |\n";
  if (!legend.empty()) out += "\n| variant | as given |\n|---|---|\n" + legend;
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
  const std::vector<std::string> labels = variant_labels(results);
  for (size_t k = 0; k < results.size(); ++k) {
    const VariantResult& r = results[k];
    if (&r == base) continue;
    BaselineVerdict v;
    v.variant = r.variant.name;
    v.label = labels[k];
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
      "verdict: " + v.label + " is " +
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
    return "spread: " + v.label + " is inconclusive against baseline: " + what +
           " needs 2 seeds a side that reach it (" + design_text(v) + ")";
  char p[32];
  std::snprintf(p, sizeof p, "%.2g", s.p);
  return "spread: " + v.label + " is " +
         verdict_text(v, spread_verdict_word(s.verdict), s.verdict == SpreadVerdict::inconclusive) +
         ": " + what + " at " + format_ratio(s.ratio) + " baseline's (permutation p = " + p + "; " +
         design_text(v) + ")";
}

}  // namespace tapir
