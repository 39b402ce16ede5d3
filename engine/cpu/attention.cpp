// Fused causal multi-head attention, softmax or score-spline. Each (batch,
// head) pair is independent: pairs are split across threads, and within a
// pair the products run on strided views of the packed qkv array (no
// copies): as loops over the causal triangle for short sequences, where a
// BLAS call or Eigen's blocked product costs more than the arithmetic, and
// through single-threaded OpenBLAS from T = 32 on.
//
// The probabilities (B, H, T, T) are the largest activation of a model with
// long sequences (134 MB of lm's 4 blocks). Past 1M values the op does not
// keep them on the CPU (autograd/ops_attention.cpp): forward passes null
// probs, and backward recomputes each pair's probabilities with the code the
// forward ran (one more q k^T product per pair), so the gradients have the
// bits they would have with kept probabilities at the same alignment.
//
// The score-spline variant differs only in the row transform: the scores go
// through the spline g before the max-subtracted exponential, and backward
// passes the probabilities' gradient back through g' and into g's knots.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/cpu/eigen.h"
#include "engine/cpu/lanes.h"
#include "engine/cpu/spline_eval.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstStrided = Eigen::Map<const RowMatrix<T>, 0, Eigen::OuterStride<>>;

// The score spline of the variant; values == nullptr means plain softmax.
template <typename T>
struct ScoreSpline {
  const T* values = nullptr;  // (K) or (H, K)
  SplineGrid grid{2, 0.0, 1.0, true};
  bool per_head = false;
  const T* head_values(int64_t h) const { return values + (per_head ? h * grid.knots() : 0); }
};

// From this sequence length on, a pair's products run through OpenBLAS
// (single-threaded, as every BLAS call here: engine/threads.h) instead of
// the loops below. The choice depends on T only, so the forward and the
// backward that recomputes its probabilities agree.
constexpr int64_t kBlasMinT = 32;

// The short sequences' products, over the causal triangle only (entries
// above the diagonal of P and dS are zero). Rows of q, k, v, the output and
// their gradients are D contiguous values; each operand's rows are its ld
// apart. A product with a sum over D (q k^T, dO v^T) runs in lanes
// (engine/cpu/lanes.h); the others add whole rows, the inner loop along D.
// What they write never overlaps what they read (__restrict: no run-time
// overlap checks in these short loops).

// s[i][j] = scale a_i . b_j for j <= i (q k^T; dO v^T with scale 1).
template <typename T>
void short_dots(const T* __restrict a, int64_t lda, const T* __restrict b, int64_t ldb,
                int64_t T_len, int64_t D, T scale, T* __restrict s) {
  for (int64_t i = 0; i < T_len; ++i)
    for (int64_t j = 0; j <= i; ++j)
      s[i * T_len + j] = lane_dot(a + i * lda, b + j * ldb, D) * scale;
}

// a_i += sum over j <= i of w[i][j] b_j (P v into zeros, dQ += dS K).
template <typename T>
void short_add_rows(const T* __restrict w, const T* __restrict b, int64_t ldb, int64_t T_len,
                    int64_t D, int64_t lda, T* __restrict a) {
  for (int64_t i = 0; i < T_len; ++i) {
    T* ai = a + i * lda;
    for (int64_t j = 0; j <= i; ++j) {
      const T wij = w[i * T_len + j];
      const T* bj = b + j * ldb;
      for (int64_t d = 0; d < D; ++d) ai[d] += wij * bj[d];
    }
  }
}

// a_j += sum over i >= j of w[i][j] b_i (dK += dS^T Q, dV += P^T dO).
template <typename T>
void short_add_rows_t(const T* __restrict w, const T* __restrict b, int64_t ldb, int64_t T_len,
                      int64_t D, int64_t lda, T* __restrict a) {
  for (int64_t j = 0; j < T_len; ++j) {
    T* aj = a + j * lda;
    for (int64_t i = j; i < T_len; ++i) {
      const T wij = w[i * T_len + j];
      const T* bi = b + i * ldb;
      for (int64_t d = 0; d < D; ++d) aj[d] += wij * bi[d];
    }
  }
}

// C (M, N, row stride ldc) = alpha op(A) op(B) + beta C, row-major.
void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
               int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(M),
              int(N), int(K), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}
