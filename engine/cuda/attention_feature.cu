// Causal linear attention with a learned feature map on the device:
// K(q, k) = phi(q) . phi(k), phi = softplus(g) + eps elementwise, g a linear
// spline (see engine/cpu/attention_feature.cpp for why phi is positive).
//
// phi is an elementwise kernel. The running sums are sequential in time, so
// one block owns a (batch, head) pair and walks the positions in order: the
// D x D state (S, or R in the backward's second pass) is updated one entry
// per thread (in shared memory when it fits, else in global scratch), the
// denominators are fixed-order block sums, and each output entry is summed
// over the state's rows in order by one thread. The knot sums are formed per
// pair (one block per pair, fixed order) and added in pair order.
#include "engine/cuda/common.cuh"
#include "engine/cuda/spline_eval.cuh"
#include "engine/kernel_formulas.h"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

struct Dims {
  int64_t B, T, C, H, D;
};

// Dynamic shared memory is raw bytes (one declaration for every T).
extern __shared__ __align__(16) unsigned char dynamic_shared[];

// features (B, T, 2C) = phi of the [q | k] columns of qkv (B, T, 3C).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    features_kernel(const T* qkv, Dims d, const T* g_values, SplineLocator<T> sp, T eps,
                    T* features) {
  TAPIR_GRID_STRIDE(idx, d.B * d.T * 2 * d.C) {
    const int64_t col = idx % (2 * d.C), bt = idx / (2 * d.C);
    features[idx] = softplus(sp.value(g_values, qkv[bt * 3 * d.C + col])) + eps;
  }
}

// Where the D x D state lives: in shared memory after the vectors when it
// fits, else the pair's slice of global scratch.
template <typename T>
__device__ inline T* state_for(T* shared_after_vectors, T* global_state, int64_t pair, int64_t D) {
  return global_state ? global_state + pair * D * D : shared_after_vectors;
}

// One block per pair. Shared: qf, kf, v, z (D each), then S if it fits.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    feature_forward_kernel(const T* qkv, const T* features, Dims d, T* global_state, T* out) {
  __shared__ T shared[32];
  T* vec = reinterpret_cast<T*>(dynamic_shared);
  const int64_t D = d.D, pairs = d.B * d.H;
  T *qf = vec, *kf = vec + D, *v = vec + 2 * D, *z = vec + 3 * D;
  for (int64_t pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
    const int64_t b = pair / d.H, h = pair % d.H;
    T* S = state_for(vec + 4 * D, global_state, pair, D);
    for (int64_t x = threadIdx.x; x < D * D; x += blockDim.x) S[x] = T(0);
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) z[c] = T(0);
    for (int64_t i = 0; i < d.T; ++i) {
      const int64_t bt = b * d.T + i;
      __syncthreads();  // the previous step is done with the vectors
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
        qf[c] = features[bt * 2 * d.C + h * D + c];
        kf[c] = features[bt * 2 * d.C + d.C + h * D + c];
        v[c] = qkv[bt * 3 * d.C + 2 * d.C + h * D + c];
      }
      __syncthreads();
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) z[c] += kf[c];
      for (int64_t x = threadIdx.x; x < D * D; x += blockDim.x) S[x] += kf[x / D] * v[x % D];
      __syncthreads();
      T part = T(0);
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) part += qf[c] * z[c];
      const T inv = T(1) / block_sum(part, shared);
      T* o = out + bt * d.C + h * D;
      for (int64_t e = threadIdx.x; e < D; e += blockDim.x) {
        T s = T(0);
        for (int64_t c = 0; c < D; ++c) s += qf[c] * S[c * D + e];
        o[e] = s * inv;
      }
    }
    __syncthreads();
  }
}

