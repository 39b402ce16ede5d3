// Softmax, log-softmax and the fused softmax cross-entropy, over the last axis.
// Softmax and cross-entropy rows exponentiate through Eigen (exp_minus_max).
#include <cmath>

#include "engine/cpu/eigen.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {
constexpr int64_t kRowGrain = 16;

template <typename T>
T row_max(const T* x, int64_t n) {
  T m = x[0];
  for (int64_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}
}  // namespace

template <typename T>
void softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  parallel_for(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* py = y + r * n;
      T sum = 0;
      exp_minus_max(x + r * n, n, py, &sum);
      const T inv = T(1) / sum;
      for (int64_t i = 0; i < n; ++i) py[i] *= inv;
    }
  });
}

// d_x = y * (d_y - sum(d_y * y))
template <typename T>
void softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  parallel_for(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* py = y + r * n;
      const T* g = d_y + r * n;
      const T dot = lane_dot(g, py, n);
      T* gx = d_x + r * n;
      for (int64_t i = 0; i < n; ++i) gx[i] += py[i] * (g[i] - dot);
    }
  });
}

template <typename T>
void log_softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  parallel_for(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* px = x + r * n;
      const T m = row_max(px, n);
      T sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += std::exp(px[i] - m);
      const T lse = m + std::log(sum);
      for (int64_t i = 0; i < n; ++i) y[r * n + i] = px[i] - lse;
    }
  });
}

// d_x = d_y - softmax(x) * sum(d_y), with softmax(x) = exp(y)
template <typename T>
void log_softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  parallel_for(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* g = d_y + r * n;
      const T total = lane_sum(g, n);
      for (int64_t i = 0; i < n; ++i) d_x[r * n + i] += g[i] - std::exp(y[r * n + i]) * total;
    }
  });
}

template <typename T>
T cross_entropy_forward(const T* logits, const int32_t* targets, const T* mask, int64_t rows,
                        int64_t V, T* probs, T* row_losses, T* loss) {
  parallel_for(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* px = logits + r * V;
      T* p = probs + r * V;
      T sum = 0;
      const T mx = exp_minus_max(px, V, p, &sum);
      const T inv = T(1) / sum;
      for (int64_t i = 0; i < V; ++i) p[i] *= inv;
      row_losses[r] = mx + std::log(sum) - px[targets[r]];
    }
  });
  // Sum in row order so the loss does not depend on the thread count.
  T total = 0, count = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T m = mask ? mask[r] : T(1);
    total += m * row_losses[r];
    count += m;
  }
  *loss = count > T(0) ? total / count : T(0);
  return count;
}

// d_logits += (probs - onehot(target)) * mask * d_loss / count
template <typename T>
void cross_entropy_backward(const T* probs, const int32_t* targets, const T* mask, int64_t rows,
                            int64_t V, T d_loss_over_count, T* d_logits) {
  parallel_for(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T scale = (mask ? mask[r] : T(1)) * d_loss_over_count;
      if (scale == T(0)) continue;
      const T* p = probs + r * V;
      T* g = d_logits + r * V;
      for (int64_t i = 0; i < V; ++i) g[i] += scale * p[i];
      g[targets[r]] -= scale;
    }
  });
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(softmax_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(softmax_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(log_softmax_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(log_softmax_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(cross_entropy_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(cross_entropy_backward);

}  // namespace tapir::cpu
