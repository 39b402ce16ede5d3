// Controls for what a learned MLP function's gain owes to its shape rather
// than to its scale or its roughness (`tapir arch control`, and the claims
// runner's "controls", claims/README.md). From an architecture file, one
// of the same grid and slots whose MLP functions are replaced by:
//   gelu         GeLU at the knots: the spline parameterisation alone (a
//                frozen spline initialised to GeLU);
//   scaled-gelu  GeLU times the learned function's mean slope over the
//                range (its rise from the first to the last knot inside
//                [lo, hi], over the width) divided by GeLU's;
//   rough        GeLU plus seeded Gaussian noise at every knot, scaled so
//                that the curvature over the range (lab/arch_stats.h) is
//                the learned function's.
// Each is frozen in Stage II like any architecture file. Sits in lab/.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "base/names.h"
#include "nn/architecture.h"

namespace tapir {

enum class ArchControl { gelu, scaled_gelu, rough };
template <>
struct Names<ArchControl> {
  static constexpr const char* what = "control";
  static constexpr std::pair<ArchControl, const char*> table[] = {
      {ArchControl::gelu, "gelu"},
      {ArchControl::scaled_gelu, "scaled-gelu"},
      {ArchControl::rough, "rough"}};
};

// The control of `kind` for `learned` over the inputs [lo, hi] (at least 3
// knots inside); `seed` draws the rough control's noise. Fails when the
// architecture learns no MLP function or learns functions of another slot.
Architecture make_control(const Architecture& learned, ArchControl kind, double lo, double hi,
                          uint64_t seed);

// Reads `file`, writes its control to `out` (atomically) and returns one
// line naming both, with the learned and the control's mean curvature over
// the range (lab/arch_stats.h).
std::string write_control(const std::string& file, ArchControl kind, double lo, double hi,
                          uint64_t seed, const std::string& out);

}  // namespace tapir
