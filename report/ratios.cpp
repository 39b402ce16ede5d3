// The report's figure of ratios to the baseline (report/ratios.h).
#include "report/ratios.h"

#include <algorithm>
#include <cstdio>

#include "report/svg.h"

namespace tapir {

namespace {

// One panel of ratios to the baseline: each variant's `key` (compare.json's
// against_baseline: `ratio`, `lo`, `hi`) as a point on its 95% interval,
// beside a dashed line at 1; variants without a finite one (a spread ratio
// with too few seeds or an infinite one) are left out. `verdict` names the
// key that holds each variant's verdict.
SvgPanel ratio_panel(const Json& against, const char* key, const char* verdict) {
  SvgPanel panel;
  double row = 0, x_lo = 1, x_hi = 1;
  for (const Json& v : against.as_array()) {
    row += 1;
    const Json& r = v.at(key);
    if (!r.at("ratio").is_number() || !r.at("lo").is_number() || !r.at("hi").is_number()) continue;
    const double lo = r.at("lo").as_double(), hi = r.at("hi").as_double();
    x_lo = std::min(x_lo, lo);
    x_hi = std::max(x_hi, hi);
    const double point = r.at("ratio").as_double();
    SvgSeries bar, tick;
    bar.label = v.at("variant").as_string() + ": " + v.at(verdict).as_string();
    bar.color = tick.color = svg_palette(static_cast<size_t>(row));
    bar.x = {lo, hi};
    bar.y = {row, row};
    tick.x = {point, point};
    tick.y = {row - 0.25, row + 0.25};
    panel.series.push_back(std::move(bar));
    panel.series.push_back(std::move(tick));
  }
  SvgSeries one;
  one.label = "baseline (1x)";
  one.color = svg_palette(0);
  one.dashed = true;
  one.x = {1, 1};
  one.y = {0.5, row + 0.5};
  panel.series.push_back(std::move(one));
  // Not drawn: a margin around the bars and room above them for the legend.
  SvgSeries margin;
  margin.color = "none";
  margin.x = {x_lo - 0.1 * (x_hi - x_lo) - 0.05, x_hi + 0.1 * (x_hi - x_lo) + 0.05};
  margin.y = {0.3, row + 0.5 + 0.45 * (row + 1)};
  panel.series.push_back(std::move(margin));
  panel.y_label = "variant";
  return panel;
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
  std::snprintf(what, sizeof what, "steps to %g on %s against baseline",
                first.at("threshold").as_double(), first.at("split").as_string().c_str());
  SvgPanel steps = ratio_panel(against, "steps_ratio", "verdict");
  steps.title = std::string(what) + " (point: ratio of medians; bar: 95% interval)";
  steps.x_label = "variant steps / baseline steps (below 1: faster)";
  std::vector<SvgPanel> panels = {std::move(steps)};
  if (first.find("spread_ratio") != nullptr) {
    SvgPanel spread = ratio_panel(against, "spread_ratio", "spread_verdict");
    spread.title =
        "spread over seeds of " + std::string(what) + " (point: ratio of variances of log steps)";
    spread.x_label = "variant spread / baseline spread (below 1: narrower)";
    panels.push_back(std::move(spread));
  }
  const double rows = static_cast<double>(against.size());
  return "<h2>Against the baseline</h2>\n" +
         svg_figure("", panels, SvgLayout{1, 640, 120 + 50 * rows});
}

}  // namespace tapir
