// The engine self-check (lab/selfcheck.h).
#include "lab/selfcheck.h"

#include <cmath>
#include <vector>

#include "autograd/ops.h"
#include "engine/rng.h"

namespace tapir {

SelfcheckResult run_selfcheck(int steps, uint64_t seed,
                              const std::function<void(int, double)>& progress) {
  constexpr int64_t kPoints = 64, kHidden = 32;
  constexpr float kLearningRate = 0.1f;

  // Parameters live outside the step arena, with gradient buffers.
  Rng init(seed, 0);
  std::vector<HeapTensor> params;
  params.emplace_back(Shape{1, kHidden}, DType::f32, true);  // w1
  params.emplace_back(Shape{kHidden}, DType::f32, true);     // b1
  params.emplace_back(Shape{kHidden, 1}, DType::f32, true);  // w2
  params.emplace_back(Shape{1}, DType::f32, true);           // b2
  init.fill_normal<float>(params[0].view().host_data<float>(), kHidden, 0.0f, 1.0f);
  init.fill_normal<float>(params[2].view().host_data<float>(), kHidden, 0.0f,
                          1.0f / std::sqrt(32.0f));
  const Tensor w1 = params[0], b1 = params[1], w2 = params[2], b2 = params[3];

  // The data set: x on a regular grid, y = sin(3x).
  HeapTensor x_data(Shape{kPoints, 1}, DType::f32), y_data(Shape{kPoints, 1}, DType::f32);
  for (int64_t i = 0; i < kPoints; ++i) {
    const float x = -1.0f + 2.0f * static_cast<float>(i) / (kPoints - 1);
    x_data.view().host_data<float>()[i] = x;
    y_data.view().host_data<float>()[i] = std::sin(3.0f * x);
  }

  SelfcheckResult result;
  for (int step = 0; step <= steps; ++step) {
    for (auto& p : params) p.zero_grad();
    // forward: (64, 1) -> (64, 32) -> (64, 1), loss = mean((y_hat - y)^2)
    Tensor hidden = tapir::tanh(add(matmul(x_data, w1), b1));
    Tensor y_hat = add(matmul(hidden, w2), b2);
    Tensor err = sub(y_hat, y_data);
    Tensor loss = mean(reshape(mul(err, err), {kPoints}), 0);
    const double value = loss.item();
    if (step == 0) result.initial_loss = value;
    result.final_loss = value;
    if (progress && step % 500 == 0) progress(step, value);
    if (step == steps) {
      reset_step();
      break;
    }
    backward(loss);
    for (auto& p : params) {
      float* w = p.view().host_data<float>();
      const float* g = p.view().host_grad<float>();
      for (int64_t i = 0, n = p.view().numel(); i < n; ++i) w[i] -= kLearningRate * g[i];
    }
    reset_step();
  }
  result.steps = steps;
  return result;
}

}  // namespace tapir
