// The options of the commands that read a trained run (`tapir eval`,
// `layers`, `robust`): which checkpoint, task option overrides, how many
// examples, threads and device; and opening the run they name as a ModelRun
// (optim/model_run.h).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/device.h"
#include "optim/model_run.h"

namespace tapir {

struct CheckpointOptions {
  std::string checkpoint;              // run folder or checkpoint file
  std::vector<std::string> task_opts;  // "name=value" from --opt
  int64_t limit = 0;                   // max examples per split (0: all)
  int threads = 1;
  Device device = Device::cpu;
};

// Registers --checkpoint, --opt, --limit, --threads and --device (checked to be
// usable when parsed).
void add_checkpoint_options(CLI::App& cmd, CheckpointOptions& o);
// Sets the thread count and opens the run: task overrides applied, the model
// on --device, config.eval_limit = --limit.
ModelRun open_checkpoint(const CheckpointOptions& o);
// Task options given as name=value (--opt), to override the saved ones.
TaskOptions parse_task_overrides(const std::vector<std::string>& name_values);

}  // namespace tapir
