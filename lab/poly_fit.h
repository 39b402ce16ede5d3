// `tapir arch fit-poly`: polynomials fitted to the MLP functions of an
// architecture file, each over the range its inputs actually visit. The
// range comes from a run that trained with those functions (its inputs on
// batches of the task's train split) or is given. The fit itself is
// nn/polynomial.h's; a run uses the result with `--mlp-poly FILE`.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "nn/architecture.h"
#include "nn/polynomial.h"
#include "optim/model_run.h"

namespace tapir {

// Where each function's fitted range comes from: `run` (a run folder or
// checkpoint; its model must use the architecture's MLP functions with the
// same values) over `batches` train batches of its own batch size, drawn
// with `seed`; or, with run empty, [lo, hi] for every function.
struct PolyRangeSource {
  std::string run;
  int64_t batches = 16;
  uint64_t seed = 0;
  double lo = 0, hi = 0;
};

// The least and greatest input each MLP spline of the run's model sees over
// the batches, by parameter name (`run` names it in errors).
std::map<std::string, std::pair<double, double>> visited_mlp_ranges(ModelRun& r,
                                                                    const std::string& run,
                                                                    int64_t batches, uint64_t seed);

// Fits every MLP function of the architecture (at `arch_path`); fails if it
// has none. Attention functions are not fitted (their inputs are scores
// inside the attention op, which no range is recorded for).
PolyFile fit_architecture(const Architecture& arch, const std::string& arch_path, int degree,
                          const PolyRangeSource& range);

}  // namespace tapir
