// Self-contained SVG figures, written by hand (no plotting library), in two
// forms that share the writing of numbers and text:
//   svg_figure     a grid of panels, each with axes, tick labels, grid lines,
//                  polylines, shaded bands and a legend (`tapir plot`,
//                  `tapir report`);
//   svg_line_plot  one plot of points with optional error bars and a log y
//                  axis, the legend to its right (`tapir layers`, `tapir
//                  robust`, `tapir robust-compare`).
// No dependencies; the output is a plain SVG 1.1 file any browser shows.
// Sits in report/, on base/ (file writing) alone.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tapir {

struct SvgSeries {
  std::string label;         // legend entry; empty: not in the legend
  std::vector<double> x, y;  // same length; non-finite points break the line
  std::string color;         // any SVG colour; empty: the palette colour of its index
  bool dashed = false;
  // Optional shaded band from band_lo to band_hi at the same x (e.g. the
  // min-max range over seeds around a median line); empty: none.
  std::vector<double> band_lo, band_hi;
};

struct SvgPanel {
  std::string title, x_label, y_label;
  std::vector<SvgSeries> series;
};

struct SvgLayout {
  int columns = 2;
  double panel_width = 380, panel_height = 270;
};

// The whole document: an optional title line over the panels, laid out in
// rows of layout.columns.
std::string svg_figure(const std::string& title, const std::vector<SvgPanel>& panels,
                       const SvgLayout& layout = {});

// Round tick positions (1, 2 or 5 times a power of ten) covering [lo, hi],
// by two rules (each form keeps its own, so that its figures stay as they
// are): nice_ticks, used by svg_figure, takes the step whose tick count is
// closest to `target`; plot_ticks, used by svg_line_plot, the smallest step
// of at least (hi - lo) / count.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
std::vector<double> plot_ticks(double lo, double hi, int count = 5);
// Text with &, <, >, " and ' escaped for SVG.
std::string svg_escape(std::string_view text);
// The colours of svg_figure: a colour-blind-friendly palette (Okabe-Ito), cycling.
const char* svg_palette(size_t index);

// One series of svg_line_plot.
struct PlotSeries {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> spread;  // empty, or per point: an error bar y - spread .. y + spread
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_y = false;  // y on a log10 axis (values <= 0 are left out)
};

// The SVG document of one line plot.
std::string svg_line_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series);
// Written atomically (temporary file, then rename).
void write_svg_line_plot(const std::string& path, const PlotSpec& spec,
                         const std::vector<PlotSeries>& series);

}  // namespace tapir
