// CPU kernels: plain functions on raw pointers, forward and backward side by
// side (llm.c style). Shapes are passed explicitly; every array is row-major
// and contiguous. Backward kernels ACCUMULATE (+=) into gradient arrays, and a
// null gradient pointer means "not needed". T is float or double.
//
// Threading follows engine/threads.h: elementwise and row-wise kernels split
// rows with parallel_for; reductions across rows (bias and weight gradients,
// embedding scatter-add) run in a fixed order so results do not depend on the
// thread count.
#pragma once
#include <cstdint>

namespace tapir::cpu {

// --- elementwise ---------------------------------------------------------------
// Binary ops broadcast a suffix: a has n_a elements, b has n_b, and the larger
// is a whole number of repeats of the smaller (out has max(n_a, n_b)).
enum class BinaryOp { add, sub, mul, div };
template <typename T>
void binary_forward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, T* out);
template <typename T>
void binary_backward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, const T* d_out,
                     T* d_a, T* d_b);

enum class UnaryOp { exp, log, tanh, sqrt, relu, gelu };
template <typename T>
void unary_forward(UnaryOp op, const T* x, int64_t n, T* out);
// Uses x or out, whichever the derivative is cheaper from.
template <typename T>
void unary_backward(UnaryOp op, const T* x, const T* out, const T* d_out, int64_t n, T* d_x);

// out = a * scale + shift
template <typename T>
void affine_forward(const T* a, int64_t n, T scale, T shift, T* out);

// --- matrix products (BLAS) ----------------------------------------------------
// C (M, N) = alpha * op(A) op(B) + beta * C, op = optional transpose;
// A is (M, K) or (K, M) when trans_a, B is (K, N) or (N, K) when trans_b.
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          const T* B, T beta, T* C);

// --- reductions ----------------------------------------------------------------
// x seen as (outer, n, inner); out (outer, inner) = sum over n.
template <typename T>
void sum_axis_forward(const T* x, int64_t outer, int64_t n, int64_t inner, T* out);
template <typename T>
void sum_axis_backward(const T* d_out, int64_t outer, int64_t n, int64_t inner, T scale, T* d_x);
// x (rows, n) -> out (rows), argmax (rows): first index of the maximum.
template <typename T>
void max_last_forward(const T* x, int64_t rows, int64_t n, T* out, int32_t* argmax);
template <typename T>
void max_last_backward(const T* d_out, const int32_t* argmax, int64_t rows, int64_t n, T* d_x);

// --- softmax family (last axis, rows of n) -------------------------------------
template <typename T>
void softmax_forward(const T* x, int64_t rows, int64_t n, T* y);
template <typename T>
void softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x);
template <typename T>
void log_softmax_forward(const T* x, int64_t rows, int64_t n, T* y);
template <typename T>
void log_softmax_backward(const T* y, const T* d_y, int64_t rows, int64_t n, T* d_x);
// Mean over masked rows of -log softmax(logits)[target]. mask may be null
// (all ones). Writes probs (rows, V), kept for backward, and the unmasked
// per-row losses (rows). Returns sum(mask).
template <typename T>
T cross_entropy_forward(const T* logits, const int32_t* targets, const T* mask, int64_t rows,
                        int64_t V, T* probs, T* row_losses, T* loss);
template <typename T>
void cross_entropy_backward(const T* probs, const int32_t* targets, const T* mask, int64_t rows,
                            int64_t V, T d_loss_over_count, T* d_logits);

// --- layernorm (last axis) -----------------------------------------------------
template <typename T>
void layernorm_forward(const T* x, const T* w, const T* b, int64_t rows, int64_t C, T eps, T* y,
                       T* mean, T* rstd);
template <typename T>
void layernorm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* d_y,
                        int64_t rows, int64_t C, T* d_x, T* d_w, T* d_b);

// --- embedding -----------------------------------------------------------------
template <typename T>
void embedding_forward(const T* table, const int32_t* ids, int64_t n, int64_t C, T* out);
template <typename T>
void embedding_backward(const int32_t* ids, const T* d_out, int64_t n, int64_t C, T* d_table);

