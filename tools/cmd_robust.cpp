// `tapir robust`: a checkpoint's metric under test-time input noise of
// growing strength gamma (gaussian or uniform noise on the embeddings,
// discrete token replacement; extra frame noise for denoise), mean and spread
// over noise seeds; a table per noise kind and one SVG plot.
#include <cstdio>

#include "base/file_io.h"
#include "lab/robust_report.h"
#include "optim/run_folder.h"
#include "report/svg.h"
#include "tools/checkpoint_options.h"
#include "tools/commands.h"

namespace tapir {

Command add_robust_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("robust", "Metric under input noise of growing strength");
  struct Options {
    CheckpointOptions checkpoint;
    std::string split = "test", svg, gamma = "0,0.25,0.5,1,1.5,2";
    std::vector<std::string> noise = {"gaussian"};
    int64_t repeats = 3;
    uint64_t seed = 0;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  add_checkpoint_options(*cmd, o->checkpoint);
  cmd->add_option("--noise", o->noise,
                  "gaussian | uniform | discrete (comma-separated for several)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--gamma", o->gamma, "Noise strengths, comma-separated")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Noise seeds per gamma")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "First noise seed")->capture_default_str();
  cmd->add_option("--split", o->split, "Evaluation split")->capture_default_str();
  cmd->add_option("--svg", o->svg, "Plot file (default RUN/robust_SPLIT.svg; 'none': no plot)");
  cmd->add_flag("--json", o->json, "Print one JSON object per noise kind and gamma");
  return {cmd, [o]() {
            const std::vector<double> gammas = parse_double_list(o->gamma, "--gamma");
            const ModelRun run = open_checkpoint(o->checkpoint);
            const Evaluator evaluator = run.evaluator();
            const Task& task = *run.task;
            const std::string metric = task_metric_name(task);
            for (const std::string& name : o->noise)  // refuse a bad kind before any output
              make_perturbation(parse_noise_kind(name), 0.0, *run.model, task, 0);
            if (!o->json)
              std::printf("%s\n%s, %lld noise seeds per gamma; noise scale %.4g (%s)\n",
                          task.describe().c_str(), o->split.c_str(),
                          static_cast<long long>(o->repeats), perturbation_scale(*run.model),
                          task.is_regression() ? "clean frame RMS" : "RMS of tok_emb.weight");
            std::vector<PlotSeries> series;
            for (const std::string& name : o->noise) {
              const NoiseKind kind = parse_noise_kind(name);
              const std::vector<RobustPoint> curve =
                  robustness_curve(evaluator, o->split, kind, gammas, o->repeats, o->seed);
              PlotSeries s{name, {}, {}, {}};
              for (const RobustPoint& p : curve) {
                s.x.push_back(p.gamma);
                s.y.push_back(p.metric);
                s.spread.push_back(p.spread);
                if (o->json) {
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
              if (!o->json)
                std::printf("noise %s\n%s", name.c_str(),
                            format_robust_table(curve, metric).c_str());
            }
            if (o->svg != "none") {
              std::string path = o->svg;
              if (path.empty()) {
                path = run_folder_of(o->checkpoint.checkpoint) + "/robust_";
                path += o->split;
                path += ".svg";
              }
              refuse_output_over_inputs(
                  path, run_input_files(o->checkpoint.checkpoint, run.config.arch_file));
              write_svg_line_plot(path, {metric + " under input noise", "gamma", metric, false},
                                  series);
              if (!o->json) std::printf("plot: %s\n", path.c_str());
            }
            return 0;
          }};
}

}  // namespace tapir
