// The naive reference kernels (engine/reference.h) that move, gather or
// sum rows: the axis sum and the last-axis max, the embedding, the layout
// copies, masked fill, the bias rows, and the optimizer updates. Sums run
// in double and are rounded once.
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "base/error.h"
#include "engine/cpu/reference_common.h"
#include "engine/kernels.h"
#include "engine/reference.h"

namespace tapir::reference {

using detail::store;

// x seen as (outer, n, inner): out[o][j] = sum_k x[o][k][j].
template <typename T>
void sum_axis_forward(const T* x, int64_t outer, int64_t n, int64_t inner, T* out) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += double(x[(o * n + k) * inner + j]);
      out[o * inner + j] = static_cast<T>(sum);
    }
}

// d_x[o][k][j] += d_out[o][j] scale.
template <typename T>
void sum_axis_backward(const T* d_out, int64_t outer, int64_t n, int64_t inner, T scale, T* d_x) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < inner; ++j)
        store(true, d_x[(o * n + k) * inner + j], double(d_out[o * inner + j]) * double(scale));
}

// out[r] = max_i x[r][i], argmax[r] = the first i where it is reached.
template <typename T>
void max_last_forward(const T* x, int64_t rows, int64_t n, T* out, int32_t* argmax) {
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
      if (x[r * n + i] > x[r * n + best]) best = i;
    out[r] = x[r * n + best];
    argmax[r] = static_cast<int32_t>(best);
  }
}

// d_x[r][argmax[r]] += d_out[r].
template <typename T>
void max_last_backward(const T* d_out, const int32_t* argmax, int64_t rows, int64_t n, T* d_x) {
  for (int64_t r = 0; r < rows; ++r) store(true, d_x[r * n + argmax[r]], double(d_out[r]));
}

// out[i] = table[ids[i]], rows of C.
template <typename T>
void embedding_forward(const T* table, const int32_t* ids, int64_t n, int64_t C, T* out) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < C; ++c) out[i * C + c] = table[int64_t(ids[i]) * C + c];
}

// The scatter-add: d_table[id] += the sum of d_out[i] over every i with
// ids[i] = id (a row used twice gets both gradients).
template <typename T>
void embedding_backward(const int32_t* ids, const T* d_out, int64_t n, int64_t C, T* d_table) {
  std::map<int32_t, std::vector<double>> rows;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double>& row = rows[ids[i]];
    row.resize(static_cast<size_t>(C), 0.0);
    for (int64_t c = 0; c < C; ++c) row[c] += double(d_out[i * C + c]);
  }
  for (const auto& [id, row] : rows)
    for (int64_t c = 0; c < C; ++c) store(true, d_table[int64_t(id) * C + c], row[c]);
}

// out[b][c][r] = x[b][r][c] (or += when accumulate).
template <typename T>
void transpose_last2(const T* x, int64_t batch, int64_t R, int64_t C, T* out, bool accumulate) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c)
        store(accumulate, out[(b * C + c) * R + r], double(x[(b * R + r) * C + c]));
}

// dst[o][dst_offset + i][j] = src[o][src_offset + i][j] (or +=) for i < n_copy.
template <typename T>
void copy_axis_block(const T* src, int64_t outer, int64_t n_src, int64_t src_offset, T* dst,
                     int64_t n_dst, int64_t dst_offset, int64_t n_copy, int64_t inner,
                     bool accumulate) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n_copy; ++i)
      for (int64_t j = 0; j < inner; ++j)
        store(accumulate, dst[(o * n_dst + dst_offset + i) * inner + j],
              double(src[(o * n_src + src_offset + i) * inner + j]));
}

// out[i] = mask[i % n_mask] ? value : x[i].
template <typename T>
void masked_fill_forward(const T* x, int64_t n, const int32_t* mask, int64_t n_mask, T value,
                         T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = mask[i % n_mask] ? value : x[i];
}

