// The naive reference kernels (engine/reference.h) of causal attention:
// softmax and score-spline attention from the T x T scores of each (batch,
// head) pair, and the feature-kernel attention from its definition as a
// ratio of sums over j <= i (the tuned kernel keeps running sums instead).
// Summed in double.
#include <cmath>
#include <vector>

#include "engine/cpu/reference_common.h"
#include "engine/kernel_formulas.h"
#include "engine/kernels.h"
#include "engine/reference.h"

namespace tapir::reference {

using detail::locate;
using detail::spline_at;
using detail::spline_slope;
using detail::SplinePoint;
using detail::store;

namespace {

// Where element d of head h of part (0 q, 1 k, 2 v) of row (b, t) sits in
// qkv (B, T, 3C).
struct QkvAt {
  int64_t T_len, C, D;
  int64_t operator()(int64_t b, int64_t t, int64_t part, int64_t h, int64_t d) const {
    return (b * T_len + t) * 3 * C + part * C + h * D + d;
  }
};

// The score function g of one head: a linear spline, or none (the identity).
template <typename T>
struct Score {
  const T* values;  // null: g(s) = s
  const SplineGrid* grid;
  double value(double s) const { return values ? spline_at(values, locate(s, *grid)) : s; }
};

// Pair (b, h)'s scores s (T, T) and probabilities p (T, T), 0 above the
// diagonal: s_ij = q_i . k_j / sqrt(D) - slope (i - j) for j <= i, and
// p_i = softmax over j <= i of g(s_ij).
template <typename T>
void pair_scores(const T* qkv, const QkvAt& at, int64_t b, int64_t h, double slope,
                 const Score<T>& g, std::vector<double>& s, std::vector<double>& p) {
  const int64_t T_len = at.T_len, D = at.D;
  s.assign(static_cast<size_t>(T_len * T_len), 0.0);
  p.assign(static_cast<size_t>(T_len * T_len), 0.0);
  std::vector<double> row(static_cast<size_t>(T_len));
  for (int64_t i = 0; i < T_len; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < D; ++d)
        dot += double(qkv[at(b, i, 0, h, d)]) * double(qkv[at(b, j, 1, h, d)]);
      s[i * T_len + j] = dot / std::sqrt(double(D)) - slope * double(i - j);
      row[j] = g.value(s[i * T_len + j]);
    }
    const std::vector<double> pr = detail::softmax_row(row.data(), i + 1);
    for (int64_t j = 0; j <= i; ++j) p[i * T_len + j] = pr[j];
  }
}

// The forward of both: out_i = sum_j p_ij v_j; scores and probs kept when
// not null.
template <typename T>
void forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H, const T* slopes,
             const T* g_values, const SplineGrid* grid, bool per_head, T* scores, T* probs,
             T* out) {
  const QkvAt at{T_len, C, C / H};
  const int64_t D = C / H, TT = T_len * T_len;
  std::vector<double> s, p;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const Score<T> g{g_values ? g_values + (per_head ? h * grid->knots() : 0) : nullptr, grid};
      pair_scores(qkv, at, b, h, slopes ? double(slopes[h]) : 0.0, g, s, p);
      for (int64_t e = 0; e < TT; ++e) {
        if (probs) probs[(b * H + h) * TT + e] = static_cast<T>(p[e]);
        if (scores) scores[(b * H + h) * TT + e] = static_cast<T>(s[e]);
      }
      for (int64_t i = 0; i < T_len; ++i)
        for (int64_t d = 0; d < D; ++d) {
          double sum = 0;
          for (int64_t j = 0; j <= i; ++j) sum += p[i * T_len + j] * double(qkv[at(b, j, 2, h, d)]);
          out[(b * T_len + i) * C + h * D + d] = static_cast<T>(sum);
        }
    }
}

