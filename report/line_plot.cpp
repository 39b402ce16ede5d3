// The line plot of report/svg.h (svg_line_plot): one plot of points with
// optional error bars and a log y axis, the legend to its right.
#include <algorithm>
#include <cmath>
#include <limits>

#include "base/file_io.h"
#include "report/svg.h"
#include "report/svg_writing.h"

namespace tapir {

namespace {

using svg_writing::num;
using svg_writing::put;

// The line plot (svg_line_plot): its size, margins and colours.
constexpr double kPlotWidth = 640, kPlotHeight = 420;
constexpr double kPlotLeft = 72, kPlotRight = 150, kPlotTop = 40, kPlotBottom = 56;
const char* const kPlotColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};

// The colour of series k, cycling.
const char* plot_color(size_t k) {
  return kPlotColors[k % (sizeof kPlotColors / sizeof kPlotColors[0])];
}

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
  std::string colors;
  for (size_t k = 0; k < series.size(); ++k) {
    bool drawn = false;
    for (size_t i = 0; i < series[k].x.size() && i < series[k].y.size(); ++i)
      drawn = drawn || usable(series[k].y[i]);
    if (drawn) colors += std::string(colors.empty() ? "" : " ") + plot_color(k);
  }
  put(svg, "<g class=\"panel\" data-colors=\"", colors, "\">\n");
  put(svg, "<rect class=\"plot-area\" x=\"", num(kPlotLeft), "\" y=\"", num(kPlotTop),
      "\" width=\"", num(plot_w), "\" height=\"", num(plot_h),
      "\" fill=\"none\" stroke=\"#444\"/>\n");
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
    const std::string color = plot_color(k);
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
  }
  // The legend, right of the plot area.
  svg += "<g class=\"legend\">\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const std::string color = plot_color(k);
    const double ly = kPlotTop + 10 + 18 * static_cast<double>(k);
    plot_line(svg, kPlotWidth - kPlotRight + 12, ly, kPlotWidth - kPlotRight + 32, ly, color, "2");
    plot_text(svg, kPlotWidth - kPlotRight + 38, ly + 4, "start", series[k].name);
  }
  svg += "</g>\n</g>\n</svg>\n";
  return svg;
}

void write_svg_line_plot(const std::string& path, const PlotSpec& spec,
                         const std::vector<PlotSeries>& series) {
  write_file_atomic(path, svg_line_plot(spec, series));
}

}  // namespace tapir
