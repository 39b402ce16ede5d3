// The naive reference kernels (engine/cpu/reference.h): each formula of its
// header comment written as plain loops, summed in double.
#include "engine/cpu/reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/kernels.h"

namespace tapir::reference {

namespace {

// A gradient's store: d = g, or d += g when accumulating.
template <typename T>
void store(bool accumulate, T& d, double g) {
  d = accumulate ? static_cast<T>(double(d) + g) : static_cast<T>(g);
}

// One row's softmax in double: p_i = exp(x_i - max x) / sum_j exp(x_j - max x).
template <typename T>
std::vector<double> softmax_row(const T* x, int64_t n) {
  double m = x[0];
  for (int64_t i = 1; i < n; ++i) m = std::max(m, double(x[i]));
  std::vector<double> p(n);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += p[i] = std::exp(double(x[i]) - m);
  for (int64_t i = 0; i < n; ++i) p[i] /= sum;
  return p;
}

// The causal probabilities of pair (b, h), (T, T) with 0 above the diagonal:
// p_i = softmax over j <= i of q_i . k_j / sqrt(D) - slope (i - j).
template <typename T>
std::vector<double> attention_probs(const T* qkv, int64_t b, int64_t h, int64_t T_len, int64_t C,
                                    int64_t D, double slope) {
  std::vector<double> p(T_len * T_len, 0.0), s(T_len);
  for (int64_t i = 0; i < T_len; ++i) {
    const T* q = qkv + (b * T_len + i) * 3 * C + h * D;
    for (int64_t j = 0; j <= i; ++j) {
      const T* k = qkv + (b * T_len + j) * 3 * C + C + h * D;
      double dot = 0;
      for (int64_t d = 0; d < D; ++d) dot += double(q[d]) * double(k[d]);
      s[j] = dot / std::sqrt(double(D)) - slope * double(i - j);
    }
    const std::vector<double> row = softmax_row(s.data(), i + 1);
    for (int64_t j = 0; j <= i; ++j) p[i * T_len + j] = row[j];
  }
  return p;
}

// Where x falls on the grid: interval k and position t in it, and whether x
// is outside [lo, hi] (where constant extrapolation holds the end value).
struct SplinePoint {
  int64_t k;
  double t;
  bool outside;
};
SplinePoint locate(double x, const SplineGrid& g) {
  const int64_t K = g.knots();
  const double u = (x - g.lo()) * double(K - 1) / (g.hi() - g.lo());
  const int64_t k = std::min(static_cast<int64_t>(std::max(std::floor(u), 0.0)), K - 2);
  double t = u - double(k);
  if (!g.linear()) t = std::min(std::max(t, 0.0), 1.0);
  return {k, t, x < g.lo() || x > g.hi()};
}

}  // namespace

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

template <typename T>
void softmax_forward(const T* x, int64_t rows, int64_t n, T* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<double> p = softmax_row(x + r * n, n);
    for (int64_t i = 0; i < n; ++i) y[r * n + i] = static_cast<T>(p[i]);
  }
}

template <typename T>
void softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  for (int64_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += double(d_y[r * n + i]) * double(y[r * n + i]);
    for (int64_t i = 0; i < n; ++i)
      store(true, d_x[r * n + i], double(y[r * n + i]) * (double(d_y[r * n + i]) - dot));
  }
}

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

template <typename T>
void log_softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x) {
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (int64_t i = 0; i < n; ++i) total += double(d_y[r * n + i]);
    for (int64_t i = 0; i < n; ++i)
      store(true, d_x[r * n + i], double(d_y[r * n + i]) - std::exp(double(y[r * n + i])) * total);
  }
}

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

