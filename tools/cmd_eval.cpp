// `tapir eval`: a checkpoint's metrics on the task's evaluation splits, with
// the per-group tables (length, depth, ...) where the task has them.
#include <cmath>
#include <cstdio>

#include "lab/report_text.h"
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
  return {cmd, [o]() {
            const ModelRun run = open_checkpoint(o->checkpoint);
            const Evaluator evaluator = run.evaluator();
            const Task& task = *run.task;
            std::vector<std::string> splits = o->splits;
            if (splits.empty()) splits = task.eval_splits();
            for (const std::string& split : splits) {
              EvalResult r = evaluator.evaluate_split(split);
              const Tally& t = r.tally.all;
              if (task.is_regression()) {  // the loss is a mean squared error
                std::printf(o->json ? "{\"split\":\"%s\",\"examples\":%lld,\"mse\":%.6f,"
                                      "\"rmse\":%.6f,\"accuracy\":%.6f}\n"
                                    : "%s: %lld examples, mse %.6f, rmse %.6f, improved %.4f\n",
                            split.c_str(), static_cast<long long>(t.examples), t.loss(),
                            std::sqrt(t.loss()), t.accuracy());
                continue;
              }
              if (o->json) {
                std::printf(
                    "{\"split\":\"%s\",\"examples\":%lld,\"accuracy\":%.6f,"
                    "\"token_accuracy\":%.6f,\"loss\":%.6f",
                    split.c_str(), static_cast<long long>(t.examples), t.accuracy(),
                    t.token_accuracy(), t.loss());
                if (t.bytes > 0) std::printf(",\"bits_per_byte\":%.6f", t.bits_per_byte());
                std::printf("}\n");
                continue;
              }
              std::printf("%s: %lld examples, accuracy %.4f, token accuracy %.4f, loss %.4f",
                          split.c_str(), static_cast<long long>(t.examples), t.accuracy(),
                          t.token_accuracy(), t.loss());
              if (t.bytes > 0) std::printf(", %.4f bits per byte", t.bits_per_byte());
              std::printf("\n");
              std::printf("%s", format_groups(r, task.group_name()).c_str());
            }
            return 0;
          }};
}

}  // namespace tapir
