// Training under per-layer descent constraints (`tapir train --constraint
// descent`): the Trainer's loop with the Lagrangian as the loss and a dual
// step on the multipliers (and slacks) after each primal step. The
// arithmetic is in optim/constraints.h; docs/constraints.md describes the
// method, the flags and what is logged and saved.
#pragma once
#include <string>
#include <vector>

#include "optim/constraints.h"
#include "optim/trainer.h"

namespace tapir {

// f_0..f_L of one batch from one forward pass: task_loss of the shared
// readout of every hidden state (layer 0 the embeddings); the last is the
// model's own output, so f_L is the plain training loss.
std::vector<Tensor> layer_losses(Transformer& model, Tensor inputs, Tensor targets, Tensor mask);

class ConstrainedTrainer final : public Trainer {
 public:
  ConstrainedTrainer(const TrainConfig& config, std::string out_dir);

  // lambda_1..lambda_L and u_1..u_L (empty unless resilient).
  const std::vector<double>& multipliers() const { return lambda_; }
  const std::vector<double>& slacks() const { return slack_; }
  // f_0..f_L of the last training batch.
  const std::vector<double>& batch_layer_losses() const { return f_; }

 protected:
  // f_L + sum_l lambda_l s_l with lambda held constant.
  Tensor compute_loss(Tensor inputs, Tensor targets, Tensor mask) override;
  // The dual (and slack) step, every dual_every steps.
  void after_step(StepStats& stats) override;
  void save_state(std::vector<SafeTensorWrite>& tensors, Metadata& meta) const override;
  void load_state(const SafeTensorsFile& file) override;
  // lambda, slack, and the mean per-layer training loss and constraint value
  // over the steps since the last evaluation.
  void add_metrics(Json& line) const override;

 private:
  std::vector<double> dual_batch_constraints();

  ConstraintConfig cc_;
  std::vector<double> lambda_, slack_, f_;
  std::vector<double> pending_s_;  // sum of s over the steps since the last dual step
  int64_t pending_steps_ = 0;
  std::vector<double> window_f_, window_s_;  // sums since the last evaluation
  int64_t window_steps_ = 0;
  Rng dual_rng_;  // Rng(seed, 2): the batches of --dual-batch
  Batch dual_batch_;
  mutable std::vector<int32_t> rng_words_;  // storage for save_state
};

}  // namespace tapir