template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out) {
  const int64_t D = C / H, TT = T_len * T_len;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const std::vector<double> p =
          attention_probs(qkv, b, h, T_len, C, D, slopes ? double(slopes[h]) : 0.0);
      if (probs)
        for (int64_t e = 0; e < TT; ++e) probs[(b * H + h) * TT + e] = static_cast<T>(p[e]);
      for (int64_t i = 0; i < T_len; ++i)
        for (int64_t d = 0; d < D; ++d) {
          double s = 0;
          for (int64_t j = 0; j <= i; ++j)
            s += p[i * T_len + j] * double(qkv[(b * T_len + j) * 3 * C + 2 * C + h * D + d]);
          out[(b * T_len + i) * C + h * D + d] = static_cast<T>(s);
        }
    }
}

template <typename T>
void attention_backward(const T* qkv, const T* slopes, const T* probs, const T* d_out, int64_t B,
                        int64_t T_len, int64_t C, int64_t H, T* d_qkv, bool accumulate) {
  const int64_t D = C / H, TT = T_len * T_len;
  const double scale = 1.0 / std::sqrt(double(D));
  std::vector<double> grad(B * T_len * 3 * C, 0.0);
  // Element d of head h of part (0 q, 1 k, 2 v) at (b, t), in qkv's layout.
  auto at = [&](int64_t b, int64_t t, int64_t part, int64_t h, int64_t d) {
    return (b * T_len + t) * 3 * C + part * C + h * D + d;
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<double> p(TT);
      if (probs)
        for (int64_t e = 0; e < TT; ++e) p[e] = double(probs[(b * H + h) * TT + e]);
      else
        p = attention_probs(qkv, b, h, T_len, C, D, slopes ? double(slopes[h]) : 0.0);
      auto d_o = [&](int64_t i, int64_t d) {
        return double(d_out[(b * T_len + i) * C + h * D + d]);
      };
      for (int64_t i = 0; i < T_len; ++i) {
        std::vector<double> dp(i + 1, 0.0);
        double dot = 0;  // sum_l p_il dp_il
        for (int64_t j = 0; j <= i; ++j) {
          for (int64_t d = 0; d < D; ++d) {
            dp[j] += d_o(i, d) * double(qkv[at(b, j, 2, h, d)]);
            grad[at(b, j, 2, h, d)] += p[i * T_len + j] * d_o(i, d);  // dv_j
          }
          dot += p[i * T_len + j] * dp[j];
        }
        for (int64_t j = 0; j <= i; ++j) {
          const double ds = p[i * T_len + j] * (dp[j] - dot) * scale;
          for (int64_t d = 0; d < D; ++d) {
            grad[at(b, i, 0, h, d)] += ds * double(qkv[at(b, j, 1, h, d)]);  // dq_i
            grad[at(b, j, 1, h, d)] += ds * double(qkv[at(b, i, 0, h, d)]);  // dk_j
          }
        }
      }
    }
  for (size_t e = 0; e < grad.size(); ++e) store(accumulate, d_qkv[e], grad[e]);
}

template <typename T>
void spline_forward(const T* x, int64_t n, const T* values, const SplineGrid& grid, T* out) {
  for (int64_t i = 0; i < n; ++i) {
    const SplinePoint s = locate(double(x[i]), grid);
    out[i] =
        static_cast<T>(double(values[s.k]) + s.t * (double(values[s.k + 1]) - double(values[s.k])));
  }
}

template <typename T>
void spline_backward(const T* x, int64_t n, const T* values, const SplineGrid& grid, const T* d_out,
                     T* d_x, T* d_values, bool accumulate_x) {
  std::vector<double> knots(grid.knots(), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const SplinePoint s = locate(double(x[i]), grid);
    const bool flat = s.outside && !grid.linear();
    const double slope = (double(values[s.k + 1]) - double(values[s.k])) * grid.inv_spacing();
    if (d_x) store(accumulate_x, d_x[i], flat ? 0.0 : slope * double(d_out[i]));
    knots[s.k] += (1 - s.t) * double(d_out[i]);
    knots[s.k + 1] += s.t * double(d_out[i]);
  }
  if (d_values)
    for (int64_t k = 0; k < grid.knots(); ++k) store(true, d_values[k], knots[k]);
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
TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_backward);

}  // namespace tapir::reference
