// Figures of learned functions (architecture files): one panel per function
// on its knot range, with its reference (GeLU for MLP slots, the identity
// for attention). Used by `tapir plot arch` and `tapir report`. Given the
// range a run's inputs used (`tapir plot arch --run`), a panel shows that
// range shaded, widened by half its width on each side within the knots,
// instead of the whole knot range.
// Sits in report/, on nn/ and report/svg.h.
#pragma once
#include <map>
#include <string>

#include "nn/architecture.h"
#include "report/svg.h"

namespace tapir {

// The inputs a function saw, [lo, hi], and how that was measured (the
// legend's words, e.g. "central 99% of the inputs").
struct UsedRange {
  double lo = 0, hi = 0;
  std::string label;
};

SvgPanel function_panel(const Architecture& arch, const Architecture::Function& f,
                        const UsedRange* used = nullptr);
// The whole figure (an SVG document), titled; `used` holds the used range of
// some functions, by parameter name.
std::string architecture_svg(const Architecture& arch, const std::string& title = "",
                             const std::map<std::string, UsedRange>& used = {});

}  // namespace tapir
