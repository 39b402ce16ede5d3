// Causal linear attention with a learned feature map (the feature-kernel
// form of learned attention): K(q, k) = phi(q) . phi(k), phi = softplus(g) +
// eps elementwise, g a linear spline. Causality comes from running sums over
// the positions, so memory is O(T) and no T x T array is ever formed.
//
// Why phi is positive: softplus(g) > 0 for every finite g and eps = 1e-4
// bounds it away from 0 where softplus underflows. So every kernel value
// phi(q) . phi(k) >= D eps^2 > 0, the denominator sum_j K(q_i, k_j) is a sum
// of positive terms (never zero, never changing sign), and the weights are a
// convex combination whatever values the spline learns.
//
// Each (batch, head) pair is independent and handled by one thread; its knot
// sums go to its own row of partial sums, added in pair order at the end.
#include <cmath>
#include <vector>

#include "engine/cpu/spline_eval.h"
#include "engine/kernel_formulas.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {

// Views of one (b, h) pair: rows of D values with the given row strides.
template <typename T>
struct PairView {
  int64_t D, stride_qkv, stride_feat;
  const T *q, *k, *v;  // in qkv
  const T *qf, *kf;    // phi(q), phi(k) in features
};

template <typename T>
PairView<T> pair_view(const T* qkv, const T* features, int64_t b, int64_t h, int64_t T_len,
                      int64_t C, int64_t H) {
  const int64_t D = C / H;
  const T* base = qkv + b * T_len * 3 * C + h * D;
  const T* fbase = features + b * T_len * 2 * C + h * D;
  return {D, 3 * C, 2 * C, base, base + C, base + 2 * C, fbase, fbase + C};
}

}  // namespace

template <typename T>
void feature_attention_forward(const T* qkv, int64_t B, int64_t T_len, int64_t C, int64_t H,
                               const T* g_values, const SplineGrid& grid, T* features, T* out) {
  const SplineLocator<T> loc(grid);
  const T eps = static_cast<T>(kFeatureEps);
  parallel_for(B * H, 1, [&](int64_t p0, int64_t p1) {
    thread_local std::vector<T> state;  // S (D x D) then z (D)
    for (int64_t pair = p0; pair < p1; ++pair) {
      const int64_t b = pair / H, h = pair % H;
      const PairView<T> pv = pair_view(qkv, features, b, h, T_len, C, H);
      const int64_t D = pv.D;
      T* qf_out = features + b * T_len * 2 * C + h * D;  // pv.qf, writable
      for (int side = 0; side < 2; ++side)
        for (int64_t t = 0; t < T_len; ++t)
          for (int64_t c = 0; c < D; ++c) {
            const T x = (side ? pv.k : pv.q)[t * pv.stride_qkv + c];
            qf_out[(side ? C : 0) + t * pv.stride_feat + c] =
                softplus(loc.value(g_values, x)) + eps;
          }
      state.assign(static_cast<size_t>(D * D + D), T(0));
      T* S = state.data();
      T* z = S + D * D;
      for (int64_t i = 0; i < T_len; ++i) {
        const T* kf = pv.kf + i * pv.stride_feat;
        const T* qf = pv.qf + i * pv.stride_feat;
        const T* v = pv.v + i * pv.stride_qkv;
        for (int64_t c = 0; c < D; ++c) {
          z[c] += kf[c];
          for (int64_t e = 0; e < D; ++e) S[c * D + e] += kf[c] * v[e];
        }
        T den = 0;
        for (int64_t c = 0; c < D; ++c) den += qf[c] * z[c];
        T* o = out + (b * T_len + i) * C + h * D;
        for (int64_t e = 0; e < D; ++e) o[e] = 0;
        for (int64_t c = 0; c < D; ++c)
          for (int64_t e = 0; e < D; ++e) o[e] += qf[c] * S[c * D + e];
        const T inv = T(1) / den;
        for (int64_t e = 0; e < D; ++e) o[e] *= inv;
      }
    }
  });
}

