// What the SVG writers of report/ share: appending pieces and writing
// coordinates. Inline, for report/svg.cpp, report/line_plot.cpp and
// report/forest.cpp.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace tapir::svg_writing {

// Appends the pieces in order (piecewise: no chained temporaries).
template <typename... Parts>
void put(std::string& out, const Parts&... parts) {
  (out.append(std::string_view(parts)), ...);
}

// A coordinate, two decimals.
inline std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace tapir::svg_writing
