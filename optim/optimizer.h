// Optimizers: SGD (momentum, Nesterov) and Adam / AdamW over a list of
// Parameters, with fused per-element kernels (engine/cpu/optimizer_kernels.cpp).
// Sits above nn/ (it updates Parameters) and below the training loop.
//
// Parameters. Frozen parameters (Parameter::frozen) are left out when the
// optimizer is built, and a parameter frozen later is skipped by step(): they
// never change and hold no optimizer state. Every trained parameter must be
// f32 with a gradient buffer.
//
// Weight decay applies only to parameters with decay == true. The module sets
// that flag when it registers a parameter: weight matrices decay; biases, norm
// gains and embeddings do not. For the others step() passes weight decay 0.
//
// Resuming. The state an optimizer keeps (moments, velocities) lives in
// HeapTensors owned by the optimizer, one per parameter, allocated zeroed at
// construction. state_tensors() names views of them, so a resume file saves
// them and loads them back by copying into the same views; steps() (the
// number of updates made, which sets Adam's bias correction) is saved beside
// them and restored with set_steps().
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/names.h"
#include "engine/tensor.h"
#include "nn/module.h"

namespace tapir {

// The optimizers make_optimizer builds: SGD, Adam with L2 decay, or AdamW
// with decoupled decay.
enum class OptimizerKind { sgd, adam, adamw };
template <>
struct Names<OptimizerKind> {
  static constexpr const char* what = "optimizer";
  static constexpr std::pair<OptimizerKind, const char*> table[] = {
      {OptimizerKind::sgd, "sgd"}, {OptimizerKind::adam, "adam"}, {OptimizerKind::adamw, "adamw"}};
};

// A named view of optimizer-owned memory, e.g. "adam.m.blocks.0.mlp.fc.weight".
struct StateTensor {
  std::string name;
  Tensor tensor;
  // Whether every value is >= 0 in any state a run can reach (Adam's second
  // moment); a resume file holding a negative one is refused.
  bool non_negative = false;
};

class Optimizer {
 public:
  explicit Optimizer(std::vector<Parameter*> params);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every trained parameter from its current gradient, with
  // learning rate lr; then steps() grows by one. Gradients are left as they
  // are (call zero_grad() before the next backward).
  virtual void step(double lr) = 0;
  // Zeroes the gradient of every trained parameter.
  void zero_grad();

  int64_t steps() const { return steps_; }
  void set_steps(int64_t steps);

  // Named views of all internal state, in parameter order.
  virtual std::vector<StateTensor> state_tensors() = 0;
  // The trained (non-frozen) parameters, in the order given.
  const std::vector<Parameter*>& params() const { return params_; }

 protected:
  // Allocates one zeroed f32 tensor shaped like each trained parameter.
  std::vector<HeapTensor> make_state() const;
  // Whether step() updates params_[i] (false once it has been frozen).
  bool trains(size_t i) const { return !params_[i]->frozen; }
  // Counts the update that step() is making and returns its 1-based number.
  int64_t count_step() { return ++steps_; }

 private:
  std::vector<Parameter*> params_;
  int64_t steps_ = 0;
};

// Stochastic gradient descent as in PyTorch's torch.optim.SGD (no dampening):
//   g' = g + wd * w;  v = momentum * v + g';
//   w -= lr * (nesterov ? g' + momentum * v : v)     (w -= lr * g' when momentum == 0).
// State: "sgd.velocity.<param>" per parameter when momentum != 0, none otherwise.
class SGD : public Optimizer {
 public:
  SGD(std::vector<Parameter*> params, double momentum = 0.0, double weight_decay = 0.0,
      bool nesterov = false);
  void step(double lr) override;
  std::vector<StateTensor> state_tensors() override;

 private:
  double momentum_;
  double weight_decay_;
  bool nesterov_;
  std::vector<HeapTensor> velocity_;  // empty when momentum == 0
};

// Adam (Kingma & Ba) with bias correction. decoupled = false adds L2 decay to
// the gradient (g' = g + wd * w); decoupled = true is AdamW (Loshchilov &
// Hutter): w *= 1 - lr * wd before the Adam step. With t = steps() after the
// increment:
//   m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2;
//   w -= lr * m_hat / (sqrt(v_hat) + eps),  m_hat = m / (1 - b1^t),  v_hat = v / (1 - b2^t).
// State: "adam.m.<param>" and "adam.v.<param>" per parameter.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Parameter*> params, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
       double weight_decay = 0.0, bool decoupled = false);
  void step(double lr) override;
  std::vector<StateTensor> state_tensors() override;

 private:
  double beta1_;
  double beta2_;
  double eps_;
  double weight_decay_;
  bool decoupled_;
  std::vector<HeapTensor> m_;
  std::vector<HeapTensor> v_;
};

// Hyperparameters of every optimizer; each reads the fields it uses
// (sgd: momentum, nesterov, weight_decay; adam/adamw: beta1, beta2, eps,
// weight_decay).
struct OptimizerConfig {
  // Written and read as its name (Names<OptimizerKind>): "sgd", "adam", "adamw".
  OptimizerKind kind = OptimizerKind::adamw;
  double beta1 = 0.9;
  double beta2 = 0.98;
  double eps = 1e-8;
  double weight_decay = 0.1;
  double momentum = 0.9;
  bool nesterov = false;

  // Every field in its range, whichever optimizer `kind` names (a value
  // given for another optimizer is still a mistake). `flag_prefix` starts
  // each flag's name in the message: "" (--beta1) or "arch-" (--arch-beta1).
  void validate(const std::string& flag_prefix = "") const;
};

// The optimizer config.kind names, over `params`.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config,
                                          std::vector<Parameter*> params);

}  // namespace tapir
