// `tapir arch fit-poly`: polynomials fitted to the MLP functions of an
// architecture file where their inputs go. The inputs come from a run that
// trained with those functions (its model's forward passes on batches of
// the task's train split): each function is fitted over the range they
// visit, or the central share of them, and weighted by how many fell near
// each point. Or a range is given and every point weighs the same. The fit
// itself is nn/polynomial.h's (clamped to its range); a run uses the result
// with `--mlp-poly FILE`.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nn/architecture.h"
#include "nn/polynomial.h"
#include "optim/model_run.h"

namespace tapir {

// How each function's range and weights are found: from `run` (a run folder
// or checkpoint; its model must use the architecture's MLP functions with
// the same values) over `batches` train batches of its own batch size, drawn
// with `seed`: the range is the central `central` share of the inputs (1:
// all of them, from the least to the greatest), the weights their histogram
// over the fit points unless `uniform`. With run empty: [lo, hi] for every
// function, uniform weights.
struct PolyRangeSource {
  std::string command = "fit-poly";  // what the errors say they come from
  std::string run;
  int64_t batches = 16;
  uint64_t seed = 0;
  double central = 1;
  bool uniform = false;
  double lo = 0, hi = 0;

  // Fails naming the flag unless `batches` >= 1 and 0 < `central` <= 1.
  void check() const;
};

// Where one function's inputs went: the fit range and a weight per fit point.
struct RecordedInputs {
  double lo = 0, hi = 0;
  std::vector<double> weights;  // kPolyFitPoints, or empty (uniform)
};

// For each MLP spline of the run's model, by parameter name: the range and
// weights `source` asks for (`source.run` names the run in errors). The
// batches are replayed once per pass (the range, the central share, the
// histogram), the same batches each time.
std::map<std::string, RecordedInputs> record_mlp_inputs(ModelRun& r, const PolyRangeSource& source);

// record_mlp_inputs for the MLP functions of the architecture at
// `arch_path`, from `source.run` (not empty), which must have trained with
// those very functions.
std::map<std::string, RecordedInputs> recorded_inputs_of(const Architecture& arch,
                                                         const std::string& arch_path,
                                                         const PolyRangeSource& source);

// Fits every MLP function of the architecture (at `arch_path`); fails if it
// has none. Attention functions are not fitted (their inputs are scores
// inside the attention op, which no range is recorded for).
PolyFile fit_architecture(const Architecture& arch, const std::string& arch_path, int degree,
                          const PolyRangeSource& range);
// `tapir arch fit-poly`'s work once its flags are read (tools/cmd_arch.cpp):
// fits the architecture file `file` over `range` (its run's forward passes
// on `threads` threads), writes the poly file to `out` ("": FILE's name with
// .polyD.json) and prints each function's fit; the exit code (0).
int write_poly_fit(const std::string& file, int degree, const PolyRangeSource& range,
                   const std::string& out, int threads);

}  // namespace tapir
