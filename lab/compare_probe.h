// Probes of a finished comparison (`tapir compare --layer-profile --robust ...`):
// every (variant, seed) run folder is opened again and measured with the same
// functions as `tapir layers` and `tapir robust` (lab/robust_report.h), so
// that plain training and the constrained variants of docs/constraints.md are
// compared side by side with their spread over seeds. Sits in lab/.
#pragma once
#include <string>
#include <vector>

#include "base/json.h"
#include "lab/compare.h"

namespace tapir {

struct ProbeOptions {
  bool layers = false;             // per-layer loss profile (tapir layers)
  std::vector<std::string> noise;  // noise kinds for the robustness curve (tapir robust)
  std::vector<double> gammas = {0, 0.25, 0.5, 1, 1.5, 2};
  int64_t repeats = 2;  // noise seeds per gamma and run
  std::string split = "test";
  int64_t limit = 0;  // max examples per evaluation (0: all)
  int threads = 1;
};

struct ProbeReport {
  std::string markdown;  // tables, mean +- std over seeds per variant
  Json json;
};

// Measures every run of `results`, each opened from its folder (open_run,
// optim/model_run.h); an empty report when nothing is asked.
ProbeReport probe_compare(const std::vector<VariantResult>& results, const ProbeOptions& options);

}  // namespace tapir