// --- layout ----------------------------------------------------------------------
// x (batch, R, C) -> out (batch, C, R); backward is the same map, accumulating.
template <typename T>
void transpose_last2(const T* x, int64_t batch, int64_t R, int64_t C, T* out, bool accumulate);
// Copy a block: x seen as (outer, n_x, inner), out as (outer, n_out, inner);
// copies x[:, i, :] to out[:, offset + i, :] for i < n_x (concat forward,
// slice backward) or the reverse direction (slice forward, concat backward).
template <typename T>
void copy_axis_block(const T* src, int64_t outer, int64_t n_src, int64_t src_offset, T* dst,
                     int64_t n_dst, int64_t dst_offset, int64_t n_copy, int64_t inner,
                     bool accumulate);
// out[i] = mask[i % n_mask] ? value : x[i]
template <typename T>
void masked_fill_forward(const T* x, int64_t n, const int32_t* mask, int64_t n_mask, T value,
                         T* out);
template <typename T>
void masked_fill_backward(const T* d_out, int64_t n, const int32_t* mask, int64_t n_mask, T* d_x);

// --- linear spline (spline.cpp) ---------------------------------------------------
// A 1-D linear spline: values v[0..K-1] at K equally spaced knots
// lo + k (hi - lo) / (K - 1); between knots it interpolates linearly, outside
// [lo, hi] it continues the end segments (linear) or holds the end values
// (constant). Requires K >= 2 and lo < hi.
struct SplineGrid {
  int64_t knots;
  double lo, hi;
  bool linear;  // linear (true) or constant (false) extrapolation
};
// out[i] = spline(x[i]), n elements.
template <typename T>
void spline_forward(const T* x, int64_t n, const T* values, const SplineGrid& grid, T* out);
// d_x[i] += spline'(x[i]) d_out[i]; d_values[k] += the sum over elements of
// d_out times the interpolation weight of knot k (1 - t on the left knot of
// an element's interval, t on the right one). The knot sums are formed per
// fixed chunk and added in chunk order: the same bits for any thread count.
template <typename T>
void spline_backward(const T* x, int64_t n, const T* values, const SplineGrid& grid, const T* d_out,
                     T* d_x, T* d_values);

// --- optimizer updates (f32, in place) -------------------------------------------
// Fused per-element updates of a parameter w from its gradient g, parallel over
// elements; each element depends only on its own values, so results do not
// depend on the thread count. The exact rules are in docs/optim.md.
//
// SGD (PyTorch semantics, no dampening): g' = g + weight_decay * w;
// v = momentum * v + g'; step = nesterov ? g' + momentum * v : v; w -= lr * step.
// With momentum == 0, velocity may be null and w -= lr * g'.
void sgd_update(float* w, const float* g, float* velocity, int64_t n, float lr, float momentum,
                float weight_decay, bool nesterov);
// Adam at step t = step >= 1 (1-based). decoupled (AdamW): w *= 1 - lr * weight_decay
// before the step; otherwise L2: g' = g + weight_decay * w. Then
//   m = beta1 m + (1 - beta1) g';  v = beta2 v + (1 - beta2) g'^2;
//   w -= (lr / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps),
// which is lr * m_hat / (sqrt(v_hat) + eps) with m_hat, v_hat the bias-corrected moments.
// The bias corrections are computed in double, the per-element math in float.
void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1,
                 float beta2, float eps, float weight_decay, bool decoupled, int64_t step);
// Sum of g[i]^2 in double. Fixed-size blocks are summed serially and their partial sums
// added in block order, so the result is the same bits for every thread count.
// NaN and inf propagate.
double sum_of_squares(const float* g, int64_t n);

}  // namespace tapir::cpu

