// What the claims runner reads: the experiments of claims/experiments.json
// and a claim's result from a comparison's compare.json (lab/claims.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json_fields.h"
#include "base/parse.h"
#include "lab/arch_controls.h"
#include "lab/claims.h"
#include "lab/compare.h"
#include "lab/intervals.h"

namespace tapir {

namespace {

// A budget as the runner can use it: an interval needs two seeds.
void check_budget(const ClaimBudget& b, const std::string& what) {
  TAPIR_CHECK(b.searches >= 1 && b.seeds >= 2 && b.steps >= 0, what,
              ": a budget needs searches >= 1 and seeds >= 2 (an interval needs two)");
}

// The entry of compare.json's `list` for the measure's variant and split
// ("arch": the searches pooled where there are several, else the one search).
const Json& entry_for(const ClaimMeasure& m, const Json& list, const char* list_name) {
  const Json* single = nullptr;
  const Json* pooled = nullptr;
  for (const Json& e : list.as_array()) {
    if (e.at("split").as_string() != m.split) continue;
    if (!m.metric.empty() && e.find("metric") != nullptr && e.at("metric").as_string() != m.metric)
      continue;
    const std::string& variant = e.at("variant").as_string();
    if (m.variant == "arch") {
      if (variant.rfind("arch: ", 0) == 0)
        pooled = &e;
      else if (variant.rfind("arch:", 0) == 0)
        single = single == nullptr ? &e : single;
    } else if (variant == m.variant) {
      pooled = &e;
    }
  }
  if (pooled != nullptr) return *pooled;
  if (single != nullptr) return *single;
  fail("compare.json: no ", list_name, " entry for variant ", tapir::quoted(m.variant),
       " on split ", tapir::quoted(m.split), m.metric.empty() ? "" : " (metric " + m.metric + ")");
}

// The words in the last parentheses of the verdict line of `variant` whose
// text holds `what` ("median 700 against 1100; ...; never: 0 of 9 against 0
// of 3"), or "".
std::string verdict_detail(const Json& compare, const std::string& variant,
                           const std::string& what) {
  const Json* lines = compare.find("verdicts");
  if (lines == nullptr) return "";
  for (const Json& line : lines->as_array()) {
    const std::string& text = line.as_string();
    if (text.rfind("verdict: " + variant + " is ", 0) != 0) continue;
    if (text.find(what) == std::string::npos) continue;
    const size_t open = text.rfind('(');
    const size_t close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) return "";
    // "paired by seed, 3 searches x 3 seeds": the row's n says the second part.
    static const std::regex n_again(R"(, \d+ searches x \d+ seeds)");
    return std::regex_replace(text.substr(open + 1, close - open - 1), n_again, "");
  }
  return "";
}

std::optional<double> finite_or_none(const Json& j, const char* key) {
  const Json* v = j.find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return v->as_double();
}

// "lr=3e-3", or for a pooled variant each part's choice: "lr=1e-3, lr=3e-3".
std::string chosen_text(const Json& compare, const Json& variant) {
  if (const Json* t = variant.find("tuning")) return t->at("chosen_text").as_string();
  const Json* parts = variant.find("pooled");
  if (parts == nullptr) return "untuned";
  std::string text;
  for (const Json& part : parts->as_array()) {
    const Json* v = variant_entry(compare, part.as_string());
    text += (text.empty() ? "" : ", ") + (v == nullptr ? "?" : chosen_text(compare, *v));
  }
  return text;
}

// "6.1e13 (searches 4.0e13, tuning 1.5e13)".
std::string cost_text(const Json& variant) {
  const Json* c = variant.find("compute");
  if (c == nullptr) return "";
  std::string text = flops_text(c->at("flops").as_double());
  std::string parts;
  for (const char* kind : {"searches", "tuning"})
    if (const Json* w = c->find(kind); w != nullptr && w->at("count").as_int() > 0)
      parts += (parts.empty() ? "" : ", ") + std::string(kind) + " " +
               flops_text(w->at("flops").as_double());
  return parts.empty() ? text : text + " (" + parts + ")";
}

// What the measured variant and the baseline were tuned against, and their
// compute, from the variants of compare.json (lab/tune.h, lab/arm_cost.h).
void add_tuning_and_compute(const Json& compare, const std::string& measured, ClaimResult& r) {
  const Json* variant = variant_entry(compare, measured);
  const Json* base = variant_entry(compare, "baseline");
  if (variant == nullptr || base == nullptr) return;
  const std::string label = shown_variant(*variant), base_label = shown_variant(*base);
  const auto grid_text = [](const Json& tuning) {
    std::string grid;
    for (const auto& [key, values] : tuning.at("grid").as_object()) {
      std::string list;
      for (const Json& v : values.as_array()) list += (list.empty() ? "" : "/") + v.as_string();
      grid += (grid.empty() ? "" : ", ") + key + " " + list;
    }
    return grid;
  };
  // The measured variant's grid: its own, or its first part's for a pool.
  const Json* own = variant->find("tuning");
  if (own == nullptr)
    if (const Json* parts = variant->find("pooled"); parts != nullptr && !parts->as_array().empty())
      if (const Json* part = variant_entry(compare, parts->as_array().front().as_string()))
        own = part->find("tuning");
  if (const Json* t = base->find("tuning")) {
    const std::string grid = grid_text(*t);
    const std::string grids = own == nullptr || grid_text(*own) == grid
                                  ? "both tuned on arch (" + grid
                                  : "tuned on arch (" + base_label + " on " + grid + ", " + label +
                                        " on " + grid_text(*own);
    r.tuned = grids + "; " + std::to_string(t->at("seeds").as_array().size()) +
              " seeds): " + base_label + " " + chosen_text(compare, *base) + "; " + label + " " +
              chosen_text(compare, *variant);
  }
  const std::string cost = cost_text(*variant), base_cost = cost_text(*base);
  if (cost.empty() || base_cost.empty()) return;
  char ratio[32];
  std::snprintf(
      ratio, sizeof ratio, "%.2fx",
      variant->at("compute").at("flops").as_double() / base->at("compute").at("flops").as_double());
  r.compute = "FLOPs " + label + " " + cost + ", " + base_label + " " + base_cost + ": " + ratio;
}

}  // namespace