// The backward of both. With dp_ij = do_i . v_j:
//   dv_j = sum_i p_ij do_i,   dg_ij = p_ij (dp_ij - sum_l p_il dp_il),
//   ds_ij = g'(s_ij) dg_ij (dg_ij itself without g), the knots of g get
//   dg_ij split by the interpolation weights (1 - t, t),
//   dq_i = sum_j ds_ij k_j / sqrt(D),   dk_j = sum_i ds_ij q_i / sqrt(D).
// The ALiBi bias is a constant: it passes no gradient. Kept scores and
// probs are used as given; without them they are recomputed.
template <typename T>
void backward(const T* qkv, const T* slopes, const T* scores, const T* probs, const T* d_out,
              int64_t B, int64_t T_len, int64_t C, int64_t H, const T* g_values,
              const SplineGrid* grid, bool per_head, T* d_qkv, T* d_g_values, bool accumulate) {
  const QkvAt at{T_len, C, C / H};
  const int64_t D = C / H, TT = T_len * T_len;
  const double scale = 1.0 / std::sqrt(double(D));
  std::vector<double> grad(static_cast<size_t>(B * T_len * 3 * C), 0.0);
  std::vector<double> knots(g_values ? static_cast<size_t>((per_head ? H : 1) * grid->knots()) : 0,
                            0.0);
  std::vector<double> s, p;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t row_of_g = per_head ? h : 0;
      const Score<T> g{g_values ? g_values + row_of_g * grid->knots() : nullptr, grid};
      if (probs) {
        s.assign(static_cast<size_t>(TT), 0.0);
        p.assign(static_cast<size_t>(TT), 0.0);
        for (int64_t e = 0; e < TT; ++e) {
          p[e] = double(probs[(b * H + h) * TT + e]);
          if (scores) s[e] = double(scores[(b * H + h) * TT + e]);
        }
      } else {
        pair_scores(qkv, at, b, h, slopes ? double(slopes[h]) : 0.0, g, s, p);
      }
      auto d_o = [&](int64_t i, int64_t d) {
        return double(d_out[(b * T_len + i) * C + h * D + d]);
      };
      for (int64_t i = 0; i < T_len; ++i) {
        std::vector<double> dp(static_cast<size_t>(i + 1), 0.0);
        double dot = 0;  // sum_l p_il dp_il
        for (int64_t j = 0; j <= i; ++j) {
          for (int64_t d = 0; d < D; ++d) {
            dp[j] += d_o(i, d) * double(qkv[at(b, j, 2, h, d)]);
            grad[at(b, j, 2, h, d)] += p[i * T_len + j] * d_o(i, d);  // dv_j
          }
          dot += p[i * T_len + j] * dp[j];
        }
        for (int64_t j = 0; j <= i; ++j) {
          const double dg = p[i * T_len + j] * (dp[j] - dot);
          double ds = dg;
          if (g.values) {
            const SplinePoint at_s = locate(s[i * T_len + j], *grid);
            ds = spline_slope(g.values, at_s, *grid) * dg;
            knots[row_of_g * grid->knots() + at_s.k] += (1 - at_s.t) * dg;
            knots[row_of_g * grid->knots() + at_s.k + 1] += at_s.t * dg;
          }
          for (int64_t d = 0; d < D; ++d) {
            grad[at(b, i, 0, h, d)] += ds * scale * double(qkv[at(b, j, 1, h, d)]);  // dq_i
            grad[at(b, j, 1, h, d)] += ds * scale * double(qkv[at(b, i, 0, h, d)]);  // dk_j
          }
        }
      }
    }
  if (d_qkv)
    for (size_t e = 0; e < grad.size(); ++e) store(accumulate, d_qkv[e], grad[e]);
  if (d_g_values)
    for (size_t e = 0; e < knots.size(); ++e) store(true, d_g_values[e], knots[e]);
}

