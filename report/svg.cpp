// The panel figure of report/svg.h (svg_figure), its ticks and palette;
// the line plot is report/line_plot.cpp's.
#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "report/svg_writing.h"

namespace tapir {

namespace {

using svg_writing::num;
using svg_writing::put;

std::string tick_label(double v) {
  if (std::fabs(v) < 1e-12) v = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // A usable range: empty becomes [0, 1], a point is widened.
  void settle() {
    if (lo > hi) lo = 0, hi = 1;
    if (hi - lo < 1e-12) {
      const double pad = std::max(1.0, std::fabs(lo)) * 0.5;
      lo -= pad;
      hi += pad;
    }
  }
};

// Where a panel's plot area lies, the data ranges it shows, and how a data
// point maps onto it.
struct PanelFrame {
  double px = 0, py = 0, w = 0, h = 0;  // the plot area's top-left corner and size
  Range rx, ry;
  double sx(double x) const { return px + (x - rx.lo) / (rx.hi - rx.lo) * w; }
  double sy(double y) const { return py + h - (y - ry.lo) / (ry.hi - ry.lo) * h; }
};

// A panel's margins around its plot area: for the tick labels (left), the
// title (top) and the x-axis label (bottom).
constexpr double kPanelLeft = 56, kPanelRight = 12, kPanelTop = 26, kPanelBottom = 40;

// The frame of a panel with its top-left corner at (x0, y0): margins for
// the title and the labels, ranges over every finite point and band.
PanelFrame panel_frame(const SvgPanel& panel, double x0, double y0, const SvgLayout& layout) {
  PanelFrame f;
  f.w = layout.panel_width - kPanelLeft - kPanelRight;
  f.h = layout.panel_height - kPanelTop - kPanelBottom;
  for (const SvgSeries& s : panel.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) f.rx.add(s.x[i]), f.ry.add(s.y[i]);
  for (const SvgSeries& s : panel.series)
    for (size_t i = 0; i < s.band_lo.size() && i < s.band_hi.size(); ++i)
      f.ry.add(s.band_lo[i]), f.ry.add(s.band_hi[i]);
  f.rx.settle();
  f.ry.settle();
  const double pad = 0.05 * (f.ry.hi - f.ry.lo);
  f.ry.lo -= pad;
  f.ry.hi += pad;
  f.px = x0 + kPanelLeft;
  f.py = y0 + kPanelTop;
  return f;
}

// The title, grid lines and tick labels, the frame and the axis labels.
void render_axes(const SvgPanel& panel, const PanelFrame& f, double x0, double y0,
                 std::string& out) {
  const double px = f.px, py = f.py, w = f.w, h = f.h;
  put(out, "<text x=\"", num(px + w / 2), "\" y=\"", num(y0 + 16),
      "\" text-anchor=\"middle\" font-size=\"13\">", svg_escape(panel.title), "</text>\n");
  for (double t : nice_ticks(f.rx.lo, f.rx.hi)) {
    const std::string x = num(f.sx(t));
    put(out, "<line x1=\"", x, "\" y1=\"", num(py), "\" x2=\"", x, "\" y2=\"", num(py + h),
        "\" stroke=\"#e3e3e3\"/>\n");
    put(out, "<text x=\"", x, "\" y=\"", num(py + h + 14),
        "\" text-anchor=\"middle\" font-size=\"10\">", tick_label(t), "</text>\n");
  }
  for (double t : nice_ticks(f.ry.lo, f.ry.hi)) {
    const std::string y = num(f.sy(t));
    put(out, "<line x1=\"", num(px), "\" y1=\"", y, "\" x2=\"", num(px + w), "\" y2=\"", y,
        "\" stroke=\"#e3e3e3\"/>\n");
    put(out, "<text x=\"", num(px - 5), "\" y=\"", y,
        "\" text-anchor=\"end\" dominant-baseline=\"middle\" font-size=\"10\">", tick_label(t),
        "</text>\n");
  }
  put(out, "<rect class=\"plot-area\" x=\"", num(px), "\" y=\"", num(py), "\" width=\"", num(w),
      "\" height=\"", num(h), "\" fill=\"none\" stroke=\"#444\"/>\n");
  put(out, "<text x=\"", num(px + w / 2), "\" y=\"", num(py + h + 32),
      "\" text-anchor=\"middle\" font-size=\"11\">", svg_escape(panel.x_label), "</text>\n");
  put(out, "<text transform=\"translate(", num(x0 + 14), " ", num(py + h / 2),
      ") rotate(-90)\" text-anchor=\"middle\" font-size=\"11\">", svg_escape(panel.y_label),
      "</text>\n");
}

// The bands, then the lines over them; a non-finite point starts a new line.
void render_series(const SvgPanel& panel, const PanelFrame& f, std::string& out) {
  // Bands first, under every line: a closed polygon, upper edge then lower.
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const SvgSeries& s = panel.series[k];
    const size_t n = std::min({s.x.size(), s.band_lo.size(), s.band_hi.size()});
    if (n == 0) continue;
    std::string points;
    for (size_t i = 0; i < n; ++i)
      put(points, num(f.sx(s.x[i])), ",", num(f.sy(s.band_hi[i])), " ");
    for (size_t i = n; i-- > 0;) put(points, num(f.sx(s.x[i])), ",", num(f.sy(s.band_lo[i])), " ");
    put(out, "<polygon fill=\"", svg_escape(s.color.empty() ? svg_palette(k) : s.color),
        "\" fill-opacity=\"0.18\" stroke=\"none\" points=\"", points, "\"/>\n");
  }
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const SvgSeries& s = panel.series[k];
    const std::string color = svg_escape(s.color.empty() ? svg_palette(k) : s.color);
    std::string points;
    auto flush = [&]() {
      if (points.empty()) return;
      put(out, "<polyline fill=\"none\" stroke=\"", color, "\" stroke-width=\"1.6\"",
          s.dashed ? " stroke-dasharray=\"5 3\"" : "", " points=\"", points, "\"/>\n");
      points.clear();
    };
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
        flush();
        continue;
      }
      put(points, num(f.sx(s.x[i])), ",", num(f.sy(s.y[i])), " ");
    }
    flush();
  }
}