const Json* variant_entry(const Json& compare, const std::string& name) {
  const Json* variants = compare.find("variants");
  if (variants == nullptr) return nullptr;
  for (const Json& v : variants->as_array())
    if (v.at("variant").as_string() == name) return &v;
  return nullptr;
}

std::map<std::string, ClaimExperiment> read_claim_experiments(const std::string& path) {
  const Json root = read_json_file(path);
  std::map<std::string, ClaimExperiment> out;
  try {
    for (const auto& [id, j] : root.as_object()) {
      const std::string what = "experiment " + tapir::quoted(id);
      ClaimExperiment e;
      e.id = id;
      try {
        fields_from_json(j, e);
      } catch (const Error& error) {
        fail(what, ": ", error.what());
      }
      e.search = j.find("search") != nullptr;
      TAPIR_CHECK(e.command == "compare" || e.command == "robust-compare", what,
                  ": command must be compare or robust-compare, not ", tapir::quoted(e.command));
      TAPIR_CHECK(e.command != "compare" || !e.threshold.empty(), what,
                  ": a comparison needs its threshold");
      TAPIR_CHECK(e.steps > 0, what, ": steps must be positive");
      TAPIR_CHECK(e.command == "compare" || !e.search, what,
                  ": robust-compare runs no search (leave out \"search\")");
      check_budget(e.full, what + ": full");
      check_budget(e.quick, what + ": quick");
      TAPIR_CHECK((e.controls.empty() && e.searches_from.empty()) || e.search, what,
                  ": controls and searches_from need a search (\"search\")");
      for (const std::string& kind : e.controls) parse_name<ArchControl>(kind);
      out.emplace(id, std::move(e));
    }
    for (const auto& [id, e] : out)
      TAPIR_CHECK(e.searches_from.empty() || out.count(e.searches_from), "experiment ",
                  tapir::quoted(id), ": searches_from names no experiment, ",
                  tapir::quoted(e.searches_from));
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
  return out;
}

namespace {

// How many of a pooled row's searches help on their own: each single
// search's entry of `list` (its `field` object, the estimate under `key`)
// with its interval wholly on the claimed side of no effect, and with its
// estimate there. "" for a row of one search.
std::string searches_that_help(const ClaimMeasure& m, const Json& list, const std::string& field,
                               const char* key, int searches) {
  if (m.variant != "arch" || searches < 2) return "";
  int beyond = 0, toward = 0, all = 0;
  const auto better = [&](double x) {
    return m.higher_better ? x > m.null_value : x < m.null_value;
  };
  for (const Json& e : list.as_array()) {
    const std::string& variant = e.at("variant").as_string();
    if (e.at("split").as_string() != m.split || variant.rfind("arch:", 0) != 0 ||
        variant.rfind("arch: ", 0) == 0 || variant.find(",pool=") != std::string::npos)
      continue;
    if (!m.metric.empty() && e.find("metric") != nullptr && e.at("metric").as_string() != m.metric)
      continue;
    ++all;
    const Json& d = e.at(field);
    const std::optional<double> value = finite_or_none(d, key), lo = finite_or_none(d, "lo"),
                                hi = finite_or_none(d, "hi");
    toward += value && better(*value);
    beyond += lo && hi && better(m.higher_better ? *lo : *hi);
  }
  if (all != searches) return "";  // a pool of other rows (controls): no count
  const std::string of = "/" + std::to_string(all);
  return "; " + std::to_string(beyond) + of + " searches help alone (" + std::to_string(toward) +
         of + " in direction)";
}

}  // namespace

ClaimResult result_from_compare(const ClaimMeasure& m, const Json& compare) {
  ClaimResult r;
  const Json* entry = nullptr;
  if (m.field == "steps_ratio" || m.field == "spread_ratio") {
    entry = &entry_for(m, compare.at("against_baseline"), "against_baseline");
    const Json& ratio = entry->at(m.field);
    r.value = finite_or_none(ratio, "ratio");
    r.lo = finite_or_none(ratio, "lo");
    r.hi = finite_or_none(ratio, "hi");
    if (m.field == "steps_ratio") {
      r.detail = verdict_detail(compare, shown_variant(*entry), "steps to");
    } else if (const Json* p = entry->find("spread_p"); p != nullptr && !p->is_null()) {
      char text[64];
      std::snprintf(text, sizeof text, "variance of log steps, permutation p = %.3f",
                    p->as_double());
      r.detail = text;
    } else {
      r.detail = "no spread: fewer than 2 runs a side reached the threshold";
    }
  } else if (m.field == "difference") {
    entry = &entry_for(m, compare.at("on_metric"), "on_metric");
    const Json& d = entry->at("difference");
    r.value = finite_or_none(d, "difference");
    r.lo = finite_or_none(d, "lo");
    r.hi = finite_or_none(d, "hi");
    r.detail = verdict_detail(compare, shown_variant(*entry), "on " + m.split + " at");
  } else {
    fail("measure: field ", tapir::quoted(m.field),
         " is none that the runner reads (steps_ratio, spread_ratio, difference)");
  }
  const Json* searches = entry->find("searches");
  r.searches =
      searches == nullptr ? (m.variant == "arch" ? 1 : 0) : static_cast<int>(searches->as_int());
  r.seeds = static_cast<int>(entry->at("seeds").as_int());
  r.interval = "95% CI";
  r.status = status_by_rule(m, r);
  r.detail +=
      m.field == "difference"
          ? searches_that_help(m, compare.at("on_metric"), "difference", "difference", r.searches)
          : searches_that_help(m, compare.at("against_baseline"), m.field, "ratio", r.searches);
  add_tuning_and_compute(compare, entry->at("variant").as_string(), r);
  return r;
}

ClaimResult result_from_robust_summary(const ClaimMeasure& m, const Json& summary) {
  const Json* node = &summary;
  const Json* parent = nullptr;
  size_t start = 0;
  while (start <= m.field.size()) {
    const size_t dot = std::min(m.field.find('.', start), m.field.size());
    const std::string key = m.field.substr(start, dot - start);
    parent = node;
    if (node->is_array()) {
      const int64_t index = parse_int64(key, "an index of summary field " + m.field, 0,
                                        static_cast<int64_t>(node->size()) - 1);
      node = &node->as_array()[static_cast<size_t>(index)];
    } else {
      TAPIR_CHECK(node->is_object(), "summary: field ", tapir::quoted(m.field), ": ",
                  tapir::quoted(key), " is below a value with no keys");
      node = node->find(key);
      TAPIR_CHECK(node != nullptr, "summary: field ", tapir::quoted(m.field), ": no key ",
                  tapir::quoted(key));
    }
    start = dot + 1;
  }
  TAPIR_CHECK(node->is_object() && node->find("mean") != nullptr, "summary: field ",
              tapir::quoted(m.field), " holds no paired difference (mean, lo, hi)");
  ClaimResult r;
  r.value = finite_or_none(*node, "mean");
  r.lo = finite_or_none(*node, "lo");
  r.hi = finite_or_none(*node, "hi");
  TAPIR_CHECK(r.value.has_value(), "summary: field ", tapir::quoted(m.field),
              " holds no paired difference (mean, lo, hi)");
  r.searches = 0;
  r.seeds = static_cast<int>(summary.at("seeds").as_int());
  r.interval = "95% CI";
  // The counts beside a share ("monotone": erm 2, descent 10) say what it is
  // a difference of.
  std::string counts;
  if (parent != nullptr && parent->is_object())
    for (const auto& [key, value] : parent->as_object())
      if (value.is_int())
        counts += (counts.empty() ? "" : ", ") + key + " " + std::to_string(value.as_int()) +
                  " of " + std::to_string(r.seeds);
  r.detail = (counts.empty() ? "" : counts + "; ") + "paired by seed, on " +
             summary.at("split").as_string();
  r.status = status_by_rule(m, r);
  return r;
}

}  // namespace tapir
