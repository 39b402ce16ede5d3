#include "lab/poly_fit.h"

#include <cmath>
#include <cstdio>

#include "autograd/tape.h"
#include "optim/batch.h"
#include "optim/model_run.h"

namespace tapir {

std::map<std::string, std::pair<double, double>> visited_mlp_ranges(ModelRun& r,
                                                                    const std::string& run,
                                                                    int64_t batches,
                                                                    uint64_t seed) {
  TAPIR_CHECK(batches >= 1, "fit-poly: --batches must be at least 1, got ", batches);
  std::vector<Spline*> splines;
  for (const Transformer::LearnedFunction& f : r.model->learned_functions())
    if (f.slot == "mlp") splines.push_back(f.spline);
  TAPIR_CHECK(!splines.empty(), "fit-poly: the model of ", run,
              " has no learned MLP function to record the inputs of");
  for (Spline* s : splines) s->watch_inputs(true);
  NoGrad no_grad;
  Rng rng(seed, 7);
  for (int64_t b = 0; b < batches; ++b) {
    Batch batch;
    r.task->sample("train", r.config.batch, rng, batch);
    const BatchTensors t = to_tensors(batch, r.device());
    r.model->forward(t.inputs);
    reset_step();
  }
  std::map<std::string, std::pair<double, double>> ranges;
  for (Spline* s : splines) {
    TAPIR_CHECK(s->seen_any() && s->seen_lo() < s->seen_hi(), "fit-poly: the inputs of ",
                s->values().name, " in ", run, " never spanned a range");
    ranges[s->values().name] = {s->seen_lo(), s->seen_hi()};
  }
  return ranges;
}

PolyFile fit_architecture(const Architecture& arch, const std::string& arch_path, int degree,
                          const PolyRangeSource& range) {
  PolyFile file;
  file.source = arch_path;
  file.degree = degree;
  std::map<std::string, std::pair<double, double>> visited;
  std::string range_from = "--range";
  if (!range.run.empty()) {
    ModelRun r = open_run(range.run);
    // The run must have used these very functions, or its ranges say nothing about them.
    const Architecture used = architecture_of(*r.model);
    for (const Architecture::Function& f : arch.functions) {
      if (f.slot != "mlp") continue;
      bool same = false;
      for (const Architecture::Function& g : used.functions)
        same = same || (g.name == f.name && g.values == f.values);
      TAPIR_CHECK(same, "fit-poly: ", range.run, " did not train with the function ",
                  tapir::quoted(f.name), " of ", arch_path,
                  " (give a run made with --arch of that file, or --range LO,HI)");
    }
    visited = visited_mlp_ranges(r, range.run, range.batches, range.seed);
    range_from = "run " + range.run + ", " + std::to_string(range.batches) + " train batches";
  }
  for (const Architecture::Function& f : arch.functions) {
    if (f.slot != "mlp") continue;
    FittedPoly fitted;
    fitted.name = f.name;
    fitted.range_from = range_from;
    const auto [lo, hi] = range.run.empty() ? std::pair(range.lo, range.hi) : visited.at(f.name);
    fitted.poly = fit_polynomial(f.values, arch.spline_of(f).grid, lo, hi, degree, &fitted.error);
    fitted.poly.layer = f.layer;
    // What a poly file must hold to load (nn/polynomial.h), checked before
    // it is written: a range too wide or too narrow fits to nothing finite.
    fitted.poly.validate("fit-poly: " + f.name + " (" + range_from + ")");
    TAPIR_CHECK(std::isfinite(fitted.error.max_abs) && std::isfinite(fitted.error.rms),
                "fit-poly: ", f.name, " (", range_from,
                "): the fit's error is not finite; choose a narrower range");
    file.functions.push_back(std::move(fitted));
  }
  TAPIR_CHECK(!file.functions.empty(), "fit-poly: ", arch_path,
              " has no MLP function (attention functions are not fitted)");
  return file;
}

}  // namespace tapir
