// A minimal, self-contained SVG line plot for the reports of `tapir layers`,
// `tapir robust` and `tapir robust-compare`: one or more series of (x, y)
// points with optional error bars, axes with round tick values, a legend.
// No dependencies; the output is a plain SVG 1.1 file any browser shows.
#pragma once
#include <string>
#include <vector>

namespace tapir {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> spread;  // empty, or per point: an error bar y - spread .. y + spread
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_y = false;  // y on a log10 axis (values <= 0 are left out)
};

// The SVG document.
std::string svg_line_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series);
// Written atomically (temporary file, then rename).
void write_svg_line_plot(const std::string& path, const PlotSpec& spec,
                         const std::vector<PlotSeries>& series);

// Round tick values covering [lo, hi] (this plot's rule; tools/svg.h has its
// own nice_ticks): multiples of 1, 2 or 5 times a power of
// ten, about `count` of them.
std::vector<double> plot_ticks(double lo, double hi, int count = 5);

}  // namespace tapir