// phi(x) = softplus(g(x)) + kFeatureEps of every q and k element of qkv
// (rows, 3C), in qkv's layout (the v part left 0): formed once, read by
// every pair.
template <typename T>
std::vector<double> feature_map(const T* qkv, int64_t rows, int64_t C, const T* g_values,
                                const SplineGrid& grid) {
  std::vector<double> phi(static_cast<size_t>(rows * 3 * C), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t e = r * 3 * C; e < r * 3 * C + 2 * C; ++e)
      phi[e] = softplus(spline_at(g_values, locate(double(qkv[e]), grid))) + kFeatureEps;
  return phi;
}

}  // namespace

// Per (b, h), j <= i: s_ij = q_i . k_j / sqrt(D) - slope_h (i - j), p_i = softmax_j(s_i),
// out_i = sum_j p_ij v_j. probs (B, H, T, T; 0 above the diagonal) may be null.
template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out) {
  forward<T>(qkv, B, T_len, C, H, slopes, nullptr, nullptr, false, nullptr, probs, out);
}

// dv_j = sum_i p_ij do_i, dp_ij = do_i . v_j, ds_ij = p_ij (dp_ij - sum_l p_il dp_il),
// dq_i = sum_j ds_ij k_j / sqrt(D), dk_j = sum_i ds_ij q_i / sqrt(D). probs null: p recomputed.
template <typename T>
void attention_backward(const T* qkv, const T* slopes, const T* probs, const T* d_out, int64_t B,
                        int64_t T_len, int64_t C, int64_t H, T* d_qkv, bool accumulate) {
  backward<T>(qkv, slopes, nullptr, probs, d_out, B, T_len, C, H, nullptr, nullptr, false, d_qkv,
              nullptr, accumulate);
}

// As attention_forward with p_i = softmax_j(g(s_ij)), g the linear spline
// g_values on grid (row h of (H, K) when per_head); scores keeps s.
template <typename T>
void score_spline_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                    const T* slopes, const T* g_values, const SplineGrid& grid,
                                    bool per_head, T* scores, T* probs, T* out) {
  forward(qkv, B, T_len, C, H, slopes, g_values, &grid, per_head, scores, probs, out);
}

// As attention_backward with ds_ij = g'(s_ij) dg_ij; d_g_values[k] += the
// sum of dg_ij times knot k's interpolation weight at s_ij.
template <typename T>
void score_spline_attention_backward(const T* qkv, const T* slopes, const T* scores, const T* probs,
                                     const T* d_out, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                     const T* g_values, const SplineGrid& grid, bool per_head,
                                     T* d_qkv, T* d_g_values, bool accumulate) {
  backward(qkv, slopes, scores, probs, d_out, B, T_len, C, H, g_values, &grid, per_head, d_qkv,
           d_g_values, accumulate);
}

// phi(x) = softplus(g(x)) + 1e-4 elementwise, a_ij = phi(q_i) . phi(k_j):
// out_i = sum_{j <= i} a_ij v_j / sum_{j <= i} a_ij; features = [phi(q) | phi(k)].
template <typename T>
void feature_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                               const T* g_values, const SplineGrid& grid, T* features, T* out) {
  const QkvAt at{T_len, C, C / H};
  const int64_t D = C / H;
  const std::vector<double> phi = feature_map(qkv, B * T_len, C, g_values, grid);
  for (int64_t r = 0; r < B * T_len; ++r)
    for (int64_t c = 0; c < C; ++c) {
      features[r * 2 * C + c] = static_cast<T>(phi[r * 3 * C + c]);
      features[r * 2 * C + C + c] = static_cast<T>(phi[r * 3 * C + C + c]);
    }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < T_len; ++i) {
        std::vector<double> num(static_cast<size_t>(D), 0.0);
        double den = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double a = 0;
          for (int64_t d = 0; d < D; ++d) a += phi[at(b, i, 0, h, d)] * phi[at(b, j, 1, h, d)];
          den += a;
          for (int64_t d = 0; d < D; ++d) num[d] += a * double(qkv[at(b, j, 2, h, d)]);
        }
        for (int64_t d = 0; d < D; ++d)
          out[(b * T_len + i) * C + h * D + d] = static_cast<T>(num[d] / den);
      }
}

