// Fused causal multi-head attention, softmax or score-spline, on the device.
// The products of each (batch, head) pair run on cuBLAS, as strided-batched
// GEMMs over the pairs (gemm_strided_batched in common.cuh): the scores
// q k^T, the output p v, and in the backward d_p = d_out v^T, d_v += p^T
// d_out, d_q += d_s k, d_k += d_s^T q, the same products as the CPU's
// (engine/cpu/attention.cpp). They fill whole T x T matrices; the row
// kernels in between keep the causal part: the forward's (one block per
// row) applies ALiBi and the score spline, masks j > i and takes the row
// softmax, the backward's takes d_p back through the softmax (and g') and
// zeroes d_s above the diagonal, so that the products after it add nothing
// from there. The knot sums of the score spline are formed per pair (one
// block per pair, fixed order) and added in pair order, as on the CPU.
//
// The score-spline variant differs only in the row transform: the scores go
// through the spline g before the max-subtracted exponential, and backward
// passes the probabilities' gradient back through g' and into g's knots.
#include <cmath>

#include "engine/cuda/common.cuh"
#include "engine/cuda/spline_eval.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

// The score spline of the variant; values == nullptr means plain softmax.
template <typename T>
struct ScoreSpline {
  const T* values = nullptr;  // (K) or (H, K)
  SplineLocator<T> sp{};
  int64_t K = 0;
  bool per_head = false;
  __device__ const T* head_values(int64_t h) const { return values + (per_head ? h * K : 0); }
};

// Shapes of one call: qkv (B, T, 3C), probs (B, H, T, T), out (B, T, C).
struct Dims {
  int64_t B, T, C, H, D;
};

// In place over row i of each pair, which holds scale q_i . k_j for every
// j: s = that - slope (i - j), kept in scores for the score spline, then
// the softmax over j <= i of s (or g(s)); entries above the diagonal are 0.
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    causal_softmax_kernel(Dims d, const T* slopes, ScoreSpline<T> g, T* scores, T* probs) {
  __shared__ T shared[32];
  const int64_t rows = d.B * d.H * d.T;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t i = row % d.T, n = i + 1, h = (row / d.T) % d.H;
    const T slope = slopes ? slopes[h] : T(0);
    T* p = probs + row * d.T;
    T mx = T(-INFINITY);
    // Each thread reads back only the entries it wrote: no barrier needed.
    for (int64_t j = threadIdx.x; j < d.T; j += blockDim.x) {
      if (j > i) {
        p[j] = T(0);
        if (scores) scores[row * d.T + j] = T(0);
        continue;
      }
      T s = p[j] - slope * T(i - j);
      if (g.values) {
        scores[row * d.T + j] = s;
        s = g.sp.value(g.head_values(h), s);
      }
      p[j] = s;
      mx = s > mx ? s : mx;
    }
    mx = block_max(mx, shared);
    T sum = T(0);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      p[j] = exp(p[j] - mx);
      sum += p[j];
    }
    const T inv = T(1) / block_sum(sum, shared);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) p[j] *= inv;
  }
}

// Row i of each pair, in place: ds = d probs -> d scores (times 1/sqrt(D)),
// through the softmax and, for the score spline, through g'; 0 above the
// diagonal. dg (null when
// the knots need no gradient) keeps d g(s), the knots' weights.
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads)
    d_scores_kernel(const T* probs, const T* scores, Dims d, ScoreSpline<T> g, T scale, T* ds,
                    T* dg) {
  __shared__ T shared[32];
  const int64_t rows = d.B * d.H * d.T;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t i = row % d.T, n = i + 1, h = (row / d.T) % d.H;
    const T* p = probs + row * d.T;
    T* grow = ds + row * d.T;
    T dot = T(0);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) dot += p[j] * grow[j];
    dot = block_sum(dot, shared);
    for (int64_t j = n + threadIdx.x; j < d.T; j += blockDim.x) grow[j] = T(0);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const T dgs = p[j] * (grow[j] - dot);
      if (!g.values) {
        grow[j] = dgs * scale;
        continue;
      }
      const T* gv = g.head_values(h);
      const T u = g.sp.units(scores[row * d.T + j]);
      const int32_t k = g.sp.interval(u);
      grow[j] = g.sp.slope(gv, u, k) * dgs * scale;
      if (dg) dg[row * d.T + j] = dgs;
    }
  }
}

