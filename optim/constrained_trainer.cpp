#include "optim/constrained_trainer.h"

#include <cmath>
#include <cstring>

#include "autograd/ops.h"
#include "optim/batch.h"
#include "optim/resume_codec.h"
#include "optim/task_loss.h"

namespace tapir {

std::unique_ptr<Trainer> make_trainer(const TrainConfig& config, std::string out_dir) {
  if (config.constraint.enabled())
    return std::make_unique<ConstrainedTrainer>(config, std::move(out_dir));
  return std::make_unique<Trainer>(config, std::move(out_dir));
}

std::vector<Tensor> layer_losses(Transformer& model, Tensor inputs, Tensor targets, Tensor mask) {
  std::vector<Tensor> hidden;
  Tensor outputs = model.forward(inputs, &hidden);
  std::vector<Tensor> f;
  for (size_t l = 0; l + 1 < hidden.size(); ++l)
    f.push_back(task_loss(model.readout(hidden[l]), targets, mask));
  f.push_back(task_loss(outputs, targets, mask));
  return f;
}

namespace {

std::vector<double> values_of(const std::vector<Tensor>& f) {
  std::vector<double> out;
  for (const Tensor& t : f) out.push_back(t.item());
  return out;
}

void add_into(std::vector<double>& sum, const std::vector<double>& v) {
  if (sum.size() != v.size()) sum.assign(v.size(), 0.0);
  for (size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
}

Json mean_array(const std::vector<double>& sum, int64_t count) {
  Json a = Json::array();
  for (double v : sum) a.push_back(count > 0 ? v / double(count) : 0.0);
  return a;
}

Json as_array(const std::vector<double>& v) {
  return mean_array(v, 1);
}

// One f64 value per layer; `non_negative` for the multipliers and slacks,
// which the dual and slack steps keep at or above 0.
void read_f64(const SafeTensorsFile& file, const std::string& name, std::vector<double>& out,
              bool non_negative) {
  const SafeTensorView& v = file.at(name);
  TAPIR_CHECK(v.dtype == DType::f64 && v.nbytes == out.size() * sizeof(double), file.label(),
              ": tensor '", name, "' should hold ", out.size(), " f64 values");
  std::memcpy(out.data(), v.data, v.nbytes);
  for (size_t l = 0; l < out.size(); ++l)
    TAPIR_CHECK(std::isfinite(out[l]) && (!non_negative || out[l] >= 0), file.label(), ": tensor '",
                name, "' holds ", out[l], " at element ", l, ", expected ",
                non_negative ? "a finite value >= 0" : "a finite value");
}

}  // namespace

ConstrainedTrainer::ConstrainedTrainer(const TrainConfig& config, std::string out_dir)
    : Trainer(config, std::move(out_dir)), cc_(config.constraint), dual_rng_(config.seed, 2) {
  TAPIR_CHECK(cc_.enabled(),
              "the constrained trainer needs --constraint descent or deep-supervision");
  const auto L = static_cast<size_t>(Trainer::config().model.layers);
  lambda_.assign(L, 0.0);
  if (cc_.resilient) slack_.assign(L, 0.0);
  pending_s_.assign(L, 0.0);
}

Tensor ConstrainedTrainer::compute_loss(Tensor inputs, Tensor targets, Tensor mask) {
  const std::vector<Tensor> f = layer_losses(model(), inputs, targets, mask);
  f_ = values_of(f);
  const std::vector<double> w =
      cc_.descent() ? lagrangian_weights(lambda_, cc_)
                    : deep_supervision_weights(static_cast<int64_t>(lambda_.size()), cc_.ds_weight);
  // With every lambda 0 the weights are 0, ..., 0, 1: the loss and its
  // gradient are exactly those of plain training.
  Tensor loss = affine(f.back(), w.back());
  for (size_t l = 0; l + 1 < f.size(); ++l) loss = add(loss, affine(f[l], w[l]));
  if (!cc_.descent() || !cc_.detach_previous) return loss;
  // The held right-hand sides enter the value (the Lagrangian) as a constant.
  double held = 0;
  for (size_t l = 1; l < f_.size(); ++l)
    held += lambda_[l - 1] * (1.0 - cc_.alpha_at(static_cast<int64_t>(l))) * f_[l - 1];
  return held == 0 ? loss : affine(loss, 1.0, -held);
}

std::vector<double> ConstrainedTrainer::dual_batch_constraints() {
  NoGrad no_grad;
  task().sample("train", cc_.dual_batch, dual_rng_, dual_batch_);
  if (config().shuffle_labels) dual_batch_.shuffle_labels(dual_rng_);
  const BatchTensors t = to_tensors(dual_batch_, device());
  const std::vector<double> f = values_of(layer_losses(model(), t.inputs, t.targets, t.mask));
  reset_step();
  return descent_constraints(f, cc_);
}

void ConstrainedTrainer::after_step(StepStats& /*stats*/) {
  const std::vector<double> s = descent_constraints(f_, cc_);
  if ((step_ - 1) % config().eval_every == 0) {  // the previous step was evaluated
    window_f_.clear();
    window_s_.clear();
    window_steps_ = 0;
  }
  add_into(window_f_, f_);
  add_into(window_s_, s);
  ++window_steps_;
  if (!cc_.descent()) return;  // deep supervision: fixed weights, no dual step
  if (cc_.dual_batch == 0) {
    add_into(pending_s_, s);
    ++pending_steps_;
  }
  if (step_ % cc_.dual_every != 0) return;
  std::vector<double> s_dual = cc_.dual_batch > 0 ? dual_batch_constraints() : pending_s_;
  if (cc_.dual_batch == 0)
    for (double& v : s_dual) v /= double(pending_steps_);
  pending_s_.assign(pending_s_.size(), 0.0);
  pending_steps_ = 0;
  // The slack is a primal variable: it moves with lambda held, then lambda
  // moves with the new slack (Hounie, Ribeiro, Chamon 2023, Algorithm 1).
  if (cc_.resilient) slack_step(slack_, lambda_, cc_.beta, cc_.slack_lr);
  dual_step(lambda_, s_dual, slack_, cc_.dual_lr);
}

void ConstrainedTrainer::save_state(std::vector<SafeTensorWrite>& tensors, Metadata& meta) const {
  const auto L = static_cast<int64_t>(lambda_.size());
  tensors.push_back({"constraint.lambda", DType::f64, {L}, lambda_.data()});
  if (cc_.resilient) tensors.push_back({"constraint.slack", DType::f64, {L}, slack_.data()});
  tensors.push_back({"constraint.pending_s", DType::f64, {L}, pending_s_.data()});
  rng_words_ = dual_rng_.state().to_words();
  tensors.push_back({"constraint.dual_rng",
                     DType::i32,
                     {static_cast<int64_t>(rng_words_.size())},
                     rng_words_.data()});
  meta.emplace_back("constraint_pending_steps", std::to_string(pending_steps_));
}

void ConstrainedTrainer::load_state(const SafeTensorsFile& file) {
  const std::string& path = file.label();
  read_f64(file, "constraint.lambda", lambda_, /*non_negative=*/true);
  if (cc_.resilient) read_f64(file, "constraint.slack", slack_, /*non_negative=*/true);
  read_f64(file, "constraint.pending_s", pending_s_, /*non_negative=*/false);
  read_rng_state(file, path, "constraint.dual_rng", dual_rng_);
  pending_steps_ = metadata_count(file, path, "constraint_pending_steps");
  // after_step counts the steps since the last dual step only when the dual
  // step uses the training batches, and starts again at every dual step.
  const int64_t expected = cc_.dual_batch == 0 ? step_ % cc_.dual_every : 0;
  TAPIR_CHECK(
      pending_steps_ == expected, path, ": metadata 'constraint_pending_steps' is ", pending_steps_,
      ", expected ", expected, " at step ", step_, " (dual step every ", cc_.dual_every,
      cc_.dual_batch == 0 ? " steps, on the training batches)" : " steps, on batches of its own)");
  for (size_t l = 0; expected == 0 && l < pending_s_.size(); ++l)
    TAPIR_CHECK(pending_s_[l] == 0, path, ": tensor 'constraint.pending_s' holds ", pending_s_[l],
                " at element ", l, ", expected 0 with no pending steps");
}

void ConstrainedTrainer::add_metrics(Json& line) const {
  line.set("lambda", as_array(lambda_));
  if (cc_.resilient) line.set("slack", as_array(slack_));
  line.set("train_layer_loss", mean_array(window_f_, window_steps_));
  line.set("train_constraint", mean_array(window_s_, window_steps_));
}

}  // namespace tapir
