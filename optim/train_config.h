// Everything that defines a training run. config.json in a run folder is
// this struct as JSON, and `tapir train --resume DIR` rebuilds the run from it.
#pragma once
#include <cstdint>
#include <string>

#include "engine/json.h"
#include "nn/transformer.h"
#include "optim/constraints.h"
#include "optim/optimizer.h"
#include "optim/schedule.h"
#include "tasks/task.h"

namespace tapir {

struct TrainConfig {
  std::string task = "modadd";
  TaskOptions task_options;
  ModelConfig model;  // vocab and context are filled in from the task
  OptimizerConfig optimizer;
  Schedule schedule;            // schedule.total follows steps unless set
  ConstraintConfig constraint;  // per-layer descent constraints (kind none: plain training)
  int64_t steps = 1000;
  int64_t batch = 64;
  double clip = 1.0;         // global gradient-norm clip; <= 0 disables
  int64_t eval_every = 100;  // steps between evaluations (and checkpoints)
  int64_t eval_batch = 512;  // examples per forward pass during evaluation
  int64_t eval_limit = 0;    // cap on examples per eval split (0 = the whole set)
  double stop_at = 0;        // stop once test accuracy reaches this (0 = never)
  uint64_t seed = 0;         // model init (stream 0) and batch sampling (stream 1)
  int threads = 1;
  Device device = Device::cpu;  // where parameters, state and activations live
  std::string arch_file;        // learned functions to use (nn/architecture.h); empty: none
  bool arch_trainable = false;  // keep training them (default: frozen)

  void validate() const;
  Json to_json() const;
  static TrainConfig from_json(const Json& j);
};

}  // namespace tapir
