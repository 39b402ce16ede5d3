#include "optim/clip.h"

#include <cmath>

#include "engine/dispatch.h"

namespace tapir {

double global_grad_norm(const std::vector<Parameter*>& params) {
  double sum = 0.0;
  for (const Parameter* p : params) {
    if (!p->has_gradient()) continue;
    const Tensor t = p->tensor();
    sum += TAPIR_KERNEL(t.device(), sum_of_squares, t.grad<float>(), t.numel());
  }
  return std::sqrt(sum);
}

double clip_grad_norm(const std::vector<Parameter*>& params, double max_norm) {
  const double norm = global_grad_norm(params);
  if (max_norm <= 0.0 || !(norm > max_norm)) return norm;
  const float scale = static_cast<float>(max_norm / (norm + 1e-6));
  for (const Parameter* p : params) {
    if (!p->has_gradient()) continue;
    const Tensor t = p->tensor();
    float* g = t.grad<float>();
    TAPIR_KERNEL(t.device(), affine_forward<float>, g, t.numel(), scale, 0.0f, g);
  }
  return norm;
}

}  // namespace tapir