template <typename T>
void feature_attention_backward(const T* qkv, const T* features, const T* out, const T* d_out,
                                int64_t B, int64_t T_len, int64_t C, int64_t H, const T* g_values,
                                const SplineGrid& grid, T* d_qkv, T* d_g_values) {
  const SplineLocator<T> loc(grid);
  const int64_t K = grid.knots();
  thread_local std::vector<T> partials;  // knot sums per pair, in the calling thread
  if (d_g_values) partials.assign(static_cast<size_t>(B * H * K), T(0));
  T* partial = partials.data();
  parallel_for(B * H, 1, [&](int64_t p0, int64_t p1) {
    thread_local std::vector<T> scratch;
    for (int64_t pair = p0; pair < p1; ++pair) {
      const int64_t b = pair / H, h = pair % H;
      const PairView<T> pv = pair_view(qkv, features, b, h, T_len, C, H);
      const int64_t D = pv.D;
      scratch.assign(static_cast<size_t>(2 * (D * D + D) + T_len * (3 * D + 1)), T(0));
      T* S = scratch.data();  // running sums, as in the forward
      T* z = S + D * D;
      T* R = z + D;  // suffix sums of phi(q_i) dn_i^T and dd_i phi(q_i)
      T* r = R + D * D;
      T* dn = r + D;           // (T, D): d numerator
      T* dd = dn + T_len * D;  // (T): d denominator
      T* dqf = dd + T_len;     // (T, D): d phi(q)
      T* dkf = dqf + T_len * D;
      T* dv = d_qkv ? d_qkv + b * T_len * 3 * C + 2 * C + h * D : nullptr;

      // Pass 1, forward in time: d phi(q_i) from S_i and z_i.
      for (int64_t i = 0; i < T_len; ++i) {
        const T* kf = pv.kf + i * pv.stride_feat;
        const T* qf = pv.qf + i * pv.stride_feat;
        const T* v = pv.v + i * pv.stride_qkv;
        for (int64_t c = 0; c < D; ++c) {
          z[c] += kf[c];
          for (int64_t e = 0; e < D; ++e) S[c * D + e] += kf[c] * v[e];
        }
        T den = 0;
        for (int64_t c = 0; c < D; ++c) den += qf[c] * z[c];
        const T* go = d_out + (b * T_len + i) * C + h * D;
        const T* o = out + (b * T_len + i) * C + h * D;
        T go_dot_o = 0;
        for (int64_t e = 0; e < D; ++e) {
          dn[i * D + e] = go[e] / den;
          go_dot_o += go[e] * o[e];
        }
        dd[i] = -go_dot_o / den;
        for (int64_t c = 0; c < D; ++c) {
          T s = dd[i] * z[c];
          for (int64_t e = 0; e < D; ++e) s += S[c * D + e] * dn[i * D + e];
          dqf[i * D + c] = s;
        }
      }
      // Pass 2, backward in time: d phi(k_j) and d v_j from the suffix sums.
      for (int64_t j = T_len - 1; j >= 0; --j) {
        const T* qf = pv.qf + j * pv.stride_feat;
        const T* kf = pv.kf + j * pv.stride_feat;
        const T* v = pv.v + j * pv.stride_qkv;
        for (int64_t c = 0; c < D; ++c) {
          r[c] += dd[j] * qf[c];
          for (int64_t e = 0; e < D; ++e) R[c * D + e] += qf[c] * dn[j * D + e];
        }
        for (int64_t c = 0; c < D; ++c) {
          T s = r[c];
          for (int64_t e = 0; e < D; ++e) s += R[c * D + e] * v[e];
          dkf[j * D + c] = s;
        }
        if (dv)
          for (int64_t c = 0; c < D; ++c)
            for (int64_t e = 0; e < D; ++e) dv[j * 3 * C + e] += kf[c] * R[c * D + e];
      }
      // phi = softplus(g(x)) + eps: d x = sigmoid(g) g'(x) d phi, and the
      // knots of g get sigmoid(g) d phi split by the interpolation weights.
      T* hist = d_g_values ? partial + pair * K : nullptr;
      for (int side = 0; side < 2; ++side) {
        const T* x = side ? pv.k : pv.q;
        const T* dphi = side ? dkf : dqf;
        T* dx = d_qkv ? d_qkv + b * T_len * 3 * C + (side ? C : 0) + h * D : nullptr;
        for (int64_t t = 0; t < T_len; ++t)
          for (int64_t c = 0; c < D; ++c) {
            const T xe = x[t * pv.stride_qkv + c];
            const T u = loc.units(xe);
            const int32_t kk = loc.interval(u);
            const T pos = loc.position(xe, kk);
            const T w = sigmoid(spline_value(g_values, kk, pos)) * dphi[t * D + c];
            if (dx) dx[t * 3 * C + c] += w * loc.slope_scale(u) * (g_values[kk + 1] - g_values[kk]);
            if (hist) {
              hist[kk] += w - w * pos;
              hist[kk + 1] += w * pos;
            }
          }
      }
    }
  });
  if (!d_g_values) return;
  for (int64_t kk = 0; kk < K; ++kk) {
    double s = 0;
    for (int64_t pair = 0; pair < B * H; ++pair) s += double(partial[pair * K + kk]);
    d_g_values[kk] += static_cast<T>(s);
  }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(feature_attention_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(feature_attention_backward);

}  // namespace tapir::cpu