// The legend's place: below the panel's x-axis label, entries left to
// right from the plot area's left edge, wrapping at the panel's right edge,
// so that it never covers a curve. An entry is a swatch and its label
// (about 6 px a character at font size 10).
constexpr double kLegendLine = 14, kLegendSwatch = 26;

// Where each labelled series' entry goes: its x from the panel's left edge
// and its line (1, 2, ...), or line 0 for a series without a label.
struct LegendSlot {
  double x = 0;
  int line = 0;
};

std::vector<LegendSlot> legend_slots(const SvgPanel& panel, const SvgLayout& layout) {
  const double end = layout.panel_width - kPanelRight;
  std::vector<LegendSlot> slots(panel.series.size());
  double x = end;
  int line = 0;
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const SvgSeries& s = panel.series[k];
    if (s.label.empty()) continue;
    const double w = kLegendSwatch + 6.0 * double(s.label.size()) + 14;
    if (x + w > end && x > kPanelLeft) x = kPanelLeft, ++line;
    slots[k] = {x, line};
    x += w;
  }
  return slots;
}

// The legend's lines in a panel of `layout` (0: no labelled series).
int legend_lines(const SvgPanel& panel, const SvgLayout& layout) {
  int lines = 0;
  for (const LegendSlot& slot : legend_slots(panel, layout)) lines = std::max(lines, slot.line);
  return lines;
}

void render_legend(const SvgPanel& panel, double x0, double y0, const SvgLayout& layout,
                   std::string& out) {
  const std::vector<LegendSlot> slots = legend_slots(panel, layout);
  put(out, "<g class=\"legend\">\n");
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const SvgSeries& s = panel.series[k];
    if (s.label.empty()) continue;
    const double x = x0 + slots[k].x;
    const double ly = y0 + layout.panel_height - kLegendLine / 2 + kLegendLine * slots[k].line;
    const std::string color = svg_escape(s.color.empty() ? svg_palette(k) : s.color);
    put(out, "<line x1=\"", num(x), "\" y1=\"", num(ly), "\" x2=\"", num(x + kLegendSwatch - 8),
        "\" y2=\"", num(ly), "\" stroke=\"", color, "\" stroke-width=\"2\"",
        s.dashed ? " stroke-dasharray=\"5 3\"" : "", "/>\n");
    put(out, "<text x=\"", num(x + kLegendSwatch - 4), "\" y=\"", num(ly),
        "\" dominant-baseline=\"middle\" font-size=\"10\">", svg_escape(s.label), "</text>\n");
  }
  out += "</g>\n";
}

