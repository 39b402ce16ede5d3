// The command-line flags of per-layer descent constraints (--constraint,
// --alpha, --dual-lr, ...), registered by add_train_options so that every
// command that builds a training run has them. docs/constraints.md lists them.
#pragma once
#include <CLI/CLI.hpp>

#include "tools/train_options.h"

namespace tapir {

void add_constraint_options(CLI::App& cmd, TrainOptions& o);
// Parses --alpha into config.constraint.alpha.
void finish_constraint_options(const TrainOptions& o, TrainConfig& config);

}  // namespace tapir
