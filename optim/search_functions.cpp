// The shared functions of a Stage I search and their D_arch gradient
// (optim/search_functions.h).
#include "optim/search_functions.h"

#include <algorithm>
#include <cmath>

namespace tapir {

std::vector<Spline*> splines_of(Transformer& model) {
  std::vector<Spline*> splines;
  for (const auto& f : model.learned_functions()) splines.push_back(f.spline);
  return splines;
}

SharedFunctions::SharedFunctions(const std::vector<Spline*>& initial, int models,
                                 const SearchConfig& config)
    : gradients_(static_cast<size_t>(models)),
      combine_(config.arch_grad),
      smoothness_(config.smoothness),
      amplitude_(config.amplitude) {
  for (Spline* spline : initial) {
    auto p = std::make_unique<Parameter>();
    Parameter& src = spline->values();
    p->name = src.name;
    p->value = HeapTensor(src.tensor().shape(), DType::f32, true);
    p->decay = false;
    copy_values(p->tensor(), src.tensor());  // the shared functions live on the host
    values_.push_back(std::move(p));
  }
  optimizer_ = make_optimizer(config.arch_optimizer, parameters());
}

std::vector<Parameter*> SharedFunctions::parameters() const {
  std::vector<Parameter*> out;
  for (auto& p : values_) out.push_back(p.get());
  return out;
}

void SharedFunctions::copy_into(const std::vector<Spline*>& splines) const {
  for (size_t k = 0; k < values_.size(); ++k)
    copy_values(splines[k]->values().tensor(), values_[k]->tensor());
}

double SharedFunctions::knot_abs_max() const {
  double most = 0;
  for (const auto& p : values_) {
    const float* v = p->tensor().host_data<float>();
    for (int64_t i = 0; i < p->tensor().numel(); ++i)
      most = std::max(most, std::fabs(double(v[i])));
  }
  return most;
}

void SharedFunctions::zero_grad() {
  for (auto& p : values_) p->value.zero_grad();
}

void SharedFunctions::take_gradient(int model, const std::vector<Spline*>& splines) {
  ArchGradient& slot = gradient(model);
  slot.resize(values_.size());
  for (size_t k = 0; k < values_.size(); ++k) {
    // The model's gradient, read on the host (a copy when the model is on cuda).
    const Tensor g = to_host(grad_view(splines[k]->values().tensor()));
    const float* src = g.host_data<float>();
    slot[k].assign(src, src + g.numel());
    splines[k]->values().value.zero_grad();
  }
}

void SharedFunctions::add_gradient(int model) {
  const ArchGradient& slot = gradient(model);
  for (size_t k = 0; k < values_.size(); ++k) {
    float* dst = values_[k]->tensor().host_grad<float>();
    const std::vector<float>& src = slot[k];
    for (size_t i = 0; i < src.size(); ++i) dst[i] += src[i];
  }
}

void SharedFunctions::update(int models, double lr) {
  if (combine_ == ArchGrad::mean)
    for (auto& p : values_) {
      float* g = p->tensor().host_grad<float>();
      for (int64_t i = 0; i < p->tensor().numel(); ++i) g[i] /= float(models);
    }
  if (smoothness_ > 0) add_smoothness_gradient();
  optimizer_->step(lr);
  if (amplitude_ > 0)
    for (auto& p : values_) {
      float* v = p->tensor().host_data<float>();
      const float a = static_cast<float>(amplitude_);
      for (int64_t i = 0; i < p->tensor().numel(); ++i) v[i] = std::clamp(v[i], -a, a);
    }
}

void SharedFunctions::add_smoothness_gradient() {
  // d/dv of lambda * sum_k (v[k-1] - 2 v[k] + v[k+1])^2, per row.
  const double lambda = smoothness_;
  for (auto& p : values_) {
    Tensor t = p->tensor();
    const int64_t K = t.shape().last(), rows = t.numel() / K;
    const float* v = t.host_data<float>();
    float* g = t.host_grad<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 1; k + 1 < K; ++k) {
        const double d2 = double(v[r * K + k - 1]) - 2.0 * v[r * K + k] + v[r * K + k + 1];
        const double c = 2.0 * lambda * d2;
        g[r * K + k - 1] += static_cast<float>(c);
        g[r * K + k] += static_cast<float>(-2.0 * c);
        g[r * K + k + 1] += static_cast<float>(c);
      }
  }
}

}  // namespace tapir
