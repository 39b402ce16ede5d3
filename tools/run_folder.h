// Opening a finished (or running) run folder for evaluation: its config.json
// rebuilds the task and model, and checkpoint.safetensors fills the weights.
#pragma once
#include <memory>
#include <string>

#include "optim/trainer.h"

namespace tapir {

// `path` is a run folder or a checkpoint file inside one. Task options in
// `overrides` replace the saved ones (e.g. a longer test length).
std::unique_ptr<Trainer> open_run(const std::string& path, const TaskOptions& overrides = {});

}  // namespace tapir
