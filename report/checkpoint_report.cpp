// `tapir eval`, `tapir layers` and `tapir robust` on an open checkpoint
// (report/checkpoint_report.h).
#include "report/checkpoint_report.h"

#include <cmath>
#include <cstdio>

#include "base/file_io.h"
#include "base/json.h"
#include "lab/report_text.h"
#include "lab/robust_report.h"
#include "optim/run_folder.h"
#include "report/svg.h"

namespace tapir {

namespace {

// Where a plot goes: `svg` as given, or by default RUN/KIND_SPLIT.svg in the
// run folder of the checkpoint.
std::string plot_path(const std::string& svg, const std::string& checkpoint, const char* kind,
                      const std::string& split) {
  if (!svg.empty()) return svg;
  return run_folder_of(checkpoint) + "/" + kind + "_" + split + ".svg";
}

}  // namespace

int print_evaluation(const ModelRun& run, std::vector<std::string> splits, bool json) {
  const Evaluator evaluator = run.evaluator();
  const Task& task = *run.task;
  if (splits.empty()) splits = task.eval_splits();
  for (const std::string& split : splits) {
    EvalResult r = evaluator.evaluate_split(split);
    const Tally& t = r.tally.all;
    if (task.is_regression()) {  // the loss is a mean squared error
      std::printf(json ? "{\"split\":\"%s\",\"examples\":%lld,\"mse\":%.6f,"
                         "\"rmse\":%.6f,\"accuracy\":%.6f}\n"
                       : "%s: %lld examples, mse %.6f, rmse %.6f, improved %.4f\n",
                  split.c_str(), static_cast<long long>(t.examples), t.loss(), std::sqrt(t.loss()),
                  t.accuracy());
      continue;
    }
    if (json) {
      std::printf(
          "{\"split\":\"%s\",\"examples\":%lld,\"accuracy\":%.6f,"
          "\"token_accuracy\":%.6f,\"loss\":%.6f",
          split.c_str(), static_cast<long long>(t.examples), t.accuracy(), t.token_accuracy(),
          t.loss());
      if (t.bytes > 0) std::printf(",\"bits_per_byte\":%.6f", t.bits_per_byte());
      std::printf("}\n");
      continue;
    }
    std::printf("%s: %lld examples, accuracy %.4f, token accuracy %.4f, loss %.4f", split.c_str(),
                static_cast<long long>(t.examples), t.accuracy(), t.token_accuracy(), t.loss());
    if (t.bytes > 0) std::printf(", %.4f bits per byte", t.bits_per_byte());
    std::printf("\n");
    std::printf("%s", format_groups(r, task.group_name()).c_str());
  }
  return 0;
}

int print_layer_profile(const ModelRun& run, const std::string& checkpoint,
                        const LayerReportOptions& o) {
  const LayerProfile p = layer_profile(run.evaluator(), o.split);
  const std::string metric = task_metric_name(*run.task);
  const double alpha = o.alpha >= 0 ? o.alpha : run.config.constraint.alpha.front();
  if (o.json) {
    Json j = Json::object();
    j.set("split", o.split);
    j.set("examples", p.examples);
    Json loss = Json::array(), values = Json::array();
    for (size_t l = 0; l < p.loss.size(); ++l) {
      loss.push_back(p.loss[l]);
      values.push_back(p.metric[l]);
    }
    j.set("loss", loss);
    j.set(metric, values);
    j.set("monotone", is_monotone(p.loss));
    std::printf("%s\n", to_json(j).c_str());
  } else {
    std::printf("%s\n%s: %lld examples, layer 0 = the embeddings\n", run.task->describe().c_str(),
                o.split.c_str(), static_cast<long long>(p.examples));
    std::printf("%s", format_layer_table(p, metric, alpha).c_str());
  }
  if (o.svg != "none") {
    const std::string path = plot_path(o.svg, checkpoint, "layers", o.split);
    PlotSeries s{"loss", {}, p.loss, {}};
    for (size_t l = 0; l < p.loss.size(); ++l) s.x.push_back(double(l));
    refuse_output_over_inputs(path, run_input_files(checkpoint, run.config.arch_file));
    write_svg_line_plot(path, {"per-layer " + o.split + " loss", "layer", "loss", true}, {s});
    if (!o.json) std::printf("plot: %s\n", path.c_str());
  }
  return 0;
}

int print_robustness(const ModelRun& run, const std::string& checkpoint,
                     const std::vector<double>& gammas, const RobustReportOptions& o) {
  const Evaluator evaluator = run.evaluator();
  const Task& task = *run.task;
  const std::string metric = task_metric_name(task);
  for (const std::string& name : o.noise)  // refuse a bad kind before any output
    make_perturbation(parse_noise_kind(name), 0.0, *run.model, task, 0);
  if (!o.json)
    std::printf("%s\n%s, %lld noise seeds per gamma; noise scale %.4g (%s)\n",
                task.describe().c_str(), o.split.c_str(), static_cast<long long>(o.repeats),
                perturbation_scale(*run.model),
                task.is_regression() ? "clean frame RMS" : "RMS of tok_emb.weight");
  std::vector<PlotSeries> series;
  for (const std::string& name : o.noise) {
    const NoiseKind kind = parse_noise_kind(name);
    const std::vector<RobustPoint> curve =
        robustness_curve(evaluator, o.split, kind, gammas, o.repeats, o.seed);
    PlotSeries s{name, {}, {}, {}};
    for (const RobustPoint& p : curve) {
      s.x.push_back(p.gamma);
      s.y.push_back(p.metric);
      s.spread.push_back(p.spread);
      if (o.json) {
        Json j = Json::object();
        j.set("noise", name);
        j.set("gamma", p.gamma);
        j.set(metric, p.metric);
        j.set("spread", p.spread);
        j.set("loss", p.loss);
        std::printf("%s\n", to_json(j).c_str());
      }
    }
    series.push_back(s);
    if (!o.json)
      std::printf("noise %s\n%s", name.c_str(), format_robust_table(curve, metric).c_str());
  }
  if (o.svg != "none") {
    const std::string path = plot_path(o.svg, checkpoint, "robust", o.split);
    refuse_output_over_inputs(path, run_input_files(checkpoint, run.config.arch_file));
    write_svg_line_plot(path, {metric + " under input noise", "gamma", metric, false}, series);
    if (!o.json) std::printf("plot: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace tapir
