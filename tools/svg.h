// Self-contained SVG figures, written by hand (no plotting library): a grid
// of panels, each with axes, tick labels, grid lines, polylines and a
// legend. Used by `tapir plot` and meant for every later report (learning
// curves, transfer matrices as line plots, per-layer losses).
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

// About `target` round tick positions (1, 2 or 5 times a power of ten)
// covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
// Text with &, <, >, " and ' escaped for SVG.
std::string svg_escape(std::string_view text);
// A colour-blind-friendly palette (Okabe-Ito), cycling.
const char* svg_palette(size_t index);

}  // namespace tapir
