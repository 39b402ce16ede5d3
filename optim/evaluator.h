// Evaluation of a model on a task's fixed evaluation sets, the one loop every
// evaluation runs: the split's examples in order, in batches, forward without
// a tape, the outputs scored on the host by the task (per group where the
// task has groups). Used by the training loop (optim/trainer.h), `tapir
// eval`, the per-layer and perturbed evaluations (optim/layer_eval.h) and the
// commands built on them. Above nn and the tasks.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nn/transformer.h"
#include "optim/batch.h"
#include "optim/train_config.h"
#include "tasks/task.h"

namespace tapir {

struct EvalResult {
  std::string split;
  EvalTally tally;
};

struct EvalSettings {
  int64_t batch = 512;  // examples per forward pass
  int64_t limit = 0;    // cap on examples per split (0: the whole set)
  // Data-parallel training under MPI (optim/data_parallel.h): evaluate()
  // and evaluate_split() share a split's batches among the ranks (batch k
  // on rank k mod N), and every rank ends with the tally of one process,
  // bit for bit. Every rank must then make the same calls.
  bool over_ranks = false;
  // The splits evaluate() evaluates, in order; empty: the task's evaluation
  // splits.
  std::vector<std::string> splits;
};
// A run's settings: config.eval_batch and config.eval_limit, and the arch
// split alone under eval_on arch.
EvalSettings eval_settings(const TrainConfig& config);

class Evaluator {
 public:
  // `model` (on `device`) and `task` must outlive the evaluator.
  Evaluator(Transformer& model, const Task& task, Device device, EvalSettings settings = {});

  EvalResult evaluate_split(const std::string& split) const;
  // Every evaluation split of the task, in its order (or settings().splits).
  std::vector<EvalResult> evaluate() const;

  // The loop under every evaluation: the first settings().limit examples of
  // `split` (all when 0) in batches of settings().batch; each host batch is
  // passed to `edit` (when set), copied to the device and passed to `use`.
  // Grad mode is off; the step arena is reset after each batch.
  using EditBatch = std::function<void(Batch&)>;
  using UseBatch = std::function<void(const Batch&, const BatchTensors&)>;
  void for_each_batch(const std::string& split, const EditBatch& edit, const UseBatch& use) const;
  // Scores the model's outputs for `batch` (on any device) into `tally`.
  void score(const Batch& batch, Tensor outputs, EvalTally& tally) const;
  // How many batches for_each_batch runs on `split`.
  int64_t batch_count(const std::string& split) const;

  Transformer& model() const { return *model_; }
  const Task& task() const { return *task_; }
  Device device() const { return device_; }
  const EvalSettings& settings() const { return settings_; }

 private:
  // The split's examples evaluated: all, or the first `limit`.
  int64_t example_count(const std::string& split) const;
  // Examples [k * batch, ...) of the split: its k-th batch on the host.
  void load_batch(const std::string& split, int64_t k, Batch& batch) const;
  // evaluate_split with this rank's batches; the ranks' units are then
  // exchanged and added in batch order.
  EvalResult evaluate_split_over_ranks(const std::string& split) const;

  Transformer* model_;
  const Task* task_;
  Device device_;
  EvalSettings settings_;
};

}  // namespace tapir
