// Naive reference kernels: the plain maths of the tuned CPU kernels, one
// short loop nest each, for reading beside the tuned code and as a second
// oracle in tests/test_reference_kernels.cpp (nothing in the engine calls
// them). Each takes the same arguments as the tuned kernel of the same name
// (engine/kernel_list.inc) and follows the same store rules: a gradient is
// added to (+=), or written where the tuned kernel's accumulate flag is
// false (its old contents never read). Every sum runs in double, and the
// result is rounded to T once. No threads, no lanes, no BLAS, no Eigen.
#pragma once
#include <cstdint>

#include "engine/kernel_types.h"

namespace tapir::reference {

// C (M, N) = alpha * sum_k op(A)[m][k] op(B)[k][n] + beta * C, with
// op(A)[m][k] = A[k][m] when trans_a, op(B)[k][n] = B[n][k] when trans_b.
// With beta = 0, C's old contents are not read (as BLAS).
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          const T* B, T beta, T* C);

// mean = sum(x) / C, var = sum((x - mean)^2) / C, rstd = 1 / sqrt(var + eps),
// y = (x - mean) * rstd * w + b (b null: no bias).
template <typename T>
void layernorm_forward(const T* x, const T* w, const T* b, int64_t rows, int64_t C, T eps, T* y,
                       T* mean, T* rstd);
// xhat = (x - mean) rstd, g = d_y w: d_x = rstd (g - mean(g) - xhat mean(g xhat));
// d_w += sum over rows of d_y xhat, d_b += sum over rows of d_y.
template <typename T>
void layernorm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* d_y,
                        int64_t rows, int64_t C, T* d_x, T* d_w, T* d_b, bool accumulate_x = true);

// rstd = 1 / sqrt(sum(x^2) / C + eps), y = x rstd w (w null: w = 1).
template <typename T>
void rmsnorm_forward(const T* x, const T* w, int64_t rows, int64_t C, T eps, T* y, T* rstd);
// xhat = x rstd, g = d_y w: d_x = rstd (g - xhat mean(g xhat)); d_w += sum over rows of d_y xhat.
template <typename T>
void rmsnorm_backward(const T* x, const T* w, const T* rstd, const T* d_y, int64_t rows, int64_t C,
                      T* d_x, T* d_w, bool accumulate_x = true);

// y_i = exp(x_i - max x) / sum_j exp(x_j - max x), per row of n.
template <typename T>
void softmax_forward(const T* x, int64_t rows, int64_t n, T* y);
// d_x += y (d_y - sum_j d_y_j y_j).
template <typename T>
void softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x);
// y_i = x_i - max x - log sum_j exp(x_j - max x).
template <typename T>
void log_softmax_forward(const T* x, int64_t rows, int64_t n, T* y);
// d_x += d_y - exp(y) sum_j d_y_j.
template <typename T>
void log_softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x);
// probs = softmax(logits), row_losses_r = -log probs[r][target_r] (as logsumexp - logit),
// loss = sum(mask row_losses) / sum(mask), 0 when sum(mask) = 0; returns sum(mask).
template <typename T>
T cross_entropy_forward(const T* logits, const int32_t* targets, const T* mask, int64_t rows,
                        int64_t V, T* probs, T* row_losses, T* loss);
// d_logits += mask_r d_loss_over_count (probs - onehot(target_r)).
template <typename T>
void cross_entropy_backward(const T* probs, const int32_t* targets, const T* mask, int64_t rows,
                            int64_t V, T d_loss_over_count, T* d_logits);

// Per (b, h), j <= i: s_ij = q_i . k_j / sqrt(D) - slope_h (i - j), p_i = softmax_j(s_i),
// out_i = sum_j p_ij v_j. probs (B, H, T, T; 0 above the diagonal) may be null.
template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out);
// dv_j = sum_i p_ij do_i, dp_ij = do_i . v_j, ds_ij = p_ij (dp_ij - sum_l p_il dp_il),
// dq_i = sum_j ds_ij k_j / sqrt(D), dk_j = sum_i ds_ij q_i / sqrt(D). probs null: p recomputed.
template <typename T>
void attention_backward(const T* qkv, const T* slopes, const T* probs, const T* d_out, int64_t B,
                        int64_t T_len, int64_t C, int64_t H, T* d_qkv, bool accumulate = true);

// u = (x - lo) (K - 1) / (hi - lo), k = clamp(floor(u), 0, K - 2), t = u - k (clamped to
// [0, 1] with constant extrapolation): out = v[k] + t (v[k+1] - v[k]).
template <typename T>
void spline_forward(const T* x, int64_t n, const T* values, const SplineGrid& grid, T* out);
// d_x = (v[k+1] - v[k]) (K - 1) / (hi - lo) d_out (0 outside [lo, hi] when constant);
// d_values[k] += (1 - t) d_out, d_values[k+1] += t d_out: one plain scatter-add loop.
template <typename T>
void spline_backward(const T* x, int64_t n, const T* values, const SplineGrid& grid, const T* d_out,
                     T* d_x, T* d_values, bool accumulate_x = true);

}  // namespace tapir::reference
