// Fused causal multi-head attention, softmax or score-spline, on the device.
// Each stage is its own kernel over the (batch, head) pairs: scores (one
// thread per (i, j), a dot product over D), the causal row softmax (one
// block per row), the products with v and the gradients (one thread per
// output element, summing over positions in order). The knot sums of the
// score spline are formed per pair (one block per pair, fixed order) and
// added in pair order, as on the CPU.
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
  DeviceSpline<T> sp{};
  int64_t K = 0;
  bool per_head = false;
  __device__ const T* head_values(int64_t h) const { return values + (per_head ? h * K : 0); }
};

// Shapes of one call: qkv (B, T, 3C), probs (B, H, T, T), out (B, T, C).
struct Dims {
  int64_t B, T, C, H, D;
};

// s_ij (with the ALiBi bias) for j <= i, and probs = s or g(s) before the
// softmax; entries above the diagonal are 0.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    scores_kernel(const T* qkv, Dims d, const T* slopes, ScoreSpline<T> g, T scale, T* scores,
                  T* probs) {
  TAPIR_GRID_STRIDE(idx, d.B * d.H * d.T * d.T) {
    const int64_t j = idx % d.T, i = (idx / d.T) % d.T, pair = idx / (d.T * d.T);
    const int64_t b = pair / d.H, h = pair % d.H;
    if (j > i) {
      probs[idx] = T(0);
      if (scores) scores[idx] = T(0);
      continue;
    }
    const T* q = qkv + (b * d.T + i) * 3 * d.C + h * d.D;
    const T* k = qkv + (b * d.T + j) * 3 * d.C + d.C + h * d.D;
    T dot = T(0);
    for (int64_t e = 0; e < d.D; ++e) dot += q[e] * k[e];
    T s = dot * scale;
    s -= (slopes ? slopes[h] : T(0)) * T(i - j);
    if (g.values) {
      scores[idx] = s;
      probs[idx] = g.sp.value(g.head_values(h), s);
    } else {
      probs[idx] = s;
    }
  }
}

// In place over row i of each pair: softmax over j <= i.
template <typename T>
__global__ void __launch_bounds__(kMaxRowThreads) causal_softmax_kernel(Dims d, T* probs) {
  __shared__ T shared[32];
  const int64_t rows = d.B * d.H * d.T;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t i = row % d.T, n = i + 1;
    T* p = probs + row * d.T;
    T mx = T(-INFINITY);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = p[j] > mx ? p[j] : mx;
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

// out (b, i, h*D + e) = sum over j <= i of p_ij v_j[e].
template <typename T>
__global__ void __launch_bounds__(kThreads)
    attend_kernel(const T* qkv, const T* probs, Dims d, T* out) {
  TAPIR_GRID_STRIDE(idx, d.B * d.T * d.C) {
    const int64_t col = idx % d.C, i = (idx / d.C) % d.T, b = idx / (d.C * d.T);
    const int64_t h = col / d.D;
    const T* p = probs + ((b * d.H + h) * d.T + i) * d.T;
    const T* v = qkv + b * d.T * 3 * d.C + 2 * d.C + col;
    T s = T(0);
    for (int64_t j = 0; j <= i; ++j) s += p[j] * v[j * 3 * d.C];
    out[idx] = s;
  }
}

// d_probs_ij = d_out_i . v_j for j <= i, 0 above the diagonal.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    d_probs_kernel(const T* qkv, const T* d_out, Dims d, T* ds) {
  TAPIR_GRID_STRIDE(idx, d.B * d.H * d.T * d.T) {
    const int64_t j = idx % d.T, i = (idx / d.T) % d.T, pair = idx / (d.T * d.T);
    const int64_t b = pair / d.H, h = pair % d.H;
    if (j > i) {
      ds[idx] = T(0);
      continue;
    }
    const T* go = d_out + (b * d.T + i) * d.C + h * d.D;
    const T* v = qkv + (b * d.T + j) * 3 * d.C + 2 * d.C + h * d.D;
    T dot = T(0);
    for (int64_t e = 0; e < d.D; ++e) dot += go[e] * v[e];
    ds[idx] = dot;
  }
}

// Row i of each pair, in place: ds = d probs -> d scores (times 1/sqrt(D)),
// through the softmax and, for the score spline, through g'. dg (null when
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
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const T dgs = p[j] * (grow[j] - dot);
      if (!g.values) {
        grow[j] = dgs * scale;
        continue;
      }
      const T* gv = g.head_values(h);
      const T u = g.sp.units(scores[row * d.T + j]);
      const int32_t k = g.sp.interval(u);
      grow[j] = g.sp.slope_scale(u) * (gv[k + 1] - gv[k]) * dgs * scale;
      if (dg) dg[row * d.T + j] = dgs;
    }
  }
}

// d_v_j += sum over i >= j of p_ij d_out_i.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    d_values_kernel(const T* probs, const T* d_out, Dims d, T* d_qkv) {
  TAPIR_GRID_STRIDE(idx, d.B * d.T * d.C) {
    const int64_t col = idx % d.C, j = (idx / d.C) % d.T, b = idx / (d.C * d.T);
    const int64_t h = col / d.D;
    const T* p = probs + (b * d.H + h) * d.T * d.T + j;  // column j
    const T* go = d_out + b * d.T * d.C + col;
    T s = T(0);
    for (int64_t i = j; i < d.T; ++i) s += p[i * d.T] * go[i * d.C];
    d_qkv[(b * d.T + j) * 3 * d.C + 2 * d.C + col] += s;
  }
}

