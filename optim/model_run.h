// A model ready to train or evaluate: the completed configuration, its task,
// and the model built from it on config.device. build_run makes one from a
// configuration (the training loop starts from it); open_run makes one from a
// run folder and its checkpoint (`tapir eval`, `layers`, `robust`, `dump` and
// the comparisons). Above nn and the tasks; below the training loop.
#pragma once
#include <memory>
#include <string>

#include "nn/transformer.h"
#include "optim/evaluator.h"
#include "optim/train_config.h"
#include "tasks/task.h"

namespace tapir {

// Fills in what a configuration leaves to its task: the vocabulary size, the
// input kind and frame size of a regression task, the context (0: the task's
// longest sequence) and the schedule's length (0: the run's steps); fails if
// the task's sequences do not fit the context.
void complete_config(TrainConfig& config, const Task& task);

// A rough upper bound, in bytes, of what training `config` (completed) holds
// in memory at once: parameters with their gradients and Adam moments, and
// the activations of one training batch or one evaluation batch, whichever
// is larger (f32; attention scores, MLP hidden, logits), for sequences of
// `length` tokens. An evaluation batch holds at most `eval_examples` (the
// largest evaluation split).
int64_t estimated_training_bytes(const TrainConfig& config, int64_t length, int64_t eval_examples);

// The task a run trains on, from config.task and config.task_options. On all
// of D (train_on all) a task that takes arch-frac is built with arch-frac 0:
// its arch split joins the train split, and every evaluation split stays the
// same (tests/test_train_data.cpp). The options as given are checked first.
std::unique_ptr<Task> make_training_task(const TrainConfig& config);

struct ModelRun {
  TrainConfig config;  // completed from the task
  std::unique_ptr<Task> task;
  std::unique_ptr<Transformer> model;

  Device device() const { return config.device; }
  // An evaluator of the model with config.eval_batch and config.eval_limit.
  Evaluator evaluator() const;
};

// The configuration a run of `config` records in its config.json: validated
// and completed from its task and architecture file, without building the
// model (to compare a folder's config.json with what would run now).
TrainConfig resolved_config(const TrainConfig& config);

// Validates `config`, makes its task, completes the config and builds the
// model: initialised from config.seed on the host (the same values on every
// device), with the learned functions of config.arch_file when given (frozen
// unless arch_trainable), then moved to config.device.
ModelRun build_run(const TrainConfig& config);

// `path` is a run folder or a checkpoint file inside one: its config.json
// rebuilds the task and model, and the checkpoint fills the weights. Task
// options in `overrides` replace the saved ones (e.g. a longer test length).
// The model is loaded onto `device`, whatever device the run was trained on.
ModelRun open_run(const std::string& path, const TaskOptions& overrides = {},
                  Device device = Device::cpu);

}  // namespace tapir
