// The claims measured from runs paired across two sides (lab/claims.h):
// learned functions against a control of the same comparison
// (result_versus), and one experiment's searches against another's
// (result_between: final metrics, or gains over each one's baseline).
#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "lab/claims.h"
#include "lab/compare.h"
#include "lab/intervals.h"

namespace tapir {

namespace {

// The final `metric` on `split` of every run of one variant of a
// compare.json (its entry), in seed order.
std::vector<double> final_values(const Json& variant, const ClaimMeasure& m) {
  const std::string key = m.metric == "accuracy" ? "final_accuracy" : "final_" + m.metric;
  std::vector<double> values;
  for (const Json& run : variant.at("runs").as_array()) {
    const Json* splits = run.find("splits");
    const Json* one = splits == nullptr ? nullptr : splits->find(m.split);
    const Json* value = one == nullptr ? nullptr : one->find(key);
    TAPIR_CHECK(value != nullptr && value->is_number(), "compare.json: run ",
                run.at("dir").as_string(), " has no ", key, " on ", m.split);
    values.push_back(value->as_double());
  }
  return values;
}

// The same for each single search's variant ("arch:FILE", not the pooled
// row): one group per search.
std::vector<std::vector<double>> final_by_search(const Json& compare, const ClaimMeasure& m) {
  std::vector<std::vector<double>> groups;
  for (const Json& v : compare.at("variants").as_array()) {
    const std::string& name = v.at("variant").as_string();
    if (name.rfind("arch:", 0) != 0 || name.rfind("arch: ", 0) == 0) continue;
    groups.push_back(final_values(v, m));
  }
  TAPIR_CHECK(!groups.empty(), "compare.json: no search's runs (arch:FILE variants)");
  return groups;
}

double median_of_all(const std::vector<std::vector<double>>& groups) {
  std::vector<double> all;
  for (const auto& g : groups) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  const size_t n = all.size();
  return n % 2 == 1 ? all[n / 2] : 0.5 * (all[n / 2 - 1] + all[n / 2]);
}

// The final `metric` on the split of every run of the variant `name` of a
// compare.json, one group per part (a pooled row's variants) in order.
std::vector<std::vector<double>> final_by_part(const Json& compare, const ClaimMeasure& m,
                                               const std::string& name) {
  // A pool named NAME is the row "NAME: K pooled" (lab/compare.h's pool_named).
  const Json* entry = variant_entry(compare, name);
  for (const Json& v : compare.at("variants").as_array())
    if (entry == nullptr && v.at("variant").as_string().rfind(name + ": ", 0) == 0) entry = &v;
  TAPIR_CHECK(entry != nullptr, "compare.json: no variant ", tapir::quoted(name));
  std::vector<const Json*> parts;
  if (const Json* pooled = entry->find("pooled")) {
    for (const Json& part : pooled->as_array()) {
      parts.push_back(variant_entry(compare, part.as_string()));
      TAPIR_CHECK(parts.back() != nullptr, "compare.json: no variant ", part.as_string());
    }
  } else {
    parts.push_back(entry);
  }
  std::vector<std::vector<double>> groups;
  for (const Json* part : parts) groups.push_back(final_values(*part, m));
  return groups;
}

// The difference of the medians of two sets of groups (searches, their
// seeds inside), paired by seed, as a claim's result; `what` names the two
// sides in an error, `how` ends the detail.
ClaimResult paired_difference(const ClaimMeasure& m,
                              const std::vector<std::vector<double>>& variant,
                              const std::vector<std::vector<double>>& other, const char* what,
                              const std::string& how) {
  TAPIR_CHECK(variant.size() == other.size() && variant.front().size() == other.front().size(),
              what, " differ in searches or seeds: ", variant.size(), " x ", variant.front().size(),
              " against ", other.size(), " x ", other.front().size());
  const MedianDifference d = median_difference(variant, other, /*paired=*/true);
  ClaimResult r;
  r.value = d.difference.point;
  r.lo = d.difference.lo;
  r.hi = d.difference.hi;
  r.searches = static_cast<int>(variant.size());
  r.seeds = static_cast<int>(variant.front().size());
  r.interval = "95% CI";
  char text[64];
  std::snprintf(text, sizeof text, "median %.3f against %.3f", median_of_all(variant),
                median_of_all(other));
  r.detail = text + how;
  r.status = status_by_rule(m, r);
  return r;
}

}  // namespace

ClaimResult result_versus(const ClaimMeasure& m, const Json& compare) {
  // "arch": the pooled searches' row, or else the one search's.
  std::string name = m.variant, single;
  if (m.variant == "arch") {
    for (const Json& v : compare.at("variants").as_array()) {
      const std::string& n = v.at("variant").as_string();
      if (n.rfind("arch: ", 0) == 0) name = n;
      if (single.empty() && n.rfind("arch:", 0) == 0 && n.find(",pool=") == std::string::npos)
        single = n;
    }
    if (name == "arch") name = single;
  }
  return paired_difference(m, final_by_part(compare, m, name), final_by_part(compare, m, m.versus),
                           "the two variants", " (" + m.versus + "); paired by search and seed");
}

namespace {

// Each search's runs less the baseline's run of the same seed.
std::vector<std::vector<double>> gains_by_search(const Json& compare, const ClaimMeasure& m) {
  std::vector<std::vector<double>> groups = final_by_search(compare, m);
  const std::vector<double> baseline = final_by_part(compare, m, "baseline").front();
  for (std::vector<double>& group : groups) {
    TAPIR_CHECK(group.size() == baseline.size(), "compare.json: a search has ", group.size(),
                " runs and the baseline ", baseline.size(), "; a gain pairs them by seed");
    for (size_t i = 0; i < group.size(); ++i) group[i] -= baseline[i];
  }
  return groups;
}

}  // namespace

ClaimResult result_between(const ClaimMeasure& m, const Json& compare, const Json& against) {
  const bool gains = m.field == "gain_between";
  std::vector<std::vector<double>> one = gains ? gains_by_search(compare, m)
                                               : final_by_search(compare, m),
                                   other = gains ? gains_by_search(against, m)
                                                 : final_by_search(against, m);
  // Search k of either experiment is seeded alike (claims_run.cpp): where one
  // ran more searches, its first ones pair with the other's.
  const size_t n = std::min(one.size(), other.size());
  std::string note;
  if (one.size() != other.size())
    note = std::string(one.size() > n ? "; its" : "; the other's") + " first " + std::to_string(n) +
           " of " + std::to_string(std::max(one.size(), other.size())) + " searches";
  one.resize(n);
  other.resize(n);
  return paired_difference(m, one, other, "the two experiments",
                           (gains ? "; gains, paired by seed" : "; paired by seed") + note);
}

}  // namespace tapir
