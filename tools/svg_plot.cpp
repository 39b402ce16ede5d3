#include "tools/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/file_io.h"

namespace tapir {

namespace {

constexpr double kWidth = 640, kHeight = 420;
constexpr double kLeft = 72, kRight = 150, kTop = 40, kBottom = 56;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string coord(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Appends each part (built piecewise: GCC 12 warns, -Wrestrict, on long
// chains of operator+).
template <typename... Parts>
void append(std::string& out, const Parts&... parts) {
  (out.append(parts), ...);
}

void text(std::string& out, double x, double y, const char* anchor, const std::string& body,
          const std::string& extra = "") {
  append(out, "<text x=\"", coord(x), "\" y=\"", coord(y), "\" text-anchor=\"", anchor, "\"", extra,
         ">", escape(body), "</text>\n");
}

void line(std::string& out, double x1, double y1, double x2, double y2, const std::string& color,
          const char* width = "1") {
  append(out, "<line x1=\"", coord(x1), "\" y1=\"", coord(y1), "\" x2=\"", coord(x2), "\" y2=\"",
         coord(y2), "\" stroke=\"", color, "\" stroke-width=\"", width, "\"/>\n");
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
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  auto py = [&](double y) { return kTop + (1.0 - (fy(y) - y_lo) / (y_hi - y_lo)) * plot_h; };

  std::string svg;
  append(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", coord(kWidth), "\" height=\"",
         coord(kHeight), "\" font-family=\"sans-serif\" font-size=\"12\">\n");
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  text(svg, kWidth / 2, 22, "middle", spec.title, " font-size=\"14\"");
  append(svg, "<rect x=\"", coord(kLeft), "\" y=\"", coord(kTop), "\" width=\"", coord(plot_w),
         "\" height=\"", coord(plot_h), "\" fill=\"none\" stroke=\"#444\"/>\n");
  for (double t : plot_ticks(x_lo, x_hi, 6)) {
    line(svg, px(t), kTop + plot_h, px(t), kTop + plot_h + 5, "#444");
    text(svg, px(t), kTop + plot_h + 18, "middle", number(t));
  }
  for (double t : plot_ticks(y_lo, y_hi, 5)) {
    const double y = spec.log_y ? std::pow(10.0, t) : t;
    line(svg, kLeft - 5, py(y), kLeft + plot_w, py(y), "#ddd");
    text(svg, kLeft - 8, py(y) + 4, "end", number(y));
  }
  text(svg, kLeft + plot_w / 2, kHeight - 14, "middle", spec.x_label);
  std::string rotate = " transform=\"rotate(-90 16 ";
  append(rotate, coord(kTop + plot_h / 2), ")\"");
  text(svg, 16, kTop + plot_h / 2, "middle", spec.y_label + (spec.log_y ? " (log scale)" : ""),
       rotate);

  for (size_t k = 0; k < series.size(); ++k) {
    const PlotSeries& s = series[k];
    const std::string color = kColors[k % (sizeof kColors / sizeof kColors[0])];
    std::string points;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.y[i])) continue;
      if (!points.empty()) points += ' ';
      append(points, coord(px(s.x[i])), ",", coord(py(s.y[i])));
      append(svg, "<circle cx=\"", coord(px(s.x[i])), "\" cy=\"", coord(py(s.y[i])),
             "\" r=\"3\" fill=\"", color, "\"/>\n");
      const double d = i < s.spread.size() ? s.spread[i] : 0.0;
      if (d > 0 && usable(s.y[i] - d))
        line(svg, px(s.x[i]), py(s.y[i] - d), px(s.x[i]), py(s.y[i] + d), color);
    }
    append(svg, "<polyline points=\"", points, "\" fill=\"none\" stroke=\"", color,
           "\" stroke-width=\"2\"/>\n");
    const double ly = kTop + 10 + 18 * static_cast<double>(k);
    line(svg, kWidth - kRight + 12, ly, kWidth - kRight + 32, ly, color, "2");
    text(svg, kWidth - kRight + 38, ly + 4, "start", s.name);
  }
  svg += "</svg>\n";
  return svg;
}

void write_svg_line_plot(const std::string& path, const PlotSpec& spec,
                         const std::vector<PlotSeries>& series) {
  write_file_atomic(path, svg_line_plot(spec, series));
}

}  // namespace tapir
