// Optimizer update kernels: fused SGD and Adam steps on f32 parameters (the
// per-element steps shared with CUDA: engine/kernel_formulas.h), and the
// deterministic sum of squares behind gradient-norm clipping (each block's
// sum in lanes: engine/cpu/lanes.h). Called by optim/.
#include <algorithm>
#include <vector>

#include "base/error.h"
#include "engine/cpu/lanes.h"
#include "engine/kernel_formulas.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {
constexpr int64_t kGrain = 1 << 14;
// Block size of sum_of_squares: the unit whose partial sum is fixed, whatever
// the thread count.
constexpr int64_t kSumBlock = 1 << 12;
}  // namespace

void sgd_update(float* w, const float* g, float* velocity, int64_t n, float lr, float momentum,
                float weight_decay, bool nesterov) {
  if (momentum == 0.0f) {
    parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) sgd_step(w[i], g[i], lr, weight_decay);
    });
    return;
  }
  TAPIR_CHECK(velocity != nullptr, "sgd_update: momentum ", momentum, " needs a velocity buffer");
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      sgd_momentum_step(w[i], g[i], velocity[i], lr, momentum, weight_decay, nesterov);
  });
}

void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1,
                 float beta2, float eps, float weight_decay, bool decoupled, int64_t step) {
  TAPIR_CHECK(step >= 1, "adam_update: step is 1-based, got ", step);
  const AdamScalars scalars = adam_scalars(lr, beta1, beta2, eps, weight_decay, decoupled, step);
  // By value, and the arrays __restrict: a store through w, m or v could
  // otherwise be a store to a captured constant, which then is read again
  // for every element and keeps the loop from vectorising.
  parallel_for(n, kGrain, [=](int64_t i0, int64_t i1) {
    const AdamScalars s = scalars;
    float* __restrict pw = w;
    float* __restrict pm = m;
    float* __restrict pv = v;
    const float* __restrict pg = g;
    for (int64_t i = i0; i < i1; ++i) adam_step(s, pw[i], pg[i], pm[i], pv[i]);
  });
}

double sum_of_squares(const float* g, int64_t n) {
  if (n <= 0) return 0.0;
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  // Reused across calls so that a training step does not allocate.
  thread_local std::vector<double> partial;
  if (static_cast<int64_t>(partial.size()) < blocks) partial.resize(static_cast<size_t>(blocks));
  double* out = partial.data();
  parallel_for(blocks, 4, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const float* block = g + b * kSumBlock;
      const int64_t len = std::min(n, (b + 1) * kSumBlock) - b * kSumBlock;
      out[b] = lane_sum<double>(len, [block](int64_t i) {
        const double x = block[i];
        return x * x;
      });
    }
  });
  double total = 0.0;
  for (int64_t b = 0; b < blocks; ++b) total += out[b];
  return total;
}

}  // namespace tapir::cpu