// Stands for the figure's id prefix until the figure is whole.
constexpr std::string_view kIdPrefix = "@figure@";

// One panel into `out`, its top-left corner at (x0, y0); `id` numbers its
// clip path within the figure.
void render_panel(const SvgPanel& panel, size_t id, double x0, double y0, const SvgLayout& layout,
                  std::string& out) {
  const PanelFrame f = panel_frame(panel, x0, y0, layout);
  std::string clip(kIdPrefix);
  clip += "clip" + std::to_string(id);
  // The colours of the series drawn (a finite point, a visible colour):
  // what the browser test looks for in the plot area.
  std::string colors;
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const SvgSeries& s = panel.series[k];
    const std::string color = s.color.empty() ? svg_palette(k) : s.color;
    bool drawn = false;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      drawn = drawn || (std::isfinite(s.x[i]) && std::isfinite(s.y[i]));
    if (drawn && color != "none" && colors.find(color) == std::string::npos)
      colors += (colors.empty() ? "" : " ") + color;
  }
  put(out, "<g class=\"panel\" data-colors=\"", svg_escape(colors), "\">\n<clipPath id=\"", clip,
      "\"><rect x=\"", num(f.px), "\" y=\"", num(f.py), "\" width=\"", num(f.w), "\" height=\"",
      num(f.h), "\"/></clipPath>\n");
  render_axes(panel, f, x0, y0, out);
  // The lines, clipped to the plot area.
  put(out, "<g clip-path=\"url(#", clip, ")\">\n");
  render_series(panel, f, out);
  out += "</g>\n";
  render_legend(panel, x0, y0, layout, out);
  out += "</g>\n";
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return ticks;
  // The step of 1, 2, 5 or 10 times a power of ten whose tick count is
  // closest to the target (the larger step on a tie).
  const double mag = std::pow(10.0, std::floor(std::log10((hi - lo) / target)));
  double step = mag;
  int64_t best = INT64_MAX;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    const double s = m * mag;
    const auto count = int64_t(std::floor(hi / s + 1e-9) - std::ceil(lo / s - 1e-9)) + 1;
    const int64_t miss = count > target ? count - target : target - count;
    if (miss <= best) best = miss, step = s;
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step) ticks.push_back(t);
  return ticks;
}

std::string svg_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* svg_palette(size_t index) {
  static const char* colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                 "#E69F00", "#56B4E9", "#F0E442", "#000000"};
  return colors[index % 8];
}

std::string svg_figure(const std::string& title, const std::vector<SvgPanel>& panels,
                       const SvgLayout& layout) {
  // Every panel grows by the tallest legend, so that the grid stays even.
  int lines = 0;
  for (const SvgPanel& p : panels) lines = std::max(lines, legend_lines(p, layout));
  const SvgLayout grown = {layout.columns, layout.panel_width,
                           layout.panel_height + kLegendLine * lines};
  const int columns = std::max(1, std::min<int>(layout.columns, int(panels.size())));
  const int rows = (int(panels.size()) + columns - 1) / columns;
  const double head = title.empty() ? 0 : 30;
  const double width = columns * layout.panel_width, height = head + rows * grown.panel_height;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  put(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", num(width), "\" height=\"",
      num(height), "\" viewBox=\"0 0 ", num(width), " ", num(height),
      "\" font-family=\"sans-serif\">\n");
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!title.empty())
    put(out, "<text x=\"", num(width / 2), "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">",
        svg_escape(title), "</text>\n");
  for (size_t i = 0; i < panels.size(); ++i) {
    const double x0 = double(int(i) % columns) * layout.panel_width;
    const double y0 = head + double(int(i) / columns) * grown.panel_height;
    render_panel(panels[i], i, x0, y0, layout, out);
  }
  out += "</svg>\n";
  // Ids are global to an HTML page that inlines several figures: each
  // figure's are prefixed by a hash of the figure itself, so two figures
  // share an id only when they are the same figure (and the same clip).
  uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64 bits
  for (unsigned char c : out) hash = (hash ^ c) * 1099511628211ull;
  char prefix[24];
  std::snprintf(prefix, sizeof prefix, "f%016llx-", static_cast<unsigned long long>(hash));
  for (size_t at = out.find(kIdPrefix); at != std::string::npos; at = out.find(kIdPrefix, at))
    out.replace(at, kIdPrefix.size(), prefix);
  return out;
}

}  // namespace tapir
