// Optimizer update kernels on the device: fused SGD and Adam steps on f32
// parameters (one thread per element, the CPU's per-element float math), and
// the deterministic sum of squares behind gradient-norm clipping: one block
// per fixed block of kSumBlock elements summed in double by a fixed tree,
// then the blocks' sums added in block order.
#include <cmath>

#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

constexpr int64_t kSumBlock = 1 << 12;

__global__ void __launch_bounds__(kThreads)
    sgd_plain_kernel(float* w, const float* g, int64_t n, float lr, float weight_decay) {
  TAPIR_GRID_STRIDE(i, n) {
    w[i] -= lr * (g[i] + weight_decay * w[i]);
  }
}

__global__ void __launch_bounds__(kThreads)
    sgd_momentum_kernel(float* w, const float* g, float* velocity, int64_t n, float lr,
                        float momentum, float weight_decay, bool nesterov) {
  TAPIR_GRID_STRIDE(i, n) {
    const float grad = g[i] + weight_decay * w[i];
    const float v = momentum * velocity[i] + grad;
    velocity[i] = v;
    w[i] -= lr * (nesterov ? grad + momentum * v : v);
  }
}

__global__ void __launch_bounds__(kThreads)
    adam_kernel(float* w, const float* g, float* m, float* v, int64_t n, float step_size,
                float correction2_sqrt, float beta1, float beta2, float one_minus_beta1,
                float one_minus_beta2, float eps, float shrink, float l2) {
  TAPIR_GRID_STRIDE(i, n) {
    const float wi = w[i] * shrink;
    const float grad = g[i] + l2 * wi;
    const float mi = beta1 * m[i] + one_minus_beta1 * grad;
    const float vi = beta2 * v[i] + one_minus_beta2 * grad * grad;
    m[i] = mi;
    v[i] = vi;
    w[i] = wi - step_size * mi / (sqrtf(vi) / correction2_sqrt + eps);
  }
}

// Block b sums elements [b * kSumBlock, (b + 1) * kSumBlock) into partial[b].
__global__ void __launch_bounds__(kThreads)
    squares_blocks_kernel(const float* g, int64_t n, double* partial) {
  __shared__ double shared[32];
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const int64_t begin = b * kSumBlock, end = begin + kSumBlock < n ? begin + kSumBlock : n;
    double s = 0.0;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const double x = g[i];
      s += x * x;
    }
    s = block_sum(s, shared);
    if (threadIdx.x == 0) partial[b] = s;
  }
}

// One block: the blocks' sums, a fixed tree over fixed strides.
__global__ void __launch_bounds__(kMaxRowThreads)
    squares_total_kernel(const double* partial, int64_t blocks, double* total) {
  __shared__ double shared[32];
  double s = 0.0;
  for (int64_t b = threadIdx.x; b < blocks; b += blockDim.x) s += partial[b];
  s = block_sum(s, shared);
  if (threadIdx.x == 0) *total = s;
}

}  // namespace

void sgd_update(float* w, const float* g, float* velocity, int64_t n, float lr, float momentum,
                float weight_decay, bool nesterov) {
  if (momentum == 0.0f) {
    if (n <= 0) return;
    sgd_plain_kernel<<<grid_for(n), kThreads, 0, stream()>>>(w, g, n, lr, weight_decay);
    TAPIR_LAUNCH_CHECK("sgd_plain_kernel");
    return;
  }
  TAPIR_CHECK(velocity != nullptr, "sgd_update: momentum ", momentum, " needs a velocity buffer");
  if (n <= 0) return;
  sgd_momentum_kernel<<<grid_for(n), kThreads, 0, stream()>>>(w, g, velocity, n, lr, momentum,
                                                              weight_decay, nesterov);
  TAPIR_LAUNCH_CHECK("sgd_momentum_kernel");
}

void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1,
                 float beta2, float eps, float weight_decay, bool decoupled, int64_t step) {
  TAPIR_CHECK(step >= 1, "adam_update: step is 1-based, got ", step);
  // The scalars exactly as on the CPU (engine/cpu/optimizer_kernels.cpp).
  const double t = static_cast<double>(step);
  const double correction1 = 1.0 - std::pow(static_cast<double>(beta1), t);
  const double correction2 = 1.0 - std::pow(static_cast<double>(beta2), t);
  const float step_size = static_cast<float>(static_cast<double>(lr) / correction1);
  const float correction2_sqrt = static_cast<float>(std::sqrt(correction2));
  const float shrink = decoupled ? 1.0f - lr * weight_decay : 1.0f;
  const float l2 = decoupled ? 0.0f : weight_decay;
  if (n <= 0) return;
  adam_kernel<<<grid_for(n), kThreads, 0, stream()>>>(w, g, m, v, n, step_size, correction2_sqrt,
                                                      beta1, beta2, 1.0f - beta1, 1.0f - beta2, eps,
                                                      shrink, l2);
  TAPIR_LAUNCH_CHECK("adam_kernel");
}

double sum_of_squares(const float* g, int64_t n) {
  if (n <= 0) return 0.0;
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  Scratch<double> partial(blocks), total(1);
  squares_blocks_kernel<<<grid_rows(blocks), kThreads, 0, stream()>>>(g, n, partial.get());
  TAPIR_LAUNCH_CHECK("squares_blocks_kernel");
  squares_total_kernel<<<1, kMaxRowThreads, 0, stream()>>>(partial.get(), blocks, total.get());
  TAPIR_LAUNCH_CHECK("squares_total_kernel");
  double result = 0.0;
  copy_to_host(&result, total.get(), sizeof(double));
  return result;
}

}  // namespace tapir::cuda
