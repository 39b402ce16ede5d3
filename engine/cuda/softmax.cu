// Softmax, log-softmax and the fused softmax cross-entropy over the last
// axis: one block per row (blocks loop over rows), the row's max and sums by
// the fixed-order block reductions of common.cuh.
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

// The row's maximum, NaN ignored as in the CPU's `x > m ? x : m` (a row with
// a NaN gives NaN everywhere either way, through exp(NaN - m)).
template <typename T>
__device__ inline T row_max(const T* x, int64_t n, T* shared) {
  T m = T(-INFINITY);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) m = x[i] > m ? x[i] : m;
  return block_max(m, shared);
}

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    softmax_forward_kernel(const T* x, int64_t rows, int64_t n, T* y) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * n;
    T* py = y + r * n;
    const T m = row_max(px, n, shared);
    T sum = T(0);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      py[i] = exp(px[i] - m);
      sum += py[i];
    }
    const T inv = T(1) / block_sum(sum, shared);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) py[i] *= inv;
  }
}

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    softmax_backward_kernel(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* py = y + r * n;
    const T* g = d_y + r * n;
    T dot = T(0);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) dot += g[i] * py[i];
    dot = block_sum(dot, shared);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) d_x[r * n + i] += py[i] * (g[i] - dot);
  }
}

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    log_softmax_forward_kernel(const T* x, int64_t rows, int64_t n, T* y) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = x + r * n;
    const T m = row_max(px, n, shared);
    T sum = T(0);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += exp(px[i] - m);
    const T lse = m + log(block_sum(sum, shared));
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[r * n + i] = px[i] - lse;
  }
}

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    log_softmax_backward_kernel(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* g = d_y + r * n;
    T total = T(0);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) total += g[i];
    total = block_sum(total, shared);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      d_x[r * n + i] += g[i] - exp(y[r * n + i]) * total;
  }
}

template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    cross_entropy_rows_kernel(const T* logits, const int32_t* targets, int64_t rows, int64_t V,
                              T* probs, T* row_losses) {
  __shared__ T shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* px = logits + r * V;
    T* p = probs + r * V;
    const T mx = row_max(px, V, shared);
    T sum = T(0);
    for (int64_t i = threadIdx.x; i < V; i += blockDim.x) {
      p[i] = exp(px[i] - mx);
      sum += p[i];
    }
    sum = block_sum(sum, shared);
    const T inv = T(1) / sum;
    for (int64_t i = threadIdx.x; i < V; i += blockDim.x) p[i] *= inv;
    if (threadIdx.x == 0) row_losses[r] = mx + log(sum) - px[targets[r]];
  }
}

// One block: the masked mean over rows, a fixed tree over fixed strides.
// result[0] = loss, result[1] = count.
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    cross_entropy_mean_kernel(const T* row_losses, const T* mask, int64_t rows, T* loss,
                              T* count_out) {
  __shared__ T shared[32];
  T total = T(0), count = T(0);
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
    const T m = mask ? mask[r] : T(1);
    total += m * row_losses[r];
    count += m;
  }
  total = block_sum(total, shared);
  count = block_sum(count, shared);
  if (threadIdx.x == 0) {
    *loss = count > T(0) ? total / count : T(0);
    *count_out = count;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    cross_entropy_backward_kernel(const T* probs, const int32_t* targets, const T* mask,
                                  int64_t rows, int64_t V, T d_loss_over_count, T* d_logits) {
  TAPIR_GRID_STRIDE(idx, rows * V) {
    const int64_t r = idx / V, i = idx % V;
    const T scale = (mask ? mask[r] : T(1)) * d_loss_over_count;
    if (scale == T(0)) continue;
    // Two roundings, as on the CPU: += scale p, then -= scale at the target.
    T g = d_logits[idx] + scale * probs[idx];
    if (i == targets[r]) g -= scale;
    d_logits[idx] = g;
  }
}

}  // namespace

#define TAPIR_ROW_LAUNCH(kernel, rows, n, ...)                             \
  do {                                                                     \
    if ((rows) <= 0 || (n) <= 0) return;                                   \
    kernel<<<grid_rows(rows), row_threads(n), 0, stream()>>>(__VA_ARGS__); \
    TAPIR_LAUNCH_CHECK(#kernel);                                           \
  } while (0)

template <typename T>
void softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  TAPIR_ROW_LAUNCH(softmax_forward_kernel<T>, rows, n, x, rows, n, y);
}

template <typename T>
void softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  if (!d_x) return;
  TAPIR_ROW_LAUNCH(softmax_backward_kernel<T>, rows, n, y, d_y, rows, n, d_x);
}

template <typename T>
void log_softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  TAPIR_ROW_LAUNCH(log_softmax_forward_kernel<T>, rows, n, x, rows, n, y);
}

template <typename T>
void log_softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  if (!d_x) return;
  TAPIR_ROW_LAUNCH(log_softmax_backward_kernel<T>, rows, n, y, d_y, rows, n, d_x);
}

template <typename T>
T cross_entropy_forward(const T* logits, const int32_t* targets, const T* mask, int64_t rows,
                        int64_t V, T* probs, T* row_losses, T* loss) {
  if (rows > 0 && V > 0) {
    cross_entropy_rows_kernel<<<grid_rows(rows), row_threads(V), 0, stream()>>>(
        logits, targets, rows, V, probs, row_losses);
    TAPIR_LAUNCH_CHECK("cross_entropy_rows_kernel");
  }
  Scratch<T> count(1);
  cross_entropy_mean_kernel<<<1, kMaxRowThreads, 0, stream()>>>(
      row_losses, mask, rows > 0 ? rows : 0, loss, count.get());
  TAPIR_LAUNCH_CHECK("cross_entropy_mean_kernel");
  T host_count = T(0);
  copy_to_host(&host_count, count.get(), sizeof(T));
  return host_count;
}

template <typename T>
void cross_entropy_backward(const T* probs, const int32_t* targets, const T* mask, int64_t rows,
                            int64_t V, T d_loss_over_count, T* d_logits) {
  if (rows <= 0 || V <= 0 || !d_logits) return;
  cross_entropy_backward_kernel<<<grid_for(rows * V), kThreads, 0, stream()>>>(
      probs, targets, mask, rows, V, d_loss_over_count, d_logits);
  TAPIR_LAUNCH_CHECK("cross_entropy_backward_kernel");
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(softmax_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(softmax_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(log_softmax_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(log_softmax_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(cross_entropy_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(cross_entropy_backward);

}  // namespace tapir::cuda
