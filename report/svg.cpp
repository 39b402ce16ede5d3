// The SVG writers of report/svg.h: the panel figure, then the line plot.
#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "base/file_io.h"

namespace tapir {

namespace {

// Appends the pieces in order (piecewise: no chained temporaries).
template <typename... Parts>
void put(std::string& out, const Parts&... parts) {
  (out.append(std::string_view(parts)), ...);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

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

// The frame of a panel with its top-left corner at (x0, y0): margins for
// the title and the labels, ranges over every finite point and band.
PanelFrame panel_frame(const SvgPanel& panel, double x0, double y0, const SvgLayout& layout) {
  const double left = 56, right = 12, top = 26, bottom = 40;
  PanelFrame f;
  f.w = layout.panel_width - left - right;
  f.h = layout.panel_height - top - bottom;
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
  f.px = x0 + left;
  f.py = y0 + top;
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
  put(out, "<rect x=\"", num(px), "\" y=\"", num(py), "\" width=\"", num(w), "\" height=\"", num(h),
      "\" fill=\"none\" stroke=\"#444\"/>\n");
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

// The legend, top left inside the plot area.
void render_legend(const SvgPanel& panel, const PanelFrame& f, std::string& out) {
  double ly = f.py + 12;
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const SvgSeries& s = panel.series[k];
    if (s.label.empty()) continue;
    const std::string color = svg_escape(s.color.empty() ? svg_palette(k) : s.color);
    put(out, "<line x1=\"", num(f.px + 8), "\" y1=\"", num(ly), "\" x2=\"", num(f.px + 26),
        "\" y2=\"", num(ly), "\" stroke=\"", color, "\" stroke-width=\"2\"",
        s.dashed ? " stroke-dasharray=\"5 3\"" : "", "/>\n");
    put(out, "<text x=\"", num(f.px + 30), "\" y=\"", num(ly),
        "\" dominant-baseline=\"middle\" font-size=\"10\">", svg_escape(s.label), "</text>\n");
    ly += 14;
  }
}

// One panel into `out`, its top-left corner at (x0, y0); `id` names its clip
// path.
void render_panel(const SvgPanel& panel, size_t id, double x0, double y0, const SvgLayout& layout,
                  std::string& out) {
  const PanelFrame f = panel_frame(panel, x0, y0, layout);
  std::string clip = "clip";
  clip += std::to_string(id);
  put(out, "<g>\n<clipPath id=\"", clip, "\"><rect x=\"", num(f.px), "\" y=\"", num(f.py),
      "\" width=\"", num(f.w), "\" height=\"", num(f.h), "\"/></clipPath>\n");
  render_axes(panel, f, x0, y0, out);
  // The lines, clipped to the plot area.
  put(out, "<g clip-path=\"url(#", clip, ")\">\n");
  render_series(panel, f, out);
  out += "</g>\n";
  render_legend(panel, f, out);
  out += "</g>\n";
}

// The line plot (svg_line_plot): its size, margins and colours.
constexpr double kPlotWidth = 640, kPlotHeight = 420;
constexpr double kPlotLeft = 72, kPlotRight = 150, kPlotTop = 40, kPlotBottom = 56;
const char* const kPlotColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string plot_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void plot_text(std::string& out, double x, double y, const char* anchor, const std::string& body,
               const std::string& extra = "") {
  put(out, "<text x=\"", num(x), "\" y=\"", num(y), "\" text-anchor=\"", anchor, "\"", extra, ">",
      svg_escape(body), "</text>\n");
}

void plot_line(std::string& out, double x1, double y1, double x2, double y2,
               const std::string& color, const char* width = "1") {
  put(out, "<line x1=\"", num(x1), "\" y1=\"", num(y1), "\" x2=\"", num(x2), "\" y2=\"", num(y2),
      "\" stroke=\"", color, "\" stroke-width=\"", width, "\"/>\n");
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

std::vector<double> plot_ticks(double lo, double hi, int count) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(count, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + 1e-9 * step; t += step)
    ticks.push_back(std::abs(t) < 1e-12 * step ? 0.0 : t);
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
  const int columns = std::max(1, std::min<int>(layout.columns, int(panels.size())));
  const int rows = (int(panels.size()) + columns - 1) / columns;
  const double head = title.empty() ? 0 : 30;
  const double width = columns * layout.panel_width, height = head + rows * layout.panel_height;
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
    const double y0 = head + double(int(i) / columns) * layout.panel_height;
    render_panel(panels[i], i, x0, y0, layout, out);
  }
  out += "</svg>\n";
  return out;
}

std::string svg_line_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  auto fy = [&](double y) { return spec.log_y ? std::log10(y) : y; };
  auto usable = [&](double y) { return std::isfinite(y) && (!spec.log_y || y > 0); };
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  for (const PlotSeries& s : series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.y[i])) continue;
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      const double d = i < s.spread.size() ? s.spread[i] : 0.0;
      for (double y : {s.y[i] - d, s.y[i] + d})
        if (usable(y)) {
          y_lo = std::min(y_lo, fy(y));
          y_hi = std::max(y_hi, fy(y));
        }
    }
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (x_hi == x_lo) x_lo -= 0.5, x_hi += 0.5;
  if (y_hi == y_lo) y_lo -= 0.5, y_hi += 0.5;
  const double pad = 0.05 * (y_hi - y_lo);
  y_lo -= pad;
  y_hi += pad;
  const double plot_w = kPlotWidth - kPlotLeft - kPlotRight,
               plot_h = kPlotHeight - kPlotTop - kPlotBottom;
  auto px = [&](double x) { return kPlotLeft + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  auto py = [&](double y) { return kPlotTop + (1.0 - (fy(y) - y_lo) / (y_hi - y_lo)) * plot_h; };

  std::string svg;
  put(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", num(kPlotWidth), "\" height=\"",
      num(kPlotHeight), "\" font-family=\"sans-serif\" font-size=\"12\">\n");
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  plot_text(svg, kPlotWidth / 2, 22, "middle", spec.title, " font-size=\"14\"");
  put(svg, "<rect x=\"", num(kPlotLeft), "\" y=\"", num(kPlotTop), "\" width=\"", num(plot_w),
      "\" height=\"", num(plot_h), "\" fill=\"none\" stroke=\"#444\"/>\n");
  for (double t : plot_ticks(x_lo, x_hi, 6)) {
    plot_line(svg, px(t), kPlotTop + plot_h, px(t), kPlotTop + plot_h + 5, "#444");
    plot_text(svg, px(t), kPlotTop + plot_h + 18, "middle", plot_number(t));
  }
  for (double t : plot_ticks(y_lo, y_hi, 5)) {
    const double y = spec.log_y ? std::pow(10.0, t) : t;
    plot_line(svg, kPlotLeft - 5, py(y), kPlotLeft + plot_w, py(y), "#ddd");
    plot_text(svg, kPlotLeft - 8, py(y) + 4, "end", plot_number(y));
  }
  plot_text(svg, kPlotLeft + plot_w / 2, kPlotHeight - 14, "middle", spec.x_label);
  std::string rotate = " transform=\"rotate(-90 16 ";
  put(rotate, num(kPlotTop + plot_h / 2), ")\"");
  plot_text(svg, 16, kPlotTop + plot_h / 2, "middle",
            spec.y_label + (spec.log_y ? " (log scale)" : ""), rotate);

  for (size_t k = 0; k < series.size(); ++k) {
    const PlotSeries& s = series[k];
    const std::string color = kPlotColors[k % (sizeof kPlotColors / sizeof kPlotColors[0])];
    std::string points;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.y[i])) continue;
      if (!points.empty()) points += ' ';
      put(points, num(px(s.x[i])), ",", num(py(s.y[i])));
      put(svg, "<circle cx=\"", num(px(s.x[i])), "\" cy=\"", num(py(s.y[i])), "\" r=\"3\" fill=\"",
          color, "\"/>\n");
      const double d = i < s.spread.size() ? s.spread[i] : 0.0;
      if (d > 0 && usable(s.y[i] - d))
        plot_line(svg, px(s.x[i]), py(s.y[i] - d), px(s.x[i]), py(s.y[i] + d), color);
    }
    put(svg, "<polyline points=\"", points, "\" fill=\"none\" stroke=\"", color,
        "\" stroke-width=\"2\"/>\n");
    const double ly = kPlotTop + 10 + 18 * static_cast<double>(k);
    plot_line(svg, kPlotWidth - kPlotRight + 12, ly, kPlotWidth - kPlotRight + 32, ly, color, "2");
    plot_text(svg, kPlotWidth - kPlotRight + 38, ly + 4, "start", s.name);
  }
  svg += "</svg>\n";
  return svg;
}

void write_svg_line_plot(const std::string& path, const PlotSpec& spec,
                         const std::vector<PlotSeries>& series) {
  write_file_atomic(path, svg_line_plot(spec, series));
}

}  // namespace tapir
