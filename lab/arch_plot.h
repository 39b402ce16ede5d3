// Figures of learned functions (architecture files): one panel per function
// on its knot range, with its reference (GeLU for MLP slots, the identity
// for attention). Used by `tapir plot arch` and `tapir report`.
// Sits in lab/, on nn/ and lab/svg.h.
#pragma once
#include <string>

#include "lab/svg.h"
#include "nn/architecture.h"

namespace tapir {

SvgPanel function_panel(const Architecture& arch, const Architecture::Function& f);
// The whole figure (an SVG document), titled.
std::string architecture_svg(const Architecture& arch, const std::string& title = "");

}  // namespace tapir
