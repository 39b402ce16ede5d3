// `tapir layers`: the task loss read out from every layer of a checkpoint
// (f_0 .. f_L through the shared final LayerNorm and head), whether it falls
// monotonically and by what factors; a table and an SVG line plot.
#include <cstdio>

#include "base/file_io.h"
#include "lab/robust_report.h"
#include "optim/run_folder.h"
#include "report/svg.h"
#include "tools/checkpoint_options.h"
#include "tools/commands.h"

namespace tapir {

Command add_layers_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("layers", "Per-layer loss: every layer read out through the head");
  struct Options {
    CheckpointOptions checkpoint;
    std::string split = "test", svg;
    double alpha = -1;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  add_checkpoint_options(*cmd, o->checkpoint);
  cmd->add_option("--split", o->split, "Evaluation split")->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "Descent rate to count against (default: the run's)");
  cmd->add_option("--svg", o->svg, "Plot file (default RUN/layers_SPLIT.svg; 'none': no plot)");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  return {cmd, [o, cmd]() {
            TAPIR_CHECK(cmd->count("--alpha") == 0 || (o->alpha >= 0 && o->alpha < 1),
                        "--alpha must be in [0, 1), got ", o->alpha);
            const ModelRun run = open_checkpoint(o->checkpoint);
            const LayerProfile p = layer_profile(run.evaluator(), o->split);
            const std::string metric = task_metric_name(*run.task);
            const double alpha = o->alpha >= 0 ? o->alpha : run.config.constraint.alpha.front();
            if (o->json) {
              Json j = Json::object();
              j.set("split", o->split);
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
              std::printf("%s\n%s: %lld examples, layer 0 = the embeddings\n",
                          run.task->describe().c_str(), o->split.c_str(),
                          static_cast<long long>(p.examples));
              std::printf("%s", format_layer_table(p, metric, alpha).c_str());
            }
            if (o->svg != "none") {
              std::string path = o->svg;
              if (path.empty()) {
                path = run_folder_of(o->checkpoint.checkpoint) + "/layers_";
                path += o->split;
                path += ".svg";
              }
              PlotSeries s{"loss", {}, p.loss, {}};
              for (size_t l = 0; l < p.loss.size(); ++l) s.x.push_back(double(l));
              refuse_output_over_inputs(
                  path, run_input_files(o->checkpoint.checkpoint, run.config.arch_file));
              write_svg_line_plot(path, {"per-layer " + o->split + " loss", "layer", "loss", true},
                                  {s});
              if (!o->json) std::printf("plot: %s\n", path.c_str());
            }
            return 0;
          }};
}

}  // namespace tapir
