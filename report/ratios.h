// The figure of a comparison's report that sets every variant against the
// baseline: its steps ratio and, where compare.json has them, its spread
// ratio, each a point on its 95% interval beside a dashed line at 1
// (report/page.cpp draws it into the page).
// Sits in report/, on lab/compare.h (the names of compare.json) and
// report/forest.h.
#pragma once
#include <string>

#include "base/json.h"

namespace tapir {

// "<h2>Against the baseline</h2>" and the SVG figure of compare.json's
// against_baseline entries on the split of the first one; "" when there
// are none.
std::string ratio_figure(const Json& against_baseline);

}  // namespace tapir