void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A,
               int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(M),
              int(N), int(K), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

// One (batch, head) pair's probabilities, row by row (causal): p_i = softmax
// over j <= i of g(scale q_i . k_j - slope (i - j)); entries above the
// diagonal are 0. When the score spline g is there, s (when not null) keeps
// its input. The forward and the backward that recomputes the probabilities
// run this same code, so both see the same bits.
template <typename T>
void pair_probs(const ConstStrided<T>& q, const ConstStrided<T>& k, int64_t T_len, T scale, T slope,
                const ScoreSpline<T>& g, const SplineLocator<T>& loc, const T* gv, T* s, T* probs) {
  if (T_len >= kBlasMinT) {
    blas_gemm(false, true, T_len, T_len, q.cols(), scale, q.data(), q.outerStride(), k.data(),
              k.outerStride(), T(0), probs, T_len);
  } else {
    short_dots(q.data(), q.outerStride(), k.data(), k.outerStride(), T_len, q.cols(), scale, probs);
  }
  for (int64_t i = 0; i < T_len; ++i) {
    T* row = probs + i * T_len;
    if (slope != T(0))
      for (int64_t j = 0; j <= i; ++j) row[j] -= slope * T(i - j);
    if (gv) {  // keep s, then row = g(s)
      T* srow = s + i * T_len;
      for (int64_t j = 0; j < T_len; ++j) srow[j] = j <= i ? row[j] : T(0);
      if (g.grid.linear())
        spline_values_range<T, true>(loc, srow, i + 1, gv, row);
      else
        spline_values_range<T, false>(loc, srow, i + 1, gv, row);
    }
    // Vectorised, with bits that depend only on i and the row's alignment.
    T sum = 0;
    exp_minus_max(row, i + 1, row, &sum);
    const T inv = T(1) / sum;
    for (int64_t j = 0; j <= i; ++j) row[j] *= inv;
    for (int64_t j = i + 1; j < T_len; ++j) row[j] = 0;
  }
}

// A thread's work area of n values, grown once and reused (no malloc in the
// steady state); `which` tells the areas of one thread apart. It starts on
// 64 bytes, as arena memory does: Eigen's vectorised loops treat the
// unaligned head of an array apart, so the probabilities a forward pass
// makes and the backward pass recomputes (on another thread's area) get the
// same bits only when their rows sit at the same alignment.
template <typename T>
T* pair_scratch(int which, int64_t n) {
  thread_local std::vector<T> area[3];
  auto& v = area[which];
  const size_t need = static_cast<size_t>(n) + 64 / sizeof(T);
  if (v.size() < need) v.resize(need);
  const auto address = reinterpret_cast<uintptr_t>(v.data());
  return reinterpret_cast<T*>((address + 63) & ~uintptr_t{63});
}

// probs and scores may be null: the pair's probabilities (and spline inputs)
// then live in per-thread scratch and are not kept.
template <typename T>
void forward_impl(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H, const T* slopes,
                  const ScoreSpline<T>& g, T* scores, T* probs, T* out) {
  const int64_t D = C / H, stride = 3 * C, TT = T_len * T_len;
  const T scale = T(1) / std::sqrt(T(D));
  const SplineLocator<T> loc(g.grid);
  parallel_for(B * H, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t pair = p0; pair < p1; ++pair) {
      const int64_t b = pair / H, h = pair % H;
      const T* base = qkv + b * T_len * stride + h * D;
      ConstStrided<T> q(base, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> k(base + C, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> v(base + 2 * C, T_len, D, Eigen::OuterStride<>(stride));
      const T* gv = g.values ? g.head_values(h) : nullptr;
      T* p = probs ? probs + pair * TT : pair_scratch<T>(0, TT);
      T* s = !gv ? nullptr : scores ? scores + pair * TT : pair_scratch<T>(1, TT);
      pair_probs(q, k, T_len, scale, slopes ? slopes[h] : T(0), g, loc, gv, s, p);
      T* o_pair = out + b * T_len * C + h * D;
      if (T_len >= kBlasMinT) {
        blas_gemm(false, false, T_len, D, T_len, T(1), p, T_len, v.data(), stride, T(0), o_pair, C);
      } else {
        for (int64_t t = 0; t < T_len; ++t) std::fill_n(o_pair + t * C, D, T(0));
        short_add_rows(p, v.data(), stride, T_len, D, C, o_pair);
      }
    }
  });
}

