// Forest plots (report/forest.h).
#include "report/forest.h"

#include <algorithm>
#include <cstdio>

#include "report/svg.h"
#include "report/svg_writing.h"

namespace tapir {

namespace {

using svg_writing::num;

std::string fmt(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Tick values for the axis over [lo, hi] (log10 units on a log axis).
std::vector<double> forest_ticks(const ForestPlot& plot, double lo, double hi) {
  std::vector<double> ticks;
  if (!plot.log_axis) {
    ticks = nice_ticks(lo, hi, 5);
  } else {
    // 1, 2 and 5 times each power of ten; only the powers where that is
    // more than seven ticks.
    static const double kMultiples[2][3] = {{1, 2, 5}, {1, 0, 0}};
    for (const auto& ms : kMultiples) {
      ticks.clear();
      for (int k = int(std::floor(lo)) - 1; k <= int(std::ceil(hi)) + 1; ++k)
        for (int i = 0; i < 3; ++i)
          if (ms[i] > 0) {
            const double v = ms[i] * std::pow(10.0, k);
            if (std::log10(v) >= lo - 1e-9 && std::log10(v) <= hi + 1e-9) ticks.push_back(v);
          }
      if (ticks.size() <= 7) break;
    }
  }
  if (std::find(ticks.begin(), ticks.end(), plot.null_value) == ticks.end())
    ticks.push_back(plot.null_value);
  return ticks;
}

}  // namespace

std::string forest_svg(const ForestPlot& plot) {
  const bool log_axis = plot.log_axis;
  auto usable = [&](double v) { return std::isfinite(v) && (!log_axis || v > 0); };
  auto tx = [&](double v) { return log_axis ? std::log10(v) : v; };
  double lo = tx(plot.null_value), hi = lo;
  auto widen = [&](double v) {
    if (!usable(v)) return;
    lo = std::min(lo, tx(v));
    hi = std::max(hi, tx(v));
  };
  if (plot.reference) widen(*plot.reference);
  size_t label_chars = 4, note_chars = 0;
  for (const ForestRow& r : plot.rows) {
    for (double v : {r.point, r.lo, r.hi}) widen(v);
    label_chars = std::max(label_chars, r.label.size());
    note_chars = std::max(note_chars, r.note.size());
  }
  if (hi - lo < 1e-9) lo -= 0.5, hi += 0.5;
  const double pad = (hi - lo) * 0.08;
  lo -= pad;
  hi += pad;

  const double label_w = std::clamp(16 + 6.6 * double(label_chars), 60.0, 320.0);
  const double plot_w = 360, row_h = 22;
  const double note_w = note_chars == 0 ? 10 : std::min(20 + 6.0 * double(note_chars), 520.0);
  const double top = (plot.title.empty() ? 8 : 26) + (plot.reference ? 14 : 0);
  const double y_end = top + row_h * double(plot.rows.size());
  // The title, from the left edge, widens the figure where it is longer
  // than the rows (about 7 px a character at font size 13).
  const double width = std::max(label_w + plot_w + note_w, 16 + 7.0 * double(plot.title.size()));
  const double height = y_end + (plot.x_label.empty() ? 26 : 44);
  auto px = [&](double v) {
    return label_w + (std::clamp(tx(v), lo, hi) - lo) / (hi - lo) * plot_w;
  };

  std::string colors;
  for (const ForestRow& r : plot.rows)
    if (usable(r.point)) colors += (colors.empty() ? "" : " ") + r.color;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) +
                    "\" height=\"" + num(height) +
                    "\" font-family=\"sans-serif\" role=\"img\">\n<g class=\"panel\" "
                    "data-colors=\"" +
                    svg_escape(colors) + "\">\n";
  if (!plot.title.empty())
    svg += "<text x=\"8\" y=\"16\" font-size=\"13\">" + svg_escape(plot.title) + "</text>\n";
  svg += "<rect class=\"plot-area\" x=\"" + num(label_w) + "\" y=\"" + num(top) + "\" width=\"" +
         num(plot_w) + "\" height=\"" + num(y_end - top) + "\" fill=\"none\" stroke=\"#bbb\"/>\n";
  // The axis: grid lines and tick labels below the rows.
  for (double t : forest_ticks(plot, lo, hi)) {
    const std::string x = num(px(t));
    svg += "<line x1=\"" + x + "\" y1=\"" + num(top) + "\" x2=\"" + x + "\" y2=\"" +
           num(y_end + 4) + "\" stroke=\"" + (t == plot.null_value ? "#777" : "#e3e3e3") +
           "\" stroke-width=\"" + (t == plot.null_value ? "1.5" : "1") + "\"/>\n";
    svg += "<text x=\"" + x + "\" y=\"" + num(y_end + 16) +
           "\" text-anchor=\"middle\" font-size=\"10\">" +
           fmt(log_axis ? "%gx" : ("%." + std::to_string(plot.decimals) + "f").c_str(), t) +
           "</text>\n";
  }
  if (!plot.x_label.empty())
    svg += "<text x=\"" + num(label_w + plot_w / 2) + "\" y=\"" + num(y_end + 34) +
           "\" text-anchor=\"middle\" font-size=\"11\">" + svg_escape(plot.x_label) + "</text>\n";
  if (plot.reference && usable(*plot.reference)) {
    const std::string x = num(px(*plot.reference));
    svg += "<line x1=\"" + x + "\" y1=\"" + num(top) + "\" x2=\"" + x + "\" y2=\"" + num(y_end) +
           "\" stroke=\"#2166ac\" stroke-dasharray=\"4 3\"/>\n<text x=\"" + x + "\" y=\"" +
           num(top - 4) + "\" font-size=\"10\" fill=\"#2166ac\" text-anchor=\"middle\">" +
           svg_escape(plot.reference_label) + "</text>\n";
  }
  for (size_t i = 0; i < plot.rows.size(); ++i) {
    const ForestRow& r = plot.rows[i];
    const double y = top + row_h * (double(i) + 0.5);
    svg += "<text class=\"forest-label\" x=\"" + num(label_w - 8) + "\" y=\"" + num(y + 4) +
           "\" font-size=\"12\" text-anchor=\"end\">" + svg_escape(r.label) + "</text>\n";
    if (usable(r.lo) && usable(r.hi))
      svg += "<line x1=\"" + num(px(r.lo)) + "\" y1=\"" + num(y) + "\" x2=\"" + num(px(r.hi)) +
             "\" y2=\"" + num(y) + "\" stroke=\"" + svg_escape(r.color) +
             "\" stroke-width=\"3\"/>\n";
    if (usable(r.point))
      svg += "<circle cx=\"" + num(px(r.point)) + "\" cy=\"" + num(y) + "\" r=\"5\" fill=\"" +
             svg_escape(r.color) + "\"><title>" +
             svg_escape(r.tooltip.empty() ? r.label + ": " + r.note : r.tooltip) +
             "</title></circle>\n";
    if (!r.note.empty())
      svg += "<text class=\"forest-note\" x=\"" + num(label_w + plot_w + 10) + "\" y=\"" +
             num(y + 4) + "\" font-size=\"11\">" + svg_escape(r.note) + "</text>\n";
  }
  return svg + "</g>\n</svg>\n";
}

}  // namespace tapir
