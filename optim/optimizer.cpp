#include "optim/optimizer.h"

#include <cmath>

#include "base/error.h"
#include "engine/dispatch.h"

namespace tapir {

Optimizer::Optimizer(std::vector<Parameter*> params) {
  for (Parameter* p : params) {
    TAPIR_CHECK(p != nullptr, "optimizer given a null parameter");
    if (p->frozen) continue;
    const Tensor t = p->tensor();
    TAPIR_CHECK(t.defined(), "parameter '", p->name, "' has no value");
    TAPIR_CHECK(t.dtype() == DType::f32, "optimizer needs f32 parameters; '", p->name, "' is ",
                t.describe());
    TAPIR_CHECK(t.has_grad(), "parameter '", p->name, "' has no gradient buffer");
    params_.push_back(p);
  }
}

void Optimizer::zero_grad() {
  for (Parameter* p : params_) p->value.zero_grad();
}

void Optimizer::set_steps(int64_t steps) {
  TAPIR_CHECK(steps >= 0, "optimizer step count must be >= 0, got ", steps);
  steps_ = steps;
}

std::vector<HeapTensor> Optimizer::make_state() const {
  std::vector<HeapTensor> state;
  state.reserve(params_.size());
  for (Parameter* p : params_)
    state.emplace_back(p->tensor().shape(), DType::f32, false, p->tensor().device());
  return state;
}

void OptimizerConfig::validate(const std::string& flag_prefix) const {
  const std::string p = flag_prefix;
  TAPIR_CHECK(beta1 >= 0 && beta1 < 1, p, "beta1 must be in [0, 1), got ", beta1);
  TAPIR_CHECK(beta2 >= 0 && beta2 < 1, p, "beta2 must be in [0, 1), got ", beta2);
  TAPIR_CHECK(eps >= 0 && std::isfinite(eps), p, "eps must be >= 0, got ", eps);
  TAPIR_CHECK(weight_decay >= 0 && std::isfinite(weight_decay), p,
              "weight-decay must be >= 0, got ", weight_decay);
  TAPIR_CHECK(momentum >= 0 && momentum < 1, p, "momentum must be in [0, 1), got ", momentum);
  TAPIR_CHECK(!nesterov || kind != OptimizerKind::sgd || momentum > 0, p,
              "nesterov needs momentum > 0");
}

// --- SGD -------------------------------------------------------------------------

SGD::SGD(std::vector<Parameter*> params, double momentum, double weight_decay, bool nesterov)
    : Optimizer(std::move(params)),
      momentum_(momentum),
      weight_decay_(weight_decay),
      nesterov_(nesterov) {
  TAPIR_CHECK(momentum >= 0.0 && momentum < 1.0, "sgd momentum must be in [0, 1), got ", momentum);
  TAPIR_CHECK(weight_decay >= 0.0, "sgd weight decay must be >= 0, got ", weight_decay);
  TAPIR_CHECK(!nesterov || momentum > 0.0, "sgd nesterov needs momentum > 0");
  if (momentum_ != 0.0) velocity_ = make_state();
}

void SGD::step(double lr) {
  count_step();
  const auto& ps = params();
  for (size_t i = 0; i < ps.size(); ++i) {
    if (!trains(i)) continue;
    const Tensor w = ps[i]->tensor();
    const double decay = ps[i]->decay ? weight_decay_ : 0.0;
    float* velocity = velocity_.empty() ? nullptr : velocity_[i].view().data<float>();
    TAPIR_KERNEL(w.device(), sgd_update, w.data<float>(), w.grad<float>(), velocity, w.numel(),
                 static_cast<float>(lr), static_cast<float>(momentum_), static_cast<float>(decay),
                 nesterov_);
  }
}

std::vector<StateTensor> SGD::state_tensors() {
  std::vector<StateTensor> out;
  for (size_t i = 0; i < velocity_.size(); ++i)
    out.push_back({"sgd.velocity." + params()[i]->name, velocity_[i].view()});
  return out;
}

// --- Adam ------------------------------------------------------------------------

Adam::Adam(std::vector<Parameter*> params, double beta1, double beta2, double eps,
           double weight_decay, bool decoupled)
    : Optimizer(std::move(params)),
      beta1_(beta1),
      beta2_(beta2),
      eps_(eps),
      weight_decay_(weight_decay),
      decoupled_(decoupled) {
  TAPIR_CHECK(beta1 >= 0.0 && beta1 < 1.0, "adam beta1 must be in [0, 1), got ", beta1);
  TAPIR_CHECK(beta2 >= 0.0 && beta2 < 1.0, "adam beta2 must be in [0, 1), got ", beta2);
  TAPIR_CHECK(eps >= 0.0, "adam eps must be >= 0, got ", eps);
  TAPIR_CHECK(weight_decay >= 0.0, "adam weight decay must be >= 0, got ", weight_decay);
  m_ = make_state();
  v_ = make_state();
}

void Adam::step(double lr) {
  const int64_t t = count_step();
  const auto& ps = params();
  for (size_t i = 0; i < ps.size(); ++i) {
    if (!trains(i)) continue;
    const Tensor w = ps[i]->tensor();
    const double decay = ps[i]->decay ? weight_decay_ : 0.0;
    TAPIR_KERNEL(w.device(), adam_update, w.data<float>(), w.grad<float>(),
                 m_[i].view().data<float>(), v_[i].view().data<float>(), w.numel(),
                 static_cast<float>(lr), static_cast<float>(beta1_), static_cast<float>(beta2_),
                 static_cast<float>(eps_), static_cast<float>(decay), decoupled_, t);
  }
}

std::vector<StateTensor> Adam::state_tensors() {
  std::vector<StateTensor> out;
  for (size_t i = 0; i < m_.size(); ++i) {
    out.push_back({"adam.m." + params()[i]->name, m_[i].view()});
    out.push_back({"adam.v." + params()[i]->name, v_[i].view(), /*non_negative=*/true});
  }
  return out;
}

// --- construction by name --------------------------------------------------------

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config,
                                          std::vector<Parameter*> params) {
  const OptimizerKind kind = config.kind;
  if (kind == OptimizerKind::sgd)
    return std::make_unique<SGD>(std::move(params), config.momentum, config.weight_decay,
                                 config.nesterov);
  return std::make_unique<Adam>(std::move(params), config.beta1, config.beta2, config.eps,
                                config.weight_decay, kind == OptimizerKind::adamw);
}

}  // namespace tapir
