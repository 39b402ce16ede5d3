// Opening a finished (or running) run folder for evaluation: its config.json
// rebuilds the task and model, and checkpoint.safetensors fills the weights.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "optim/trainer.h"

namespace tapir {

// `path` is a run folder or a checkpoint file inside one. Task options in
// `overrides` replace the saved ones (e.g. a longer test length). The model
// is loaded onto `device`, whatever device the run was trained on.
std::unique_ptr<Trainer> open_run(const std::string& path, const TaskOptions& overrides = {},
                                  Device device = Device::cpu);
// The run folder of `path`: the folder itself, or the folder a checkpoint file is in.
std::string run_folder_of(const std::string& path);
// The device named by --device, checked to be usable (a one-line error
// naming the device and why not).
Device usable_device(const std::string& name);
// Task options given as name=value (--opt), to override the saved ones.
TaskOptions parse_task_overrides(const std::vector<std::string>& name_values);

}  // namespace tapir