// One block per pair, both passes of the backward. Shared: qf, kf, v, z, go,
// o, dn, r (D each), then the state if it fits. Writes dqf, dkf (pairs, T, D)
// and dn (pairs, T, D), dd (pairs, T) as scratch; adds into d_v.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    feature_backward_kernel(const T* qkv, const T* features, const T* out, const T* d_out, Dims d,
                            T* global_state, T* dn_all, T* dd_all, T* dqf, T* dkf, T* d_qkv) {
  __shared__ T shared[32];
  T* vec = reinterpret_cast<T*>(dynamic_shared);
  const int64_t D = d.D, pairs = d.B * d.H;
  T *qf = vec, *kf = vec + D, *v = vec + 2 * D, *z = vec + 3 * D;
  T *go = vec + 4 * D, *o = vec + 5 * D, *dn = vec + 6 * D, *r = vec + 7 * D;
  for (int64_t pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
    const int64_t b = pair / d.H, h = pair % d.H;
    T* S = state_for(vec + 8 * D, global_state, pair, D);
    T* pair_dn = dn_all + pair * d.T * D;
    T* pair_dd = dd_all + pair * d.T;
    for (int64_t x = threadIdx.x; x < D * D; x += blockDim.x) S[x] = T(0);
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) z[c] = T(0);
    // Pass 1, forward in time: d phi(q_i) from S_i and z_i.
    for (int64_t i = 0; i < d.T; ++i) {
      const int64_t bt = b * d.T + i;
      __syncthreads();
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
        qf[c] = features[bt * 2 * d.C + h * D + c];
        kf[c] = features[bt * 2 * d.C + d.C + h * D + c];
        v[c] = qkv[bt * 3 * d.C + 2 * d.C + h * D + c];
        go[c] = d_out[bt * d.C + h * D + c];
        o[c] = out[bt * d.C + h * D + c];
      }
      __syncthreads();
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) z[c] += kf[c];
      for (int64_t x = threadIdx.x; x < D * D; x += blockDim.x) S[x] += kf[x / D] * v[x % D];
      __syncthreads();
      T part_den = T(0), part_go = T(0);
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
        part_den += qf[c] * z[c];
        part_go += go[c] * o[c];
      }
      const T den = block_sum(part_den, shared);
      const T go_dot_o = block_sum(part_go, shared);
      const T dd = -go_dot_o / den;
      for (int64_t e = threadIdx.x; e < D; e += blockDim.x) {
        dn[e] = go[e] / den;
        pair_dn[i * D + e] = dn[e];
      }
      if (threadIdx.x == 0) pair_dd[i] = dd;
      __syncthreads();
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
        T s = dd * z[c];
        for (int64_t e = 0; e < D; ++e) s += S[c * D + e] * dn[e];
        dqf[(pair * d.T + i) * D + c] = s;
      }
    }
    // Pass 2, backward in time: d phi(k_j) and d v_j from the suffix sums
    // R = sum phi(q_i) dn_i^T and r = sum dd_i phi(q_i), over i >= j.
    __syncthreads();
    T* R = S;
    for (int64_t x = threadIdx.x; x < D * D; x += blockDim.x) R[x] = T(0);
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) r[c] = T(0);
    for (int64_t j = d.T - 1; j >= 0; --j) {
      const int64_t bt = b * d.T + j;
      __syncthreads();
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
        qf[c] = features[bt * 2 * d.C + h * D + c];
        kf[c] = features[bt * 2 * d.C + d.C + h * D + c];
        v[c] = qkv[bt * 3 * d.C + 2 * d.C + h * D + c];
        dn[c] = pair_dn[j * D + c];
      }
      __syncthreads();
      const T dd = pair_dd[j];
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) r[c] += dd * qf[c];
      for (int64_t x = threadIdx.x; x < D * D; x += blockDim.x) R[x] += qf[x / D] * dn[x % D];
      __syncthreads();
      for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
        T s = r[c];
        for (int64_t e = 0; e < D; ++e) s += R[c * D + e] * v[e];
        dkf[(pair * d.T + j) * D + c] = s;
      }
      if (d_qkv) {
        T* dv = d_qkv + bt * 3 * d.C + 2 * d.C + h * D;
        for (int64_t e = threadIdx.x; e < D; e += blockDim.x) {
          T s = dv[e];
          for (int64_t c = 0; c < D; ++c) s += kf[c] * R[c * D + e];
          dv[e] = s;
        }
      }
    }
    __syncthreads();
  }
}

// d_x += sigmoid(g(x)) g'(x) d phi for the q and k columns of every pair.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    feature_dx_kernel(const T* qkv, Dims d, const T* g_values, SplineLocator<T> sp, const T* dqf,
                      const T* dkf, T* d_qkv) {
  TAPIR_GRID_STRIDE(idx, d.B * d.T * 2 * d.C) {
    const int64_t col = idx % (2 * d.C), t = (idx / (2 * d.C)) % d.T, b = idx / (2 * d.C * d.T);
    const bool key = col >= d.C;
    const int64_t cc = key ? col - d.C : col, h = cc / d.D, c = cc % d.D;
    const int64_t at = (b * d.T + t) * 3 * d.C + col;
    const T x = qkv[at];
    const T u = sp.units(x);
    const int32_t k = sp.interval(u);
    const T dphi = (key ? dkf : dqf)[((b * d.H + h) * d.T + t) * d.D + c];
    const T w = sigmoid(spline_value(g_values, k, sp.position(x, k))) * dphi;
    d_qkv[at] += w * sp.slope_scale(u) * (g_values[k + 1] - g_values[k]);
  }
}