template <typename T>
void backward_impl(const T* qkv, const T* slopes, const T* scores, const T* probs, const T* d_out,
                   int64_t B, int64_t T_len, int64_t C, int64_t H, const ScoreSpline<T>& g,
                   T* d_qkv, T* d_g_values, bool accumulate) {
  const int64_t D = C / H, stride = 3 * C, K = g.grid.knots(), TT = T_len * T_len;
  const T beta = accumulate ? T(1) : T(0);  // of the BLAS path's products into d_qkv
  const T scale = T(1) / std::sqrt(T(D));
  const SplineLocator<T> loc(g.grid);
  // Knot sums per pair, kept by the calling thread (grows once).
  thread_local std::vector<T> partials;
  const bool knot_grad = g.values && d_g_values;
  if (knot_grad) partials.resize(static_cast<size_t>(B * H * K));
  T* partial = partials.data();
  parallel_for(B * H, 1, [&](int64_t p0, int64_t p1) {
    // Per-thread scratch for d_probs, the spline's row work (d scores,
    // positions, intervals) and the knot sums; grows once, then reused (no
    // malloc in the steady state).
    thread_local std::vector<T> d_s, position, copies;
    thread_local std::vector<int32_t> index;
    if (g.values) {
      d_s.resize(static_cast<size_t>(T_len));
      position.resize(static_cast<size_t>(T_len));
      index.resize(static_cast<size_t>(T_len));
    }
    if (knot_grad) copies.resize(static_cast<size_t>(kSplineCopies * K));
    for (int64_t pair = p0; pair < p1; ++pair) {
      const int64_t b = pair / H, h = pair % H;
      const int64_t offset = b * T_len * stride + h * D;
      ConstStrided<T> q(qkv + offset, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> k(qkv + offset + C, T_len, D, Eigen::OuterStride<>(stride));
      ConstStrided<T> v(qkv + offset + 2 * C, T_len, D, Eigen::OuterStride<>(stride));
      const T* gv = g.values ? g.head_values(h) : nullptr;
      // The forward's probabilities (and spline inputs), kept or recomputed.
      const T* probs_pair = probs ? probs + pair * TT : nullptr;
      const T* scores_pair = scores ? scores + pair * TT : nullptr;
      if (!probs_pair) {
        T* s = gv ? pair_scratch<T>(1, TT) : nullptr;
        T* p_new = pair_scratch<T>(0, TT);
        pair_probs(q, k, T_len, scale, slopes ? slopes[h] : T(0), g, loc, gv, s, p_new);
        probs_pair = p_new;
        scores_pair = s;
      }
      Eigen::Map<const RowMatrix<T>> p(probs_pair, T_len, T_len);
      ConstStrided<T> d_o(d_out + b * T_len * C + h * D, T_len, D, Eigen::OuterStride<>(C));
      Eigen::Map<RowMatrix<T>> ds(pair_scratch<T>(2, TT), T_len, T_len);

      const bool blas = T_len >= kBlasMinT;
      if (d_qkv && !blas && !accumulate)  // the pair's rows of dq, dk, dv: the loops add
        for (int64_t t = 0; t < T_len; ++t)
          for (int64_t part = 0; part < 3; ++part)
            std::fill_n(d_qkv + offset + t * stride + part * C, D, T(0));
      if (d_qkv && blas) {
        blas_gemm(true, false, T_len, D, T_len, T(1), probs_pair, T_len, d_o.data(), C, beta,
                  d_qkv + offset + 2 * C, stride);
      } else if (d_qkv) {
        short_add_rows_t(probs_pair, d_o.data(), C, T_len, D, stride, d_qkv + offset + 2 * C);
      }
      if (blas)  // d_probs
        blas_gemm(false, true, T_len, T_len, D, T(1), d_o.data(), C, v.data(), stride, T(0),
                  ds.data(), T_len);
      else  // the lower triangle: the row loop below reads no more
        short_dots(d_o.data(), C, v.data(), stride, T_len, D, T(1), ds.data());
      if (knot_grad) std::fill(copies.begin(), copies.end(), T(0));
      // Softmax backward row by row (gives d g(s)), through g' for the
      // score spline, then the 1/sqrt(D) of the scores. The ALiBi bias is a
      // constant: it passes no gradient.
      for (int64_t i = 0; i < T_len; ++i) {
        const T* prow = p.data() + i * T_len;
        T* grow = ds.data() + i * T_len;
        const T dot = lane_dot(prow, grow, i + 1);
        if (!gv) {
          for (int64_t j = 0; j <= i; ++j) grow[j] = prow[j] * (grow[j] - dot) * scale;
        } else {
          // grow = d g(s); d s = g'(s) d g; the knots get d g.
          const T* srow = scores_pair + i * T_len;
          for (int64_t j = 0; j <= i; ++j) grow[j] = prow[j] * (grow[j] - dot);
          if (g.grid.linear())
            spline_locate_range<T, true>(loc, srow, i + 1, gv, grow, d_s.data(), index.data(),
                                         position.data(), /*accumulate=*/false);
          else
            spline_locate_range<T, false>(loc, srow, i + 1, gv, grow, d_s.data(), index.data(),
                                          position.data(), /*accumulate=*/false);
          if (knot_grad)
            spline_scatter(index.data(), position.data(), grow, i + 1, K, copies.data());
          for (int64_t j = 0; j <= i; ++j) grow[j] = d_s[j] * scale;
        }
        for (int64_t j = i + 1; j < T_len; ++j) grow[j] = 0;
      }
      if (knot_grad) spline_gather_copies(copies.data(), K, partial + pair * K);
      if (d_qkv) {  // null when only the spline needs a gradient
        if (blas) {
          blas_gemm(false, false, T_len, D, T_len, T(1), ds.data(), T_len, k.data(), stride, beta,
                    d_qkv + offset, stride);
          blas_gemm(true, false, T_len, D, T_len, T(1), ds.data(), T_len, q.data(), stride, beta,
                    d_qkv + offset + C, stride);
        } else {
          short_add_rows(ds.data(), k.data(), stride, T_len, D, stride, d_qkv + offset);
          short_add_rows_t(ds.data(), q.data(), stride, T_len, D, stride, d_qkv + offset + C);
        }
      }
    }
  });
  if (!knot_grad) return;
  // Pair order: b outer, h inner; a per-head spline sums over b only.
  const int64_t rows = g.per_head ? H : 1;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kk = 0; kk < K; ++kk) {
      double s = 0;
      for (int64_t pair = 0; pair < B * H; ++pair)
        if (!g.per_head || pair % H == r) s += double(partial[pair * K + kk]);
      d_g_values[r * K + kk] += static_cast<T>(s);
    }
}

}  // namespace

