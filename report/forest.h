// Forest plots: one row per estimate, its label on the left, the estimate a
// dot on its 95% interval's bar, a line where there is no effect (1 for a
// ratio, 0 for a difference), optionally a dashed reference line (the
// paper's figure), and a note on the right of each row (the verdict). The
// same layout for the comparison report's ratios (report/ratios.h) and the
// claims page (report/claims_pages.h). No ids: any number of plots can
// share a page. The plot area carries class="plot-area" and the figure
// data-colors (the colours of the rows drawn), for the browser test that
// looks at the rendered pixels (tests/report_pixels.sh).
// Sits in report/, on report/svg.h.
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace tapir {

struct ForestRow {
  std::string label;                       // left of the axis
  double point = NAN, lo = NAN, hi = NAN;  // a non-finite point: the row is labelled, not drawn
  std::string note;                        // right of the plot
  std::string color;                       // of the dot and the bar
  std::string tooltip;                     // the dot's <title>; empty: label and note
};

struct ForestPlot {
  std::string title, x_label;
  bool log_axis = false;            // ratios: a log axis, ticks written "2x"
  double null_value = 0;            // the no-effect line
  std::optional<double> reference;  // a dashed line, labelled reference_label
  std::string reference_label;
  int decimals = 2;  // of the tick labels
  std::vector<ForestRow> rows;
};

// The SVG element (no XML header) of the plot, to inline in a page.
std::string forest_svg(const ForestPlot& plot);

}  // namespace tapir
