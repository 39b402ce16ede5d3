// The figures of `tapir robust-compare`, drawn from what it measured
// (DIR/summary_ARM.json, lab/robust_compare.h) alone: the per-layer loss
// of both arms, DIR/compare_ARM_layers.svg (log y), and the metric against
// gamma under each noise kind, DIR/compare_ARM_NOISE.svg; each point the
// mean over seeds with its standard deviation as an error bar.
// Sits in report/, on lab/.
#pragma once
#include <string>

namespace tapir {

// Reads DIR/summary_ARM.json and writes the figures beside it; prints one
// line naming them.
void write_robust_compare_figures(const std::string& dir, const std::string& arm);

}  // namespace tapir
