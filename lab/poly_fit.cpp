#include "lab/poly_fit.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "autograd/tape.h"
#include "base/file_io.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"

namespace tapir {

namespace {

// Bins of the histogram a central share is read from: fine enough that a
// bin's width is far below any useful fit range's.
constexpr int64_t kQuantileBins = 20000;

// Runs the model on the same `batches` train batches (drawn with `seed`)
// with each spline adding its inputs to its record.
void replay(ModelRun& r, const std::vector<Spline*>& splines, std::vector<InputRecord>& records,
            const PolyRangeSource& source) {
  for (size_t k = 0; k < splines.size(); ++k) splines[k]->watch_inputs(&records[k]);
  NoGrad no_grad;
  Rng rng(source.seed, 7);
  Batch batch;
  for (int64_t b = 0; b < source.batches; ++b) {
    r.task->sample("train", r.config.batch, rng, batch);
    const BatchTensors t = to_tensors(batch, r.device());
    r.model->forward(t.inputs);
    reset_step();
  }
  for (Spline* s : splines) s->watch_inputs(nullptr);
}

std::vector<InputRecord> binned(const std::vector<InputRecord>& ranges, int64_t bins,
                                double margin_in_bins) {
  std::vector<InputRecord> out(ranges.size());
  for (size_t k = 0; k < ranges.size(); ++k) {
    const double width = (ranges[k].hi - ranges[k].lo) / (double(bins) - 2 * margin_in_bins);
    out[k].bin_lo = ranges[k].lo - margin_in_bins * width;
    out[k].bin_hi = ranges[k].hi + margin_in_bins * width;
    out[k].counts.assign(static_cast<size_t>(bins), 0.0);
  }
  return out;
}

// The edges of the histogram's bins holding the inputs at the
// (1 - central) / 2 and (1 + central) / 2 quantiles.
std::pair<double, double> central_range(const InputRecord& h, double central) {
  double total = 0;
  for (double c : h.counts) total += c;
  const double below = total * (1 - central) / 2, above = total * (1 + central) / 2;
  const double width = (h.bin_hi - h.bin_lo) / double(h.counts.size());
  double seen = 0, lo = h.bin_lo, hi = h.bin_hi;
  bool lo_found = false;
  for (size_t k = 0; k < h.counts.size(); ++k) {
    seen += h.counts[k];
    if (!lo_found && seen > below) {
      lo = h.bin_lo + double(k) * width;
      lo_found = true;
    }
    if (seen >= above) {
      hi = h.bin_lo + double(k + 1) * width;
      break;
    }
  }
  return {lo, hi};
}

}  // namespace

void PolyRangeSource::check() const {
  TAPIR_CHECK(batches >= 1, command, ": --batches must be at least 1, got ", batches);
  TAPIR_CHECK(central > 0 && central <= 1, command, ": --central must be in (0, 1], got ", central);
}

std::map<std::string, RecordedInputs> record_mlp_inputs(ModelRun& r,
                                                        const PolyRangeSource& source) {
  source.check();
  std::vector<Spline*> splines;
  for (const Transformer::LearnedFunction& f : r.model->learned_functions())
    if (f.slot == "mlp") splines.push_back(f.spline);
  TAPIR_CHECK(!splines.empty(), source.command, ": the model of ", source.run,
              " has no learned MLP function to record the inputs of");
  // Pass 1: the range the inputs visit.
  std::vector<InputRecord> ranges(splines.size());
  replay(r, splines, ranges, source);
  for (size_t k = 0; k < splines.size(); ++k)
    TAPIR_CHECK(ranges[k].any() && ranges[k].lo < ranges[k].hi, source.command, ": the inputs of ",
                splines[k]->values().name, " in ", source.run, " never spanned a range");
  // Pass 2 (--central below 1): the central share of them.
  if (source.central < 1) {
    std::vector<InputRecord> fine = binned(ranges, kQuantileBins, 0);
    replay(r, splines, fine, source);
    for (size_t k = 0; k < splines.size(); ++k) {
      const auto [lo, hi] = central_range(fine[k], source.central);
      TAPIR_CHECK(lo < hi, source.command, ": the central ", source.central, " of the inputs of ",
                  splines[k]->values().name, " in ", source.run, " span no range");
      ranges[k].lo = lo;
      ranges[k].hi = hi;
    }
  }
  // Pass 3: how many inputs fall nearest each fit point (bins centred on them).
  std::vector<InputRecord> near;
  if (!source.uniform) {
    near = binned(ranges, kPolyFitPoints, 0.5);
    replay(r, splines, near, source);
  }
  std::map<std::string, RecordedInputs> out;
  for (size_t k = 0; k < splines.size(); ++k) {
    RecordedInputs& rec = out[splines[k]->values().name];
    rec.lo = ranges[k].lo;
    rec.hi = ranges[k].hi;
    if (!source.uniform) rec.weights = near[k].counts;
  }
  return out;
}

namespace {

// "run DIR, 16 train batches, central 0.99, weighted by the inputs".
std::string describe_source(const PolyRangeSource& s) {
  if (s.run.empty()) return "--range";
  char central[32] = "";
  if (s.central < 1) std::snprintf(central, sizeof central, ", central %g", s.central);
  return "run " + s.run + ", " + std::to_string(s.batches) + " train batches" + central +
         (s.uniform ? ", uniform weights" : ", weighted by the inputs");
}

// The run must have used these very functions, or its inputs say nothing about them.
void check_run_used(const Architecture& arch, const std::string& arch_path, ModelRun& r,
                    const PolyRangeSource& source) {
  const std::string& run = source.run;
  const Architecture used = architecture_of(*r.model);
  for (const Architecture::Function& f : arch.functions) {
    if (f.slot != "mlp") continue;
    bool same = false;
    for (const Architecture::Function& g : used.functions)
      same = same || (g.name == f.name && g.values == f.values);
    TAPIR_CHECK(same, source.command, ": ", run, " did not train with the function ",
                tapir::quoted(f.name), " of ", arch_path,
                " (give a run made with --arch of that file",
                source.command == "fit-poly" ? ", or --range LO,HI)" : ")");
  }
}

}  // namespace

std::map<std::string, RecordedInputs> recorded_inputs_of(const Architecture& arch,
                                                         const std::string& arch_path,
                                                         const PolyRangeSource& source) {
  source.check();  // before the run is opened
  ModelRun r = open_run(source.run);
  check_run_used(arch, arch_path, r, source);
  return record_mlp_inputs(r, source);
}

PolyFile fit_architecture(const Architecture& arch, const std::string& arch_path, int degree,
                          const PolyRangeSource& range) {
  PolyFile file;
  file.source = arch_path;
  file.degree = degree;
  std::map<std::string, RecordedInputs> recorded;
  range.check();  // before a run is opened
  if (!range.run.empty()) recorded = recorded_inputs_of(arch, arch_path, range);
  const std::string range_from = describe_source(range);
  for (const Architecture::Function& f : arch.functions) {
    if (f.slot != "mlp") continue;
    FittedPoly fitted;
    fitted.name = f.name;
    fitted.range_from = range_from;
    const RecordedInputs rec =
        range.run.empty() ? RecordedInputs{range.lo, range.hi, {}} : recorded.at(f.name);
    fitted.poly = fit_polynomial(f.values, arch.spline_of(f).grid, rec.lo, rec.hi, degree,
                                 &fitted.error, rec.weights);
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

int write_poly_fit(const std::string& file, int degree, const PolyRangeSource& range,
                   const std::string& out, int threads) {
  set_num_threads(threads);  // the run's forward passes
  const Architecture arch = load_architecture(file);
  const PolyFile poly = fit_architecture(arch, file, degree, range);
  std::string out_path = out;
  if (out_path.empty()) {
    std::filesystem::path p(file);
    p.replace_extension(".poly" + std::to_string(degree) + ".json");
    out_path = p.string();
  }
  std::vector<std::string> inputs = {file};
  if (!range.run.empty())
    for (const char* name : {RunFolder::kConfig, RunFolder::kCheckpoint})
      inputs.push_back(RunFolder(range.run).file(name));
  refuse_output_over_inputs(out_path, inputs);
  save_poly_file(out_path, poly);
  for (const FittedPoly& f : poly.functions)
    std::printf("%s: degree %d on [%.4g, %.4g] (%s): max error %.3g, rms %.3g\n", f.name.c_str(),
                degree, f.poly.lo, f.poly.hi, f.range_from.c_str(), f.error.max_abs, f.error.rms);
  std::printf("wrote %s (use it with --mlp-poly %s)\n", out_path.c_str(), out_path.c_str());
  return 0;
}

}  // namespace tapir
