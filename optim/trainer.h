// The training loop, written once: sample a batch from the task, forward,
// loss, backward, clip, optimizer step; every eval_every steps evaluate the
// fixed evaluation sets, append to metrics.jsonl and save the checkpoint and
// the resume file. Later methods (Stage I search, constrained training)
// extend it through its hooks (the loss, the end of a step, extra resume
// state, extra metrics) rather than copying it.
//
// The loop uses the pieces beside it: the model and task come from
// build_run (optim/model_run.h), evaluation from an Evaluator
// (optim/evaluator.h), and every file from the RunFolder
// (optim/run_folder.h, which lists what a run folder holds).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/folder_lock.h"
#include "engine/rng.h"
#include "engine/safetensors.h"
#include "nn/checkpoint.h"
#include "nn/transformer.h"
#include "optim/evaluator.h"
#include "optim/model_run.h"
#include "optim/optimizer.h"
#include "optim/run_folder.h"
#include "optim/train_config.h"
#include "tasks/task.h"

namespace tapir {

struct StepStats {
  int64_t step = 0;  // steps completed after this one
  double loss = 0, grad_norm = 0, lr = 0;
};

// What the loop reports as it goes (the command line turns it into a
// progress line and eval lines).
struct TrainEvents {
  std::function<void(const StepStats&, double steps_per_s)> on_step;
  std::function<void(int64_t step, const std::vector<EvalResult>&)> on_eval;
};

class Trainer {
 public:
  // A fresh run. out_dir may be empty for a run without files (tests).
  Trainer(const TrainConfig& config, std::string out_dir);
  virtual ~Trainer() = default;

  // Opens the run folder: fails if it exists (unless force, which empties
  // it), then writes config.json.
  void start_fresh(bool force);
  // Rebuilds a run from DIR/config.json and DIR/resume.safetensors, after
  // checking both whole, and takes the folder's lock. `steps` (if > 0)
  // extends the run, or ends it early, but never below the step reached.
  // `device` and `threads` (if given) replace the saved ones: a run may
  // continue on another device or thread count. What changes is recorded in
  // config.json.
  // With writes false (the other ranks of a data-parallel run) nothing in
  // the folder is locked or written: the trainer reads it and then runs
  // without files.
  static std::unique_ptr<Trainer> resume(const std::string& dir, int64_t steps = 0,
                                         std::optional<Device> device = std::nullopt,
                                         std::optional<int> threads = std::nullopt,
                                         bool writes = true);

  // Data-parallel steps among the MPI ranks (optim/data_parallel.h): each
  // step trains on this rank's rows of the batch and sums the gradients
  // over the ranks, and each evaluation scores this rank's share of the
  // batches and combines the tallies (optim/evaluator.h). Off by default (a
  // search's or a comparison's runs are each trained whole by one rank).
  void set_data_parallel(bool on);

  // Trains to config.steps (or until stop_at is reached).
  void run(const TrainEvents& events = {});
  StepStats train_step();
  std::vector<EvalResult> evaluate() const { return evaluator_.evaluate(); }
  // evaluate(), then one metrics.jsonl line per split.
  std::vector<EvalResult> evaluate_and_log(double tokens_per_s = 0);
  void save();  // checkpoint and resume file, each written atomically
  // The loop's state (parameters, optimizer, sampling RNG, step, clock) under
  // a name prefix, for a file that holds several trainers: a Stage I search
  // saves all its models in its own resume file (optim/search.h). A
  // trainer's extra state (save_state) is not included.
  void add_state(const std::string& prefix, HostBytes& host, std::vector<SafeTensorWrite>& writes,
                 Metadata& meta) const;
  // Reads back what add_state wrote; `path` names the file in errors.
  void restore_state(const SafeTensorsFile& file, const std::string& path,
                     const std::string& prefix);
  // Flushes metrics.jsonl to the disk (save() does it with each checkpoint).
  void sync_metrics() const { folder_.sync_metrics(); }

  Transformer& model() { return *run_.model; }
  Task& task() { return *run_.task; }
  const Task& task() const { return *run_.task; }
  Optimizer& optimizer() { return *optimizer_; }
  const TrainConfig& config() const { return run_.config; }
  Device device() const { return run_.config.device; }
  int64_t step() const { return step_; }
  const std::string& out_dir() const { return folder_.dir(); }
  // What resuming dropped from metrics.jsonl ("" when nothing).
  const std::string& resume_note() const { return resume_note_; }
  // The evaluator of this run's model (config.eval_batch, config.eval_limit).
  const Evaluator& evaluator() const { return evaluator_; }
  // Losses of every step taken in this process (for tests and plots).
  const std::vector<double>& losses() const { return losses_; }

 protected:
  // The loss of one batch (to_tensors: inputs, targets, mask in the step arena).
  virtual Tensor compute_loss(Tensor inputs, Tensor targets, Tensor mask);
  // Called at the end of every train_step, after the optimizer update, with
  // step() already counting it.
  virtual void after_step(StepStats& /*stats*/) {}
  // Extra state for the resume file: tensors (their data must stay alive until
  // save() returns) and metadata; load_state reads them back on resume.
  virtual void save_state(std::vector<SafeTensorWrite>& /*tensors*/, Metadata& /*meta*/) const {}
  virtual void load_state(const SafeTensorsFile& /*file*/) {}
  // Extra fields for each metrics.jsonl line.
  virtual void add_metrics(Json& /*line*/) const {}
  void append_metrics(const std::vector<EvalResult>& results, double tokens_per_s);
  double wall_seconds() const;

  ModelRun run_;
  RunFolder folder_;
  // What this run is (optim/run_identity.h), saved with its checkpoint and
  // resume state; taken when the trainer is made (null: a run without files).
  Json identity_;
  Evaluator evaluator_;
  std::vector<Parameter*> params_;
  std::unique_ptr<Optimizer> optimizer_;
  Rng data_rng_;
  Batch batch_;
  bool data_parallel_ = false;
  Batch rank_batch_;  // this rank's rows of batch_ (data parallel)
  int64_t step_ = 0;
  std::vector<double> losses_;
  double wall_start_ = 0, wall_offset_ = 0;
  int64_t saved_step_ = -1;           // the step of the last checkpoint; -1: none yet
  std::unique_ptr<FolderLock> lock_;  // held while this trainer writes its folder
  std::string resume_note_;

 private:
  // "; the last good checkpoint (step S) in DIR is kept" for a divergence.
  std::string divergence_note() const;
  // Fails on a tensor in the resume file that this run does not save.
  void check_resume_tensors(const SafeTensorsFile& file, const std::string& path) const;
};

// The Trainer for a configuration: the constrained trainer
// (optim/constrained_trainer.h) when config.constraint is enabled, else the
// plain one. Trainer::resume builds its run with it.
std::unique_ptr<Trainer> make_trainer(const TrainConfig& config, std::string out_dir);

}  // namespace tapir