// One block per pair: the pair's knot sums into partial (pairs, K), over its
// entries j <= i in row order.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    score_knots_kernel(const T* scores, const T* dg, Dims d, SplineLocator<T> sp, int64_t K,
                       T* partial) {
  __shared__ int32_t s_index[kKnotTile];
  __shared__ T s_pos[kKnotTile];
  __shared__ T s_w[kKnotTile];
  const int64_t pairs = d.B * d.H, per_pair = d.T * d.T;
  for (int64_t pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
    T* acc = partial + pair * K;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) acc[k] = T(0);
    for (int64_t begin = 0; begin < per_pair; begin += kKnotTile) {
      const int count =
          static_cast<int>(per_pair - begin < kKnotTile ? per_pair - begin : kKnotTile);
      __syncthreads();  // the previous tile is done
      for (int e = threadIdx.x; e < count; e += blockDim.x) {
        const int64_t idx = begin + e, i = idx / d.T, j = idx % d.T;
        if (j > i) {
          s_index[e] = -2;
          continue;
        }
        const T s = scores[pair * per_pair + idx];
        const int32_t k = sp.interval(sp.units(s));
        s_index[e] = k;
        s_pos[e] = sp.position(s, k);
        s_w[e] = dg[pair * per_pair + idx];
      }
      __syncthreads();
      knot_tile_sums(s_index, s_pos, s_w, count, K, acc);
    }
    __syncthreads();
  }
}

template <typename T>
void check_dims(const Dims& d, const char* who) {
  TAPIR_CHECK(d.H > 0 && d.C % d.H == 0, who, ": C = ", d.C, " is not a multiple of H = ", d.H);
}

// One matrix of every (batch, head) pair: pair (b, h)'s starts per_b * b +
// per_h * h elements after `at`, its rows ld apart.
template <typename T>
struct PairMatrix {
  T* at;
  int64_t ld, per_b, per_h;
};

// For every pair, C = alpha op(A) op(B) + beta C (row-major, as
// cpu::attention's products): one strided-batched call per head over the
// batch, or per batch item over the heads, whichever makes fewer calls.
template <typename T>
void pair_products(const Dims& d, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                   T alpha, PairMatrix<const T> A, PairMatrix<const T> B, T beta, PairMatrix<T> C) {
  const bool by_head = d.H <= d.B;
  const int64_t calls = by_head ? d.H : d.B, batch = by_head ? d.B : d.H;
  const auto offset = [&](const auto& m, int64_t call) {
    return call * (by_head ? m.per_h : m.per_b);
  };
  const auto strided = [&](const auto& m) { return Strided{m.ld, by_head ? m.per_b : m.per_h}; };
  for (int64_t call = 0; call < calls; ++call)
    gemm_strided_batched<T>(trans_a, trans_b, M, N, K, alpha, A.at + offset(A, call), strided(A),
                            B.at + offset(B, call), strided(B), beta, C.at + offset(C, call),
                            strided(C), batch);
}

// The pairs' matrices: q, k, v (T, D) in qkv (B, T, 3C), their gradients in
// d_qkv, the outputs and their gradients (T, D) in (B, T, C), and the
// probabilities, scores and d_s (T, T) in (B, H, T, T).
template <typename T>
PairMatrix<T> in_qkv(T* qkv, const Dims& d, int which) {
  return {qkv + which * d.C, 3 * d.C, d.T * 3 * d.C, d.D};
}
template <typename T>
PairMatrix<T> in_out(T* out, const Dims& d) {
  return {out, d.C, d.T * d.C, d.D};
}
template <typename T>
PairMatrix<T> in_pairs(T* p, const Dims& d) {
  return {p, d.T, d.H * d.T * d.T, d.T * d.T};
}

template <typename T>
void forward_impl(const T* qkv, const Dims& d, const T* slopes, const ScoreSpline<T>& g, T* scores,
                  T* probs, T* out) {
  if (d.B * d.T * d.C == 0) return;
  const T scale = T(1) / std::sqrt(T(d.D));
  pair_products<T>(d, false, true, d.T, d.T, d.D, scale, in_qkv(qkv, d, 0), in_qkv(qkv, d, 1), T(0),
                   in_pairs(probs, d));
  causal_softmax_kernel<<<grid_rows(d.B * d.H * d.T), row_threads(d.T), 0, stream()>>>(
      d, slopes, g, scores, probs);
  TAPIR_LAUNCH_CHECK("causal_softmax_kernel");
  pair_products<T>(d, false, false, d.T, d.D, d.T, T(1), in_pairs<const T>(probs, d),
                   in_qkv(qkv, d, 2), T(0), in_out(out, d));
}

