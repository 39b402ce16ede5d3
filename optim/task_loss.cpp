// The task loss for training and the per-position losses for evaluation
// (optim/task_loss.h).
#include "optim/task_loss.h"

#include <algorithm>
#include <cmath>

#include "autograd/ops.h"

namespace tapir {

Tensor task_loss(Tensor outputs, Tensor targets, Tensor mask) {
  if (targets.dtype() == DType::i32) return cross_entropy(outputs, targets, mask);
  TAPIR_CHECK(outputs.shape() == targets.shape() && outputs.rank() == 3 &&
                  mask.shape() == Shape({outputs.dim(0), outputs.dim(1)}),
              "mean squared error: outputs ", outputs.describe(), ", targets ", targets.describe(),
              " and mask ", mask.describe(), " do not fit");
  // The mask's weights, normalised on the host: the mask gets no gradient.
  Tensor weights = empty(mask.shape(), DType::f32, Device::cpu);
  const float* m = to_host(mask).host_data<float>();
  double total = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) total += m[i];
  for (int64_t i = 0; i < mask.numel(); ++i)
    weights.host_data<float>()[i] = total > 0 ? static_cast<float>(m[i] / total) : 0.0f;
  Tensor diff = sub(outputs, targets);
  return sum_all(mul(mean(mul(diff, diff), 2), to_device(weights, outputs.device())));
}

void position_losses(const float* logits, const int32_t* targets, const float* mask, int64_t rows,
                     int64_t V, float* losses) {
  for (int64_t r = 0; r < rows; ++r) {
    if (mask[r] == 0.0f) {
      losses[r] = 0.0f;
      continue;
    }
    const float* row = logits + r * V;
    const float mx = *std::max_element(row, row + V);
    double sum = 0;
    for (int64_t i = 0; i < V; ++i) sum += std::exp(double(row[i]) - mx);
    losses[r] = static_cast<float>(mx + std::log(sum) - row[targets[r]]);
  }
}

void batch_position_losses(const Task& task, const Batch& batch, const float* outputs,
                           std::vector<float>& losses) {
  const int64_t rows = batch.B * batch.T;
  losses.resize(static_cast<size_t>(rows));
  if (!task.is_regression())
    return position_losses(outputs, batch.targets.data(), batch.mask.data(), rows,
                           task.vocab().size(), losses.data());
  const int64_t n = batch.n;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    if (batch.mask[r] != 0.0f)
      for (int64_t k = 0; k < n; ++k) {
        const double d = double(outputs[r * n + k]) - double(batch.values[r * n + k]);
        sum += d * d;
      }
    losses[r] = static_cast<float>(sum / double(n));
  }
}

}  // namespace tapir
