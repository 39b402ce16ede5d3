// The report's figure of ratios to the baseline (report/ratios.h).
#include "report/ratios.h"

#include <cstdio>

#include "lab/compare.h"
#include "report/forest.h"
#include "report/svg.h"

namespace tapir {

namespace {

// One forest plot of ratios to the baseline: each variant's `key`
// (compare.json's against_baseline: `ratio`, `lo`, `hi`) as a dot on its
// 95% interval, beside the line at 1, its verdict (the key `verdict`) on
// the right; a variant without a finite ratio (a spread ratio with too few
// seeds, or an infinite one) keeps its labelled row, undrawn.
ForestPlot ratio_plot(const Json& against, const char* key, const char* verdict) {
  ForestPlot plot;
  plot.log_axis = true;
  plot.null_value = 1;
  size_t index = 0;
  for (const Json& v : against.as_array()) {
    ++index;
    const Json& r = v.at(key);
    ForestRow row;
    row.label = shown_variant(v);
    row.note = v.at(verdict).as_string();
    row.color = svg_palette(index);
    if (r.at("ratio").is_number() && r.at("lo").is_number() && r.at("hi").is_number()) {
      row.point = r.at("ratio").as_double();
      row.lo = r.at("lo").as_double();
      row.hi = r.at("hi").as_double();
    }
    plot.rows.push_back(std::move(row));
  }
  return plot;
}

}  // namespace

// The steps ratio and, where compare.json has it, the spread ratio of
// every variant to the baseline (lab/intervals.h), on the split of the
// first steps verdict (a comparison may judge steps on several splits).
std::string ratio_figure(const Json& all) {
  if (all.size() == 0) return "";
  Json against = Json::array();
  for (const Json& v : all.as_array())
    if (v.at("split") == all.as_array().front().at("split")) against.push_back(v);
  const Json& first = against.as_array().front();
  char what[120];
  std::snprintf(what, sizeof what, "steps to %g on %s against the baseline",
                first.at("threshold").as_double(), first.at("split").as_string().c_str());
  ForestPlot steps = ratio_plot(against, "steps_ratio", "verdict");
  steps.title = std::string(what) + " (dot: ratio of medians; bar: 95% interval)";
  steps.x_label = "variant steps / baseline steps (below 1: faster)";
  std::string out = "<h2>Against the baseline</h2>\n" + forest_svg(steps);
  if (first.find("spread_ratio") != nullptr) {
    ForestPlot spread = ratio_plot(against, "spread_ratio", "spread_verdict");
    spread.title =
        "spread over seeds of " + std::string(what) + " (dot: ratio of variances of log steps)";
    spread.x_label = "variant spread / baseline spread (below 1: narrower)";
    out += forest_svg(spread);
  }
  return out;
}

}  // namespace tapir