// One block per pair: its knot sums over (side, t, c), the CPU's order.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    feature_knots_kernel(const T* qkv, Dims d, const T* g_values, SplineLocator<T> sp, const T* dqf,
                         const T* dkf, int64_t K, T* partial) {
  __shared__ int32_t s_index[kKnotTile];
  __shared__ T s_pos[kKnotTile];
  __shared__ T s_w[kKnotTile];
  const int64_t pairs = d.B * d.H, per_side = d.T * d.D, per_pair = 2 * per_side;
  for (int64_t pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
    const int64_t b = pair / d.H, h = pair % d.H;
    T* acc = partial + pair * K;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) acc[k] = T(0);
    for (int64_t begin = 0; begin < per_pair; begin += kKnotTile) {
      const int count =
          static_cast<int>(per_pair - begin < kKnotTile ? per_pair - begin : kKnotTile);
      __syncthreads();
      for (int e = threadIdx.x; e < count; e += blockDim.x) {
        const int64_t idx = begin + e, side = idx / per_side, t = (idx / d.D) % d.T, c = idx % d.D;
        const T x = qkv[(b * d.T + t) * 3 * d.C + side * d.C + h * d.D + c];
        const int32_t k = sp.interval(sp.units(x));
        const T pos = sp.position(x, k);
        const T dphi = (side ? dkf : dqf)[(pair * d.T + t) * d.D + c];
        s_index[e] = k;
        s_pos[e] = pos;
        s_w[e] = sigmoid(spline_value(g_values, k, pos)) * dphi;
      }
      __syncthreads();
      knot_tile_sums(s_index, s_pos, s_w, count, K, acc);
    }
    __syncthreads();
  }
}

Dims feature_dims(int64_t B, int64_t T_len, int64_t C, int64_t H, const char* who) {
  TAPIR_CHECK(H > 0 && C % H == 0, who, ": C = ", C, " is not a multiple of H = ", H);
  return Dims{B, T_len, C, H, C / H};
}

// Threads per pair block and whether the state fits in shared memory.
struct PairLaunch {
  int threads;
  size_t shared_bytes;
  bool state_in_shared;
};
template <typename T>
PairLaunch pair_launch(int64_t D, int vectors) {
  constexpr size_t kSharedLimit = 40 * 1024;  // under the 48 KiB default, with room for the rest
  const size_t vec_bytes = size_t(vectors * D) * sizeof(T);
  const size_t state_bytes = size_t(D * D) * sizeof(T);
  const bool fits = vec_bytes + state_bytes <= kSharedLimit;
  TAPIR_CHECK(vec_bytes <= kSharedLimit, "cuda feature attention: head size D = ", D,
              " is too large");
  return {row_threads(D * D < 256 ? D * D : 256), fits ? vec_bytes + state_bytes : vec_bytes, fits};
}

}  // namespace

template <typename T>
void feature_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                               const T* g_values, const SplineGrid& grid, T* features, T* out) {
  const Dims d = feature_dims(B, T_len, C, H, "cuda::feature_attention_forward");
  if (B * T_len * C == 0) return;
  const SplineLocator<T> sp(grid);
  features_kernel<<<grid_for(B * T_len * 2 * C), kThreads, 0, stream()>>>(
      qkv, d, g_values, sp, static_cast<T>(kFeatureEps), features);
  TAPIR_LAUNCH_CHECK("features_kernel");
  const PairLaunch pl = pair_launch<T>(d.D, 4);
  Scratch<T> state(pl.state_in_shared ? 0 : B * H * d.D * d.D);
  feature_forward_kernel<<<grid_rows(B * H), pl.threads, pl.shared_bytes, stream()>>>(
      qkv, features, d, state.get(), out);
  TAPIR_LAUNCH_CHECK("feature_forward_kernel");
}

template <typename T>
void feature_attention_backward(const T* qkv, const T* features, const T* out, const T* d_out,
                                int64_t B, int64_t T_len, int64_t C, int64_t H, const T* g_values,
                                const SplineGrid& grid, T* d_qkv, T* d_g_values) {
  const Dims d = feature_dims(B, T_len, C, H, "cuda::feature_attention_backward");
  if (B * T_len * C == 0 || (!d_qkv && !d_g_values)) return;
  const SplineLocator<T> sp(grid);
  const int64_t pairs = B * H, D = d.D, K = grid.knots();
  const PairLaunch pl = pair_launch<T>(D, 8);
  Scratch<T> state(pl.state_in_shared ? 0 : pairs * D * D);
  Scratch<T> dn(pairs * T_len * D), dd(pairs * T_len), dqf(pairs * T_len * D),
      dkf(pairs * T_len * D);
  feature_backward_kernel<<<grid_rows(pairs), pl.threads, pl.shared_bytes, stream()>>>(
      qkv, features, out, d_out, d, state.get(), dn.get(), dd.get(), dqf.get(), dkf.get(), d_qkv);
  TAPIR_LAUNCH_CHECK("feature_backward_kernel");
  if (d_qkv) {
    feature_dx_kernel<<<grid_for(B * T_len * 2 * C), kThreads, 0, stream()>>>(
        qkv, d, g_values, sp, dqf.get(), dkf.get(), d_qkv);
    TAPIR_LAUNCH_CHECK("feature_dx_kernel");
  }
  if (!d_g_values) return;
  Scratch<T> partial(pairs * K);
  feature_knots_kernel<<<grid_rows(pairs), kThreads, 0, stream()>>>(qkv, d, g_values, sp, dqf.get(),
                                                                    dkf.get(), K, partial.get());
  TAPIR_LAUNCH_CHECK("feature_knots_kernel");
  knot_finish(partial.get(), pairs, K, 1, d_g_values);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(feature_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(feature_attention_backward);

}  // namespace tapir::cuda
