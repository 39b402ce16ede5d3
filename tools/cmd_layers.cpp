// `tapir layers`: the task loss read out from every layer of a checkpoint
// (f_0 .. f_L through the shared final LayerNorm and head), whether it falls
// monotonically and by what factors; a table and an SVG line plot
// (report/checkpoint_report.h).
#include <memory>

#include "base/error.h"
#include "report/checkpoint_report.h"
#include "tools/checkpoint_options.h"
#include "tools/commands.h"

namespace tapir {

Command add_layers_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("layers", "Per-layer loss: every layer read out through the head");
  struct Options {
    CheckpointOptions checkpoint;
    LayerReportOptions report;
  };
  auto o = std::make_shared<Options>();
  add_checkpoint_options(*cmd, o->checkpoint);
  cmd->add_option("--split", o->report.split, "Evaluation split")->capture_default_str();
  cmd->add_option("--alpha", o->report.alpha, "Descent rate to count against (default: the run's)");
  cmd->add_option("--svg", o->report.svg,
                  "Plot file (default RUN/layers_SPLIT.svg; 'none': no plot)");
  cmd->add_flag("--json", o->report.json, "Print one JSON object");
  return {cmd, [o, cmd]() {
            TAPIR_CHECK(cmd->count("--alpha") == 0 || (o->report.alpha >= 0 && o->report.alpha < 1),
                        "--alpha must be in [0, 1), got ", o->report.alpha);
            return print_layer_profile(open_checkpoint(o->checkpoint), o->checkpoint.checkpoint,
                                       o->report);
          }};
}

}  // namespace tapir