// d_q_i += sum over j <= i of ds_ij k_j; d_k_j += sum over i >= j of ds_ij q_i.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    d_queries_keys_kernel(const T* qkv, const T* ds, Dims d, T* d_qkv) {
  TAPIR_GRID_STRIDE(idx, d.B * d.T * 2 * d.C) {
    const int64_t col = idx % (2 * d.C), t = (idx / (2 * d.C)) % d.T, b = idx / (2 * d.C * d.T);
    const bool key = col >= d.C;
    const int64_t c = key ? col - d.C : col, h = c / d.D;
    const T* pair_ds = ds + (b * d.H + h) * d.T * d.T;
    const T* base = qkv + b * d.T * 3 * d.C;
    T s = T(0);
    if (!key) {
      const T* k = base + d.C + c;
      for (int64_t j = 0; j <= t; ++j) s += pair_ds[t * d.T + j] * k[j * 3 * d.C];
    } else {
      const T* q = base + c;
      for (int64_t i = t; i < d.T; ++i) s += pair_ds[i * d.T + t] * q[i * 3 * d.C];
    }
    d_qkv[(b * d.T + t) * 3 * d.C + col] += s;
  }
}

// One block per pair: the pair's knot sums into partial (pairs, K), over its
// entries j <= i in row order.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    score_knots_kernel(const T* scores, const T* dg, Dims d, DeviceSpline<T> sp, int64_t K,
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

template <typename T>
void forward_impl(const T* qkv, const Dims& d, const T* slopes, const ScoreSpline<T>& g, T* scores,
                  T* probs, T* out) {
  if (d.B * d.T * d.C == 0) return;
  const T scale = T(1) / std::sqrt(T(d.D));
  const int64_t entries = d.B * d.H * d.T * d.T;
  scores_kernel<<<grid_for(entries), kThreads, 0, stream()>>>(qkv, d, slopes, g, scale, scores,
                                                              probs);
  TAPIR_LAUNCH_CHECK("scores_kernel");
  causal_softmax_kernel<<<grid_rows(d.B * d.H * d.T), row_threads(d.T), 0, stream()>>>(d, probs);
  TAPIR_LAUNCH_CHECK("causal_softmax_kernel");
  attend_kernel<<<grid_for(d.B * d.T * d.C), kThreads, 0, stream()>>>(qkv, probs, d, out);
  TAPIR_LAUNCH_CHECK("attend_kernel");
}

template <typename T>
void backward_impl(const T* qkv, const T* scores, const T* probs, const T* d_out, const Dims& d,
                   const ScoreSpline<T>& g, T* d_qkv, T* d_g_values) {
  const bool knot_grad = g.values && d_g_values;
  if (d.B * d.T * d.C == 0 || (!d_qkv && !knot_grad)) return;
  const T scale = T(1) / std::sqrt(T(d.D));
  const int64_t entries = d.B * d.H * d.T * d.T;
  if (d_qkv) {
    d_values_kernel<<<grid_for(d.B * d.T * d.C), kThreads, 0, stream()>>>(probs, d_out, d, d_qkv);
    TAPIR_LAUNCH_CHECK("d_values_kernel");
  }
  Scratch<T> ds(entries), dg(knot_grad ? entries : 0);
  d_probs_kernel<<<grid_for(entries), kThreads, 0, stream()>>>(qkv, d_out, d, ds.get());
  TAPIR_LAUNCH_CHECK("d_probs_kernel");
  d_scores_kernel<<<grid_rows(d.B * d.H * d.T), row_threads(d.T), 0, stream()>>>(
      probs, scores, d, g, scale, ds.get(), dg.get());
  TAPIR_LAUNCH_CHECK("d_scores_kernel");
  if (d_qkv) {
    d_queries_keys_kernel<<<grid_for(d.B * d.T * 2 * d.C), kThreads, 0, stream()>>>(qkv, ds.get(),
                                                                                    d, d_qkv);
    TAPIR_LAUNCH_CHECK("d_queries_keys_kernel");
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
  return ScoreSpline<T>{g_values, DeviceSpline<T>::make(grid), grid.knots(), per_head};
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
                        int64_t T_len, int64_t C, int64_t H, T* d_qkv) {
  check_kept<T>(probs, "cuda::attention_backward");
  backward_impl(qkv, static_cast<const T*>(nullptr), probs, d_out,
                dims<T>(B, T_len, C, H, "cuda::attention_backward"), ScoreSpline<T>{}, d_qkv,
                static_cast<T*>(nullptr));
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
                                     T* d_qkv, T* d_g_values) {
  const char* who = "cuda::score_spline_attention_backward";
  check_kept<T>(probs, who);
  check_kept<T>(scores, who);
  backward_impl(qkv, scores, probs, d_out, dims<T>(B, T_len, C, H, who),
                score_spline(g_values, grid, per_head, who), d_qkv, d_g_values);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(attention_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(score_spline_attention_backward);

}  // namespace tapir::cuda
