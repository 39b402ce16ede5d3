// `tapir eval`: a checkpoint's metrics on the task's evaluation splits, with
// the per-group tables (length, depth, ...) where the task has them
// (report/checkpoint_report.h).
#include <memory>

#include "report/checkpoint_report.h"
#include "tools/checkpoint_options.h"
#include "tools/commands.h"

namespace tapir {

Command add_eval_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "Evaluate a checkpoint on its task's splits");
  struct Options {
    CheckpointOptions checkpoint;
    std::vector<std::string> splits;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  add_checkpoint_options(*cmd, o->checkpoint);
  cmd->add_option("--split", o->splits, "Split(s) to evaluate (default: the task's eval splits)");
  cmd->add_flag("--json", o->json, "Print one JSON object per split");
  return {cmd,
          [o]() { return print_evaluation(open_checkpoint(o->checkpoint), o->splits, o->json); }};
}

}  // namespace tapir
