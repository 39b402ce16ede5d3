// The checkpoint options of the evaluating commands (tools/checkpoint_options.h).
#include "tools/checkpoint_options.h"

#include "engine/threads.h"
#include "tools/options.h"
#include "tools/train_options.h"

namespace tapir {

void add_checkpoint_options(CLI::App& cmd, CheckpointOptions& o) {
  cmd.add_option("--checkpoint", o.checkpoint, "Run folder or checkpoint file")->required();
  cmd.add_option("--opt", o.task_opts, "Override a task option, name=value");
  cmd.add_option("--limit", o.limit, "Max examples per split (0: all)");
  add_threads_option(cmd, o.threads);
  add_device_option(cmd, o.device, "Where to evaluate");
}

ModelRun open_checkpoint(const CheckpointOptions& o) {
  TAPIR_CHECK(o.limit >= 0, "--limit must be 0 (all) or positive, got ", o.limit);
  set_num_threads(o.threads);
  ModelRun run = open_run(o.checkpoint, parse_task_overrides(o.task_opts), o.device);
  run.config.eval_limit = o.limit;
  return run;
}

TaskOptions parse_task_overrides(const std::vector<std::string>& name_values) {
  TaskOptions overrides;
  set_task_options(name_values, {}, overrides);
  return overrides;
}

}  // namespace tapir
