// The transfer matrix as a figure (report/transfer_figure.h).
#include "report/transfer_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/svg.h"

namespace tapir {

std::string transfer_svg(const TransferResult& r) {
  const size_t n = r.tasks.size();
  const double cell = 70, left = 110, top = 60;
  const double width = left + cell * double(n) + 20, height = top + cell * double(n) + 40;
  double scale = 1e-9;  // largest |deviation from "no change"|, for the colour scale
  const double neutral = r.metric == "accuracy" ? 0.0 : 1.0;
  for (const auto& row : r.relative)
    for (double v : row)
      if (std::isfinite(v)) scale = std::max(scale, std::fabs(v - neutral));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" "
                "height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"20\" font-size=\"14\">%s"
                "</text>\n",
                width, height, left,
                r.metric == "accuracy" ? "test accuracy vs baseline (rows: functions from)"
                                       : "speed-up vs baseline (rows: functions from)");
  std::string svg = buf;
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
                  "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text>\n",
                  left + cell * (double(i) + 0.5), top - 8, svg_escape(r.tasks[i]).c_str(),
                  left - 8, top + cell * (double(i) + 0.55), svg_escape(r.tasks[i]).c_str());
    svg += buf;
  }
  for (size_t row = 0; row < n; ++row)
    for (size_t col = 0; col < n; ++col) {
      const double v = r.relative[row][col];
      std::string fill = "#dddddd";
      if (std::isfinite(v)) {
        // Blue for better than the baseline, red for worse, white for equal.
        const double t = std::clamp((v - neutral) / scale, -1.0, 1.0);
        const int fade = static_cast<int>(255 * (1 - std::fabs(t)));
        std::snprintf(buf, sizeof buf, t >= 0 ? "rgb(%d,%d,255)" : "rgb(255,%d,%d)", fade, fade);
        fill = buf;
      }
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\" "
                    "stroke=\"#888\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s"
                    "</text>\n",
                    left + cell * double(col), top + cell * double(row), cell, cell, fill.c_str(),
                    left + cell * (double(col) + 0.5), top + cell * (double(row) + 0.55),
                    transfer_cell_text(v, r.metric).c_str());
      svg += buf;
    }
  return svg + "</svg>\n";
}

}  // namespace tapir