// With den_i = sum_j a_ij and out_i as above:
//   da_ij = (do_i . v_j - do_i . out_i) / den_i,   dv_j += sum_i a_ij do_i / den_i,
//   dphi(q_i) = sum_j da_ij phi(k_j),   dphi(k_j) = sum_i da_ij phi(q_i),
//   dx += sigmoid(g(x)) g'(x) dphi(x), and the knots of g get sigmoid(g(x))
//   dphi(x) split by the interpolation weights. phi is formed again from qkv
//   (features and out are not read).
template <typename T>
void feature_attention_backward(const T* qkv, const T*, const T*, const T* d_out, int64_t B,
                                int64_t T_len, int64_t C, int64_t H, const T* g_values,
                                const SplineGrid& grid, T* d_qkv, T* d_g_values) {
  const QkvAt at{T_len, C, C / H};
  const int64_t D = C / H;
  const std::vector<double> phi = feature_map(qkv, B * T_len, C, g_values, grid);
  std::vector<double> grad(static_cast<size_t>(B * T_len * 3 * C), 0.0);
  std::vector<double> dphi(grad.size(), 0.0);  // d phi for the q and k parts, in qkv's layout
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < T_len; ++i) {
        std::vector<double> a(static_cast<size_t>(i + 1), 0.0), o(static_cast<size_t>(D), 0.0);
        double den = 0;
        for (int64_t j = 0; j <= i; ++j) {
          for (int64_t d = 0; d < D; ++d) a[j] += phi[at(b, i, 0, h, d)] * phi[at(b, j, 1, h, d)];
          den += a[j];
        }
        for (int64_t j = 0; j <= i; ++j)
          for (int64_t d = 0; d < D; ++d) o[d] += a[j] * double(qkv[at(b, j, 2, h, d)]) / den;
        double do_dot_o = 0;
        for (int64_t d = 0; d < D; ++d)
          do_dot_o += double(d_out[(b * T_len + i) * C + h * D + d]) * o[d];
        for (int64_t j = 0; j <= i; ++j) {
          double do_dot_v = 0;
          for (int64_t d = 0; d < D; ++d) {
            const double go = double(d_out[(b * T_len + i) * C + h * D + d]);
            do_dot_v += go * double(qkv[at(b, j, 2, h, d)]);
            grad[at(b, j, 2, h, d)] += a[j] * go / den;
          }
          const double da = (do_dot_v - do_dot_o) / den;
          for (int64_t d = 0; d < D; ++d) {
            dphi[at(b, i, 0, h, d)] += da * phi[at(b, j, 1, h, d)];
            dphi[at(b, j, 1, h, d)] += da * phi[at(b, i, 0, h, d)];
          }
        }
      }
  std::vector<double> knots(static_cast<size_t>(grid.knots()), 0.0);
  for (int64_t r = 0; r < B * T_len; ++r)
    for (int64_t e = r * 3 * C; e < r * 3 * C + 2 * C; ++e) {  // the q and k parts
      const SplinePoint s = locate(double(qkv[e]), grid);
      const double w = sigmoid(spline_at(g_values, s)) * dphi[e];
      grad[e] += w * spline_slope(g_values, s, grid);
      knots[s.k] += (1 - s.t) * w;
      knots[s.k + 1] += s.t * w;
    }
  if (d_qkv)
    for (size_t e = 0; e < grad.size(); ++e) store(true, d_qkv[e], grad[e]);
  if (d_g_values)
    for (size_t k = 0; k < knots.size(); ++k) store(true, d_g_values[k], knots[k]);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(feature_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(feature_attention_backward);

}  // namespace tapir::reference
