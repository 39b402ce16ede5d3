// Fused causal multi-head attention. Each (batch, head) pair is independent:
// pairs are split across threads, and within a pair the two products run
// through Eigen on strided views of the packed qkv array (no copies). Eigen,
// not BLAS, because these calls happen inside a parallel region (see
// engine/threads.h) and are small.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/cpu/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstStrided = Eigen::Map<const RowMatrix<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using Strided = Eigen::Map<RowMatrix<T>, 0, Eigen::OuterStride<>>;

}  // namespace

template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out) {
  const int64_t D = C / H, stride = 3 * C;
  const T scale = T(1) / std::sqrt(T(D));
  parallel_for(B * H, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t pair = p0; pair < p1; ++pair) {
      const int64_t b = pair / H, h = pair % H;
      const T* base = qkv + b * T_len * stride + h * D;
      ConstStrided<T> q(base, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> k(base + C, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> v(base + 2 * C, T_len, D, Eigen::OuterStride<>(stride));
      Eigen::Map<RowMatrix<T>> p(probs + pair * T_len * T_len, T_len, T_len);
      p.noalias() = (q * k.transpose()) * scale;
      const T slope = slopes ? slopes[h] : T(0);
      for (int64_t i = 0; i < T_len; ++i) {
        T* row = p.data() + i * T_len;
        T mx = -std::numeric_limits<T>::infinity();
        for (int64_t j = 0; j <= i; ++j) {
          row[j] -= slope * T(i - j);
          mx = row[j] > mx ? row[j] : mx;
        }
        T sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          row[j] = std::exp(row[j] - mx);
          sum += row[j];
        }
        const T inv = T(1) / sum;
        for (int64_t j = 0; j <= i; ++j) row[j] *= inv;
        for (int64_t j = i + 1; j < T_len; ++j) row[j] = 0;
      }
      Strided<T> o(out + b * T_len * C + h * D, T_len, D, Eigen::OuterStride<>(C));
      o.noalias() = p * v;
    }
  });
}

template <typename T>
void attention_backward(const T* qkv, const T* probs, const T* d_out, int64_t B, int64_t T_len,
                        int64_t C, int64_t H, T* d_qkv) {
  const int64_t D = C / H, stride = 3 * C;
  const T scale = T(1) / std::sqrt(T(D));
  parallel_for(B * H, 1, [&](int64_t p0, int64_t p1) {
    // Per-thread scratch for d_probs; grows once, then reused (no malloc in
    // the steady state).
    thread_local std::vector<T> scratch;
    scratch.resize(static_cast<size_t>(T_len * T_len));
    for (int64_t pair = p0; pair < p1; ++pair) {
      const int64_t b = pair / H, h = pair % H;
      const int64_t offset = b * T_len * stride + h * D;
      ConstStrided<T> q(qkv + offset, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> k(qkv + offset + C, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> v(qkv + offset + 2 * C, T_len, D, Eigen::OuterStride<>(stride));
      Strided<T> dq(d_qkv + offset, T_len, D, Eigen::OuterStride<>(stride));
      Strided<T> dk(d_qkv + offset + C, T_len, D, Eigen::OuterStride<>(stride));
      Strided<T> dv(d_qkv + offset + 2 * C, T_len, D, Eigen::OuterStride<>(stride));
      Eigen::Map<const RowMatrix<T>> p(probs + pair * T_len * T_len, T_len, T_len);
      ConstStrided<T> d_o(d_out + b * T_len * C + h * D, T_len, D, Eigen::OuterStride<>(C));
      Eigen::Map<RowMatrix<T>> ds(scratch.data(), T_len, T_len);

      dv.noalias() += p.transpose() * d_o;
      ds.noalias() = d_o * v.transpose();  // d_probs
      // Softmax backward row by row, then the 1/sqrt(D) of the scores. The
      // ALiBi bias is a constant: it passes no gradient.
      for (int64_t i = 0; i < T_len; ++i) {
        const T* prow = p.data() + i * T_len;
        T* grow = ds.data() + i * T_len;
        T dot = 0;
        for (int64_t j = 0; j <= i; ++j) dot += prow[j] * grow[j];
        for (int64_t j = 0; j <= i; ++j) grow[j] = prow[j] * (grow[j] - dot) * scale;
        for (int64_t j = i + 1; j < T_len; ++j) grow[j] = 0;
      }
      dq.noalias() += ds * k;
      dk.noalias() += ds.transpose() * q;
    }
  });
}

#define TAPIR_INSTANTIATE(T)                                                                \
  template void attention_forward<T>(const T*, int64_t, int64_t, int64_t, int64_t, const T*, \
                                     T*, T*);                                               \
  template void attention_backward<T>(const T*, const T*, const T*, int64_t, int64_t, int64_t, \
                                      int64_t, T*);
TAPIR_INSTANTIATE(float)
TAPIR_INSTANTIATE(double)
#undef TAPIR_INSTANTIATE

}  // namespace tapir::cpu