// d_x[i] += d_out[i] where the mask is 0.
template <typename T>
void masked_fill_backward(const T* d_out, int64_t n, const int32_t* mask, int64_t n_mask, T* d_x) {
  for (int64_t i = 0; i < n; ++i)
    if (!mask[i % n_mask]) store(true, d_x[i], double(d_out[i]));
}

// x *= scale.
template <typename T>
void scale_inplace(T* x, int64_t n, T scale) {
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<T>(double(x[i]) * double(scale));
}

// out[r] = row for every r.
template <typename T>
void broadcast_rows(const T* row, int64_t rows, int64_t n, T* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) out[r * n + j] = row[j];
}

// d_row[j] += sum_r d_out[r][j].
template <typename T>
void broadcast_rows_backward(const T* d_out, int64_t rows, int64_t n, T* d_row) {
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r) sum += double(d_out[r * n + j]);
    store(true, d_row[j], sum);
  }
}

// The first i with ids[i] outside [0, limit), or -1.
int64_t first_out_of_range(const int32_t* ids, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= limit) return i;
  return -1;
}

// g' = g + weight_decay w; v = momentum v + g'; w -= lr (nesterov ? g' + momentum v : v);
// with momentum 0, w -= lr g' (velocity not read).
void sgd_update(float* w, const float* g, float* velocity, int64_t n, float lr, float momentum,
                float weight_decay, bool nesterov) {
  TAPIR_CHECK(momentum == 0.0f || velocity != nullptr, "sgd_update: momentum ", momentum,
              " needs a velocity buffer");
  for (int64_t i = 0; i < n; ++i) {
    const double grad = double(g[i]) + double(weight_decay) * double(w[i]);
    if (momentum == 0.0f) {
      w[i] = static_cast<float>(double(w[i]) - double(lr) * grad);
      continue;
    }
    const double v = double(momentum) * double(velocity[i]) + grad;
    velocity[i] = static_cast<float>(v);
    w[i] = static_cast<float>(double(w[i]) - double(lr) * (nesterov ? grad + momentum * v : v));
  }
}

// At step t (1-based): AdamW first shrinks w by 1 - lr weight_decay
// (decoupled), Adam adds weight_decay w to g (coupled); then
//   m = beta1 m + (1 - beta1) g,   v = beta2 v + (1 - beta2) g^2,
//   w -= lr m_hat / (sqrt(v_hat) + eps),  m_hat = m / (1 - beta1^t), v_hat = v / (1 - beta2^t).
void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1,
                 float beta2, float eps, float weight_decay, bool decoupled, int64_t step) {
  TAPIR_CHECK(step >= 1, "adam_update: step is 1-based, got ", step);
  const double c1 = 1 - std::pow(double(beta1), double(step));
  const double c2 = 1 - std::pow(double(beta2), double(step));
  for (int64_t i = 0; i < n; ++i) {
    double wi = double(w[i]);
    if (decoupled) wi *= 1 - double(lr) * double(weight_decay);
    const double grad = double(g[i]) + (decoupled ? 0.0 : double(weight_decay) * wi);
    const double mi = double(beta1) * double(m[i]) + (1 - double(beta1)) * grad;
    const double vi = double(beta2) * double(v[i]) + (1 - double(beta2)) * grad * grad;
    m[i] = static_cast<float>(mi);
    v[i] = static_cast<float>(vi);
    w[i] = static_cast<float>(wi - double(lr) * (mi / c1) / (std::sqrt(vi / c2) + double(eps)));
  }
}

// sum_i g[i]^2 in double, in index order.
double sum_of_squares(const float* g, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += double(g[i]) * double(g[i]);
  return sum;
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(sum_axis_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(sum_axis_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(max_last_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(max_last_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(embedding_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(embedding_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(transpose_last2);
TAPIR_INSTANTIATE_FLOAT_KERNEL(copy_axis_block);
TAPIR_INSTANTIATE_FLOAT_KERNEL(masked_fill_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(masked_fill_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(scale_inplace);
TAPIR_INSTANTIATE_FLOAT_KERNEL(broadcast_rows);
TAPIR_INSTANTIATE_FLOAT_KERNEL(broadcast_rows_backward);

}  // namespace tapir::reference