template <typename T>
void backward_impl(const T* qkv, const T* scores, const T* probs, const T* d_out, const Dims& d,
                   const ScoreSpline<T>& g, T* d_qkv, T* d_g_values, bool accumulate) {
  const bool knot_grad = g.values && d_g_values;
  const T beta = accumulate ? T(1) : T(0);  // into d_qkv (cuBLAS reads no C at 0)
  if (d.B * d.T * d.C == 0 || (!d_qkv && !knot_grad)) return;
  const T scale = T(1) / std::sqrt(T(d.D));
  const int64_t entries = d.B * d.H * d.T * d.T;
  const PairMatrix<const T> q = in_qkv(qkv, d, 0), k = in_qkv(qkv, d, 1), v = in_qkv(qkv, d, 2),
                            p = in_pairs(probs, d), go = in_out(d_out, d);
  if (d_qkv)  // d_v += p^T d_out
    pair_products<T>(d, true, false, d.T, d.D, d.T, T(1), p, go, beta, in_qkv(d_qkv, d, 2));
  Scratch<T> ds(entries), dg(knot_grad ? entries : 0);
  // d_p = d_out v^T, then d_s in place
  pair_products<T>(d, false, true, d.T, d.T, d.D, T(1), go, v, T(0), in_pairs(ds.get(), d));
  d_scores_kernel<<<grid_rows(d.B * d.H * d.T), row_threads(d.T), 0, stream()>>>(
      probs, scores, d, g, scale, ds.get(), dg.get());
  TAPIR_LAUNCH_CHECK("d_scores_kernel");
  if (d_qkv) {
    const PairMatrix<const T> s = in_pairs<const T>(ds.get(), d);
    // d_q += d_s k, d_k += d_s^T q
    pair_products<T>(d, false, false, d.T, d.D, d.T, T(1), s, k, beta, in_qkv(d_qkv, d, 0));
    pair_products<T>(d, true, false, d.T, d.D, d.T, T(1), s, q, beta, in_qkv(d_qkv, d, 1));
  }
  if (!knot_grad) return;
  Scratch<T> partial(d.B * d.H * g.K);
  score_knots_kernel<<<grid_rows(d.B * d.H), kThreads, 0, stream()>>>(scores, dg.get(), d, g.sp,
                                                                      g.K, partial.get());
  TAPIR_LAUNCH_CHECK("score_knots_kernel");
  // Pair order: b outer, h inner; a per-head spline sums over b only.
  knot_finish(partial.get(), d.B * d.H, g.K, g.per_head ? d.H : 1, d_g_values);
}

template <typename T>
Dims dims(int64_t B, int64_t T_len, int64_t C, int64_t H, const char* who) {
  Dims d{B, T_len, C, H, H > 0 ? C / H : 0};
  check_dims<T>(d, who);
  return d;
}

template <typename T>
ScoreSpline<T> score_spline(const T* g_values, const SplineGrid& grid, bool per_head,
                            const char* who) {
  TAPIR_CHECK(g_values != nullptr, who, ": the spline's values are null");
  return ScoreSpline<T>{g_values, SplineLocator<T>(grid), grid.knots(), per_head};
}

// The kernels below work in the probabilities (and scores) the caller keeps.
template <typename T>
void check_kept(const void* p, const char* who) {
  TAPIR_CHECK(p != nullptr, who, ": the CUDA kernels need the probabilities and scores kept");
}

}  // namespace

template <typename T>
void attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                       const T* slopes, T* probs, T* out) {
  check_kept<T>(probs, "cuda::attention_forward");
  forward_impl(qkv, dims<T>(B, T_len, C, H, "cuda::attention_forward"), slopes, ScoreSpline<T>{},
               static_cast<T*>(nullptr), probs, out);
}

template <typename T>
void attention_backward(const T* qkv, const T*, const T* probs, const T* d_out, int64_t B,
                        int64_t T_len, int64_t C, int64_t H, T* d_qkv, bool accumulate) {
  check_kept<T>(probs, "cuda::attention_backward");
  backward_impl(qkv, static_cast<const T*>(nullptr), probs, d_out,
                dims<T>(B, T_len, C, H, "cuda::attention_backward"), ScoreSpline<T>{}, d_qkv,
                static_cast<T*>(nullptr), accumulate);
}

template <typename T>
void score_spline_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                    const T* slopes, const T* g_values, const SplineGrid& grid,
                                    bool per_head, T* scores, T* probs, T* out) {
  const char* who = "cuda::score_spline_attention_forward";
  check_kept<T>(probs, who);
  check_kept<T>(scores, who);
  forward_impl(qkv, dims<T>(B, T_len, C, H, who), slopes,
               score_spline(g_values, grid, per_head, who), scores, probs, out);
}

template <typename T>
void score_spline_attention_backward(const T* qkv, const T*, const T* scores, const T* probs,
                                     const T* d_out, int64_t B, int64_t T_len, int64_t C, int64_t H,
                                     const T* g_values, const SplineGrid& grid, bool per_head,
                                     T* d_qkv, T* d_g_values, bool accumulate) {
  const char* who = "cuda::score_spline_attention_backward";
  check_kept<T>(probs, who);
  check_kept<T>(scores, who);
  backward_impl(qkv, scores, probs, d_out, dims<T>(B, T_len, C, H, who),
                score_spline(g_values, grid, per_head, who), d_qkv, d_g_values, accumulate);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_backward);

}  // namespace tapir::cuda
