// What `tapir eval`, `tapir layers` and `tapir robust` print of a checkpoint
// once it is open (tools/cmd_eval.cpp, cmd_layers.cpp, cmd_robust.cpp
// declare their flags and open it): its metrics per evaluation split, its
// per-layer loss profile and its metric under input noise, as text or JSON
// lines, the last two with an SVG plot. Sits in report/, on
// lab/robust_report.h and report/svg.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "optim/model_run.h"

namespace tapir {

// Each split's examples, accuracy, token accuracy and loss (bits per byte
// for text, mse and rmse for a regression task) with the per-group tables
// where the task has them, or one JSON object per split; `splits` empty:
// the task's evaluation splits. The exit code (0).
int print_evaluation(const ModelRun& run, std::vector<std::string> splits, bool json);

struct LayerReportOptions {
  std::string split = "test";
  std::string svg;    // the plot ("": RUN/layers_SPLIT.svg; "none": no plot)
  double alpha = -1;  // the descent rate counted against (< 0: the run's)
  bool json = false;
};
// The loss read out from every layer of `run` (loaded from `checkpoint`, a
// run folder or checkpoint file) on o.split, whether it falls monotonically
// and by what factors, and its plot. The exit code (0).
int print_layer_profile(const ModelRun& run, const std::string& checkpoint,
                        const LayerReportOptions& o);

struct RobustReportOptions {
  std::string split = "test";
  std::string svg;  // the plot ("": RUN/robust_SPLIT.svg; "none": no plot)
  std::vector<std::string> noise = {"gaussian"};
  int64_t repeats = 3;  // noise seeds per gamma
  uint64_t seed = 0;    // the first of them
  bool json = false;
};
// The metric of `run` (loaded from `checkpoint`) on o.split under each noise
// kind at each of `gammas`, a table per kind (or a JSON line per point) and
// one plot. The exit code (0).
int print_robustness(const ModelRun& run, const std::string& checkpoint,
                     const std::vector<double>& gammas, const RobustReportOptions& o);

}  // namespace tapir
