// The naive reference kernels (engine/reference.h) of the matrix product,
// the norms and the softmax family, each formula written above its loops,
// summed in double; and the switch that sends TAPIR_KERNEL to them.
#include "engine/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "engine/cpu/reference_common.h"
#include "engine/kernels.h"

namespace tapir {

namespace detail {
std::atomic<int> g_cpu_kernels{0};
}  // namespace detail

CpuKernels parse_cpu_kernels(std::string_view word, const char* what) {
  for (const auto& [kernels, name] : Names<CpuKernels>::table)
    if (word == name) return kernels;
  fail(what, ": expected ", names_of<CpuKernels>(" or "), ", got '", word, "'");
}

CpuKernels cpu_kernels() {
  const int known = detail::g_cpu_kernels.load(std::memory_order_relaxed);
  if (known != 0) return CpuKernels(known - 1);
  const char* given = std::getenv("TAPIR_KERNELS");
  const CpuKernels kernels = given ? parse_cpu_kernels(given, "TAPIR_KERNELS") : CpuKernels::tuned;
  detail::g_cpu_kernels.store(int(kernels) + 1, std::memory_order_relaxed);
  return kernels;
}

void set_cpu_kernels(CpuKernels kernels) {
  detail::g_cpu_kernels.store(int(kernels) + 1, std::memory_order_relaxed);
}

}  // namespace tapir

namespace tapir::reference {

using detail::softmax_row;
using detail::store;

// C (M, N) = alpha * sum_k op(A)[m][k] op(B)[k][n] + beta * C, with
// op(A)[m][k] = A[k][m] when trans_a, op(B)[k][n] = B[n][k] when trans_b.
// With beta = 0, C's old contents are not read (as BLAS).
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          const T* B, T beta, T* C) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += double(trans_a ? A[k * M + m] : A[m * K + k]) *
             double(trans_b ? B[n * K + k] : B[k * N + n]);
      const double old = beta == T(0) ? 0.0 : double(beta) * double(C[m * N + n]);
      C[m * N + n] = static_cast<T>(double(alpha) * s + old);
    }
}

// mean = sum(x) / C, var = sum((x - mean)^2) / C, rstd = 1 / sqrt(var + eps),
// y = (x - mean) * rstd * w + b (b null: no bias).
template <typename T>
void layernorm_forward(const T* x, const T* w, const T* b, int64_t rows, int64_t C, T eps, T* y,
                       T* mean, T* rstd) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * C;
    double m = 0, v = 0;
    for (int64_t i = 0; i < C; ++i) m += double(xr[i]);
    m /= double(C);
    for (int64_t i = 0; i < C; ++i) v += (double(xr[i]) - m) * (double(xr[i]) - m);
    const double s = 1.0 / std::sqrt(v / double(C) + double(eps));
    for (int64_t i = 0; i < C; ++i)
      y[r * C + i] =
          static_cast<T>((double(xr[i]) - m) * s * double(w[i]) + (b ? double(b[i]) : 0.0));
    mean[r] = static_cast<T>(m);
    rstd[r] = static_cast<T>(s);
  }
}

// xhat = (x - mean) rstd, g = d_y w: d_x = rstd (g - mean(g) - xhat mean(g xhat));
// d_w += sum over rows of d_y xhat, d_b += sum over rows of d_y.
template <typename T>
void layernorm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* d_y,
                        int64_t rows, int64_t C, T* d_x, T* d_w, T* d_b, bool accumulate_x) {
  std::vector<double> gw(C, 0.0), gb(C, 0.0), xhat(C), g(C);
  for (int64_t r = 0; r < rows; ++r) {
    double g_mean = 0, gx_mean = 0;
    for (int64_t i = 0; i < C; ++i) {
      xhat[i] = (double(x[r * C + i]) - double(mean[r])) * double(rstd[r]);
      g[i] = double(d_y[r * C + i]) * double(w[i]);
      g_mean += g[i] / double(C);
      gx_mean += g[i] * xhat[i] / double(C);
      gw[i] += double(d_y[r * C + i]) * xhat[i];
      gb[i] += double(d_y[r * C + i]);
    }
    if (d_x)
      for (int64_t i = 0; i < C; ++i)
        store(accumulate_x, d_x[r * C + i], double(rstd[r]) * (g[i] - g_mean - xhat[i] * gx_mean));
  }
  for (int64_t i = 0; i < C; ++i) {
    if (d_w) store(true, d_w[i], gw[i]);
    if (d_b) store(true, d_b[i], gb[i]);
  }
}

// rstd = 1 / sqrt(sum(x^2) / C + eps), y = x rstd w (w null: w = 1).
template <typename T>
void rmsnorm_forward(const T* x, const T* w, int64_t rows, int64_t C, T eps, T* y, T* rstd) {
  for (int64_t r = 0; r < rows; ++r) {
    double sq = 0;
    for (int64_t i = 0; i < C; ++i) sq += double(x[r * C + i]) * double(x[r * C + i]);
    const double s = 1.0 / std::sqrt(sq / double(C) + double(eps));
    for (int64_t i = 0; i < C; ++i)
      y[r * C + i] = static_cast<T>(double(x[r * C + i]) * s * (w ? double(w[i]) : 1.0));
    rstd[r] = static_cast<T>(s);
  }
}