namespace tapir::cpu {

// --- causal multi-head self-attention (fused) ------------------------------------
// qkv (B, T, 3C) packs queries, keys and values: [q | k | v], each C = H * D
// wide with head h in columns [h*D, (h+1)*D). For every (b, h):
//   s_ij = q_i . k_j / sqrt(D) - slope_h * (i - j)   for j <= i (causal)
//   p_ij = softmax_j(s_ij),   out_i = sum_j p_ij v_j
// slopes (H) are ALiBi slopes, or null for none. probs (B, H, T, T) keeps p
// for backward (entries above the diagonal are 0). out is (B, T, C).
template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out);
// Accumulates into d_qkv (B, T, 3C).
template <typename T>
void attention_backward(const T* qkv, const T* probs, const T* d_out, int64_t B, int64_t T_len,
                        int64_t C, int64_t H, T* d_qkv);

// Score-spline attention: the same with p_ij = exp(g(s_ij) - m_i) / sum_j
// exp(g(s_ij) - m_i), m_i = max_{j <= i} g(s_ij), where g is a linear spline
// on `grid` with values g_values (K) shared by the heads, or (H, K) with row h
// for head h when per_head. With g the identity this is softmax attention.
// scores (B, H, T, T) keeps s (with the ALiBi bias) for backward; entries
// above the diagonal are 0 in scores and probs.
template <typename T>
void score_spline_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                    const T* slopes, const T* g_values, const SplineGrid& grid,
                                    bool per_head, T* scores, T* probs, T* out);
// Accumulates into d_qkv (B, T, 3C) and d_g_values (K or H*K); either may
// be null (not needed). The knot sums are formed per (batch, head) pair and added in pair
// order (deterministic).
template <typename T>
void score_spline_attention_backward(const T* qkv, const T* scores, const T* probs, const T* d_out,
                                     int64_t B, int64_t T_len, int64_t C, int64_t H,
                                     const T* g_values, const SplineGrid& grid, bool per_head,
                                     T* d_qkv, T* d_g_values);

// --- causal feature-kernel (linear) attention (attention_feature.cpp) -------------
// K(q, k) = phi(q) . phi(k) with phi(x) = softplus(g(x)) + kFeatureEps applied
// elementwise, g a linear spline (values (K) on `grid`), so every kernel value
// is positive. Per (b, h), with running sums over j <= i (never a T x T
// array):
//   S_i = sum_j phi(k_j) v_j^T (D x D),  z_i = sum_j phi(k_j) (D)
//   out_i = phi(q_i)^T S_i / (phi(q_i) . z_i)
// features (B, T, 2C) keeps [phi(q) | phi(k)] for backward.
constexpr double kFeatureEps = 1e-4;
template <typename T>
void feature_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                               const T* g_values, const SplineGrid& grid, T* features, T* out);
// out is the forward's output. Accumulates into d_qkv and d_g_values (null:
// not needed), the knot sums per (batch, head) pair added in pair order.
template <typename T>
void feature_attention_backward(const T* qkv, const T* features, const T* out, const T* d_out,
                                int64_t B, int64_t T_len, int64_t C, int64_t H, const T* g_values,
                                const SplineGrid& grid, T* d_qkv, T* d_g_values);

}  // namespace tapir::cpu

namespace tapir::cpu {

// --- small kernels that were host loops inside ops (dispatch_kernels.cpp) --------
// Each has a CUDA twin, so every op runs on either device.

// d_a[i] += d_out[i] * scale (affine backward).
template <typename T>
void affine_backward(const T* d_out, int64_t n, T scale, T* d_a);
// x[i] *= scale, in place (mean = sum scaled by 1/n).
template <typename T>
void scale_inplace(T* x, int64_t n, T scale);
// out (rows, n): every row a copy of row (n) (a bias before the GEMM adds on top).
template <typename T>
void broadcast_rows(const T* row, int64_t rows, int64_t n, T* out);
// d_row[j] += sum over r of d_out[r * n + j], rows added in order (bias
// gradient; deterministic).
template <typename T>
void broadcast_rows_backward(const T* d_out, int64_t rows, int64_t n, T* d_row);
// Index of the first ids[i] outside [0, limit), or -1 when all are inside.
int64_t first_out_of_range(const int32_t* ids, int64_t n, int64_t limit);

}  // namespace tapir::cpu