template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out) {
  forward_impl(qkv, B, T_len, C, H, slopes, ScoreSpline<T>{}, static_cast<T*>(nullptr), probs, out);
}

template <typename T>
void attention_backward(const T* qkv, const T* slopes, const T* probs, const T* d_out, int64_t B,
                        int64_t T_len, int64_t C, int64_t H, T* d_qkv, bool accumulate) {
  backward_impl(qkv, slopes, static_cast<const T*>(nullptr), probs, d_out, B, T_len, C, H,
                ScoreSpline<T>{}, d_qkv, static_cast<T*>(nullptr), accumulate);
}

template <typename T>
void score_spline_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                    const T* slopes, const T* g_values, const SplineGrid& grid,
                                    bool per_head, T* scores, T* probs, T* out) {
  forward_impl(qkv, B, T_len, C, H, slopes, ScoreSpline<T>{g_values, grid, per_head}, scores, probs,
               out);
}

template <typename T>
void score_spline_attention_backward(const T* qkv, const T* slopes, const T* scores, const T* probs,
                                     const T* d_out, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                     const T* g_values, const SplineGrid& grid, bool per_head,
                                     T* d_qkv, T* d_g_values, bool accumulate) {
  backward_impl(qkv, slopes, scores, probs, d_out, B, T_len, C, H,
                ScoreSpline<T>{g_values, grid, per_head}, d_qkv, d_g_values, accumulate);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_backward);

}  // namespace tapir::cpu
