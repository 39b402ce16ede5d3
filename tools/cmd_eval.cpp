// `tapir eval`: a checkpoint's metrics on the task's evaluation splits, with
// the per-group tables (length, depth, ...) where the task has them.
#include <cmath>
#include <cstdio>

#include "engine/threads.h"
#include "lab/report_text.h"
#include "tools/commands.h"
#include "tools/run_folder.h"
#include "tools/train_options.h"

namespace tapir {

Command add_eval_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "Evaluate a checkpoint on its task's splits");
  struct Options {
    std::string checkpoint;
    std::vector<std::string> splits;
    std::vector<std::string> task_opts;
    bool json = false;
    int threads = 1;
    std::string device = "cpu";
    int64_t limit = 0;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--checkpoint", o->checkpoint, "Run folder or checkpoint file")->required();
  cmd->add_option("--split", o->splits, "Split(s) to evaluate (default: the task's eval splits)");
  cmd->add_option("--opt", o->task_opts, "Override a task option, name=value");
  cmd->add_option("--limit", o->limit, "Max examples per split (0: all)");
  cmd->add_flag("--json", o->json, "Print one JSON object per split");
  cmd->add_option("--threads", o->threads, "Threads")->check(CLI::Range(1, 256));
  cmd->add_option("--device", o->device, "Where to evaluate: cpu or cuda")->capture_default_str();
  return {cmd, [o]() {
            set_num_threads(o->threads);
            auto trainer = open_run(o->checkpoint, parse_task_overrides(o->task_opts),
                                    usable_device(o->device));
            trainer->set_eval_limit(o->limit);
            std::vector<std::string> splits = o->splits;
            if (splits.empty()) splits = trainer->task().eval_splits();
            for (const std::string& split : splits) {
              EvalResult r = trainer->evaluate_split(split);
              const Tally& t = r.tally.all;
              if (trainer->task().is_regression()) {  // the loss is a mean squared error
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
                    "\"token_accuracy\":%.6f,\"loss\":%.6f}\n",
                    split.c_str(), static_cast<long long>(t.examples), t.accuracy(),
                    t.token_accuracy(), t.loss());
                continue;
              }
              std::printf("%s: %lld examples, accuracy %.4f, token accuracy %.4f, loss %.4f\n",
                          split.c_str(), static_cast<long long>(t.examples), t.accuracy(),
                          t.token_accuracy(), t.loss());
              std::printf("%s", format_groups(r, trainer->task().group_name()).c_str());
            }
            return 0;
          }};
}

}  // namespace tapir