// xhat = x rstd, g = d_y w: d_x = rstd (g - xhat mean(g xhat)); d_w += sum over rows of d_y xhat.
template <typename T>
void rmsnorm_backward(const T* x, const T* w, const T* rstd, const T* d_y, int64_t rows, int64_t C,
                      T* d_x, T* d_w, bool accumulate_x) {
  std::vector<double> gw(C, 0.0), xhat(C), g(C);
  for (int64_t r = 0; r < rows; ++r) {
    double gx_mean = 0;
    for (int64_t i = 0; i < C; ++i) {
      xhat[i] = double(x[r * C + i]) * double(rstd[r]);
      g[i] = double(d_y[r * C + i]) * (w ? double(w[i]) : 1.0);
      gx_mean += g[i] * xhat[i] / double(C);
      gw[i] += double(d_y[r * C + i]) * xhat[i];
    }
    if (d_x)
      for (int64_t i = 0; i < C; ++i)
        store(accumulate_x, d_x[r * C + i], double(rstd[r]) * (g[i] - xhat[i] * gx_mean));
  }
  if (d_w)
    for (int64_t i = 0; i < C; ++i) store(true, d_w[i], gw[i]);
}

// y_i = exp(x_i - max x) / sum_j exp(x_j - max x), per row of n.
template <typename T>
void softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<double> p = softmax_row(x + r * n, n);
    for (int64_t i = 0; i < n; ++i) y[r * n + i] = static_cast<T>(p[i]);
  }
}

// d_x += y (d_y - sum_j d_y_j y_j).
template <typename T>
void softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  for (int64_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += double(d_y[r * n + i]) * double(y[r * n + i]);
    for (int64_t i = 0; i < n; ++i)
      store(true, d_x[r * n + i], double(y[r * n + i]) * (double(d_y[r * n + i]) - dot));
  }
}

// y_i = x_i - max x - log sum_j exp(x_j - max x).
template <typename T>
void log_softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  for (int64_t r = 0; r < rows; ++r) {
    double m = x[r * n];
    for (int64_t i = 1; i < n; ++i) m = std::max(m, double(x[r * n + i]));
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(double(x[r * n + i]) - m);
    for (int64_t i = 0; i < n; ++i)
      y[r * n + i] = static_cast<T>(double(x[r * n + i]) - m - std::log(sum));
  }
}

// d_x += d_y - exp(y) sum_j d_y_j.
template <typename T>
void log_softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (int64_t i = 0; i < n; ++i) total += double(d_y[r * n + i]);
    for (int64_t i = 0; i < n; ++i)
      store(true, d_x[r * n + i], double(d_y[r * n + i]) - std::exp(double(y[r * n + i])) * total);
  }
}

// probs = softmax(logits), row_losses_r = -log probs[r][target_r] (as logsumexp - logit),
// loss = sum(mask row_losses) / sum(mask), 0 when sum(mask) = 0; returns sum(mask).
template <typename T>
T cross_entropy_forward(const T* logits, const int32_t* targets, const T* mask, int64_t rows,
                        int64_t V, T* probs, T* row_losses, T* loss) {
  double total = 0, count = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = logits + r * V;
    const std::vector<double> p = softmax_row(x, V);
    for (int64_t i = 0; i < V; ++i) probs[r * V + i] = static_cast<T>(p[i]);
    double m = x[0], sum = 0;  // -log p[target] = logsumexp(x) - x[target]
    for (int64_t i = 1; i < V; ++i) m = std::max(m, double(x[i]));
    for (int64_t i = 0; i < V; ++i) sum += std::exp(double(x[i]) - m);
    const double row_loss = m + std::log(sum) - double(x[targets[r]]);
    row_losses[r] = static_cast<T>(row_loss);
    const double weight = mask ? double(mask[r]) : 1.0;
    total += weight * row_loss;
    count += weight;
  }
  *loss = static_cast<T>(count > 0 ? total / count : 0.0);
  return static_cast<T>(count);
}

// d_logits += mask_r d_loss_over_count (probs - onehot(target_r)).
template <typename T>
void cross_entropy_backward(const T* probs, const int32_t* targets, const T* mask, int64_t rows,
                            int64_t V, T d_loss_over_count, T* d_logits) {
  for (int64_t r = 0; r < rows; ++r) {
    const double scale = (mask ? double(mask[r]) : 1.0) * double(d_loss_over_count);
    for (int64_t i = 0; i < V; ++i)
      store(true, d_logits[r * V + i],
            scale * (double(probs[r * V + i]) - (i == targets[r] ? 1.0 : 0.0)));
  }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(gemm);
TAPIR_INSTANTIATE_FLOAT_KERNEL(layernorm_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(layernorm_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rmsnorm_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rmsnorm_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(softmax_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(softmax_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(log_softmax_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(log_softmax_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(cross_entropy_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(cross_entropy_backward);

}  // namespace tapir::reference
