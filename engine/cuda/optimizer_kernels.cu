// Optimizer update kernels on the device: fused SGD and Adam steps on f32
// parameters (one thread per element, the per-element steps of
// engine/kernel_formulas.h that the CPU runs too), and
// the deterministic sum of squares behind gradient-norm clipping: one block
// per fixed block of kSumBlock elements summed in double by a fixed tree,
// then the blocks' sums added in block order.
#include "engine/cuda/common.cuh"
#include "engine/kernel_formulas.h"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

constexpr int64_t kSumBlock = 1 << 12;

__global__ void __launch_bounds__(kThreads)
    sgd_plain_kernel(float* w, const float* g, int64_t n, float lr, float weight_decay) {
  TAPIR_GRID_STRIDE(i, n) {
    sgd_step(w[i], g[i], lr, weight_decay);
  }
}

__global__ void __launch_bounds__(kThreads)
    sgd_momentum_kernel(float* w, const float* g, float* velocity, int64_t n, float lr,
                        float momentum, float weight_decay, bool nesterov) {
  TAPIR_GRID_STRIDE(i, n) {
    sgd_momentum_step(w[i], g[i], velocity[i], lr, momentum, weight_decay, nesterov);
  }
}

__global__ void __launch_bounds__(kThreads)
    adam_kernel(float* w, const float* g, float* m, float* v, int64_t n, AdamScalars s) {
  TAPIR_GRID_STRIDE(i, n) {
    adam_step(s, w[i], g[i], m[i], v[i]);
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
  const AdamScalars s = adam_scalars(lr, beta1, beta2, eps, weight_decay, decoupled, step);
  if (n <= 0) return;
  adam_kernel<<<grid_for(n), kThreads, 0, stream()>>>(w, g, m, v, n, s);
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
