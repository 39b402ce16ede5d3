// CUDA spline and attention kernels against their CPU twins: the linear
// spline (forward with NaN, +-inf and extrapolation; backward with the knot
// sums over several chunks), softmax attention with and without ALiBi,
// score-spline attention (shared and per-head splines) and feature-spline
// attention, forward and backward, with non-zero gradients accumulated into
// and null gradient pointers; and the knot sums' determinism. See
// cuda_parity.h for the comparison; every case skips without a GPU.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuda_parity.h"
#include "engine/cuda/runtime.h"
#include "engine/kernels.h"

using namespace cuda_parity;
namespace cpu = tapir::cpu;
namespace gpu = tapir::cuda;
using tapir::SplineGrid;

#if defined(TAPIR_HAS_CUDA)

namespace {

// Points on or beyond the grid, each at least 5% of an interval away from a
// knot: where x sits within rounding of a knot the two sides may pick
// neighbouring intervals, which changes the slope (and the knot weights) by
// design, so such points do not test parity.
template <typename T>
std::vector<T> spline_points(int64_t n, const SplineGrid& grid, uint64_t seed) {
  const auto u = random_vector<double>(n, seed, -3.0, double(grid.knots() + 2));
  const double h = (grid.hi() - grid.lo()) / double(grid.knots() - 1);
  std::vector<T> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double k = std::floor(u[i]), t = 0.05 + 0.9 * (u[i] - k);
    x[i] = static_cast<T>(grid.lo() + (k + t) * h);
  }
  return x;
}

}  // namespace

TEST_CASE_TEMPLATE("cuda parity: linear spline", T, float, double) {
  if (!gpu_or_skip()) return;
  for (int linear = 0; linear < 2; ++linear) {
    CAPTURE(linear);
    const SplineGrid grid{23, -2.0, 3.0, bool(linear)};
    const int64_t K = grid.knots();
    const auto values = random_vector<T>(K, 200, -2, 2);
    DeviceArray<T> dvalues(values);

    auto x = spline_points<T>(5000, grid, 201);
    const T inf = std::numeric_limits<T>::infinity();
    for (T special : {std::numeric_limits<T>::quiet_NaN(), inf, -inf, T(grid.lo()), T(grid.hi())})
      x.push_back(special);
    const int64_t n = static_cast<int64_t>(x.size());
    std::vector<T> out(n);
    cpu::spline_forward(x.data(), n, values.data(), grid, out.data());
    DeviceArray<T> dx(x), dout(out);
    gpu::spline_forward(dx.get(), n, dvalues.get(), grid, dout.get());
    check_close("spline_forward", out, dout.host(), tol<T>(1e-6));  // a locate and a lerp

    // Backward over several chunks (CPU: 16384 elements, GPU: 1024).
    const int64_t m = 40000;
    const auto xb = spline_points<T>(m, grid, 202), d_out = random_vector<T>(m, 203);
    DeviceArray<T> dxb(xb), dd_out(d_out);
    for (int which = 0; which < 3; ++which) {  // both; d_x only; d_values only
      CAPTURE(which);
      auto gx = random_vector<T>(m, 204), gv = random_vector<T>(K, 205);
      DeviceArray<T> dgx(gx), dgv(gv);
      cpu::spline_backward(xb.data(), m, values.data(), grid, d_out.data(),
                           which != 2 ? gx.data() : nullptr, which != 1 ? gv.data() : nullptr);
      gpu::spline_backward(dxb.get(), m, dvalues.get(), grid, dd_out.get(),
                           which != 2 ? dgx.get() : nullptr, which != 1 ? dgv.get() : nullptr);
      check_close("spline_backward d_x", gx, dgx.host(), tol<T>(1e-6));
      // f32: each knot sums about 2000 weights in another order.
      check_close("spline_backward d_values", gv, dgv.host(), tol<T>(1e-5));
    }
  }
}

namespace {

struct AttentionShape {
  int64_t B, T, C, H;
};
// The CUDA products batch over the heads when B < H (one call per batch
// item) and over the batch otherwise (one call per head): both are here.
const AttentionShape kShapes[] = {{2, 9, 12, 3}, {1, 40, 16, 2}, {3, 17, 8, 2}};

}  // namespace

TEST_CASE_TEMPLATE("cuda parity: softmax and score-spline attention", T, float, double) {
  if (!gpu_or_skip()) return;
  for (const AttentionShape s : kShapes)
    for (int variant = 0; variant < 4; ++variant) {  // softmax; spline; per-head spline; + ALiBi
      CAPTURE(s.T);
      CAPTURE(variant);
      const bool spline = variant >= 1, per_head = variant == 2, alibi = variant != 1;
      const SplineGrid grid{21, -4.0, 4.0, variant != 3};
      const int64_t K = grid.knots(), rows = per_head ? s.H : 1;
      const int64_t n_qkv = s.B * s.T * 3 * s.C, n_out = s.B * s.T * s.C;
      const int64_t n_p = s.B * s.H * s.T * s.T;
      const auto qkv = random_vector<T>(n_qkv, 210, -1.5, 1.5);
      const auto slopes = random_vector<T>(s.H, 211, 0.05, 0.5);
      const auto g = random_vector<T>(rows * K, 212, -3, 3);
      const auto d_out = random_vector<T>(n_out, 213);
      std::vector<T> scores(n_p), probs(n_p), out(n_out);
      DeviceArray<T> dqkv(qkv), dslopes(slopes), dg(g), dd_out(d_out), dscores(scores),
          dprobs(probs), dout(out);
      const T* sl = alibi ? slopes.data() : nullptr;
      const T* dsl = alibi ? dslopes.get() : nullptr;
      if (spline) {
        cpu::score_spline_attention_forward(qkv.data(), s.B, s.T, s.C, s.H, sl, g.data(), grid,
                                            per_head, scores.data(), probs.data(), out.data());
        gpu::score_spline_attention_forward(dqkv.get(), s.B, s.T, s.C, s.H, dsl, dg.get(), grid,
                                            per_head, dscores.get(), dprobs.get(), dout.get());
        check_close("score-spline attention scores", scores, dscores.host(), tol<T>(1e-6));
      } else {
        cpu::attention_forward(qkv.data(), s.B, s.T, s.C, s.H, sl, probs.data(), out.data());
        gpu::attention_forward(dqkv.get(), s.B, s.T, s.C, s.H, dsl, dprobs.get(), dout.get());
      }
      // f32: dot products over D and T in another order, exp within a few ulp.
      check_close("attention probs", probs, dprobs.host(), tol<T>(2e-5));
      check_close("attention out", out, dout.host(), tol<T>(2e-5));

      // Backward from the CPU's saved arrays on both sides.
      DeviceArray<T> dscores_cpu(scores), dprobs_cpu(probs);
      for (int which = 0; which < 3; ++which) {  // both; d_qkv only; d_g only
        CAPTURE(which);
        if (!spline && which == 2) continue;
        auto gq = random_vector<T>(n_qkv, 214), gg = random_vector<T>(rows * K, 215);
        DeviceArray<T> dgq(gq), dgg(gg);
        T* cq = which != 2 ? gq.data() : nullptr;
        T* gq_dev = which != 2 ? dgq.get() : nullptr;
        if (spline) {
          cpu::score_spline_attention_backward(qkv.data(), sl, scores.data(), probs.data(),
                                               d_out.data(), s.B, s.T, s.C, s.H, g.data(), grid,
                                               per_head, cq, which != 1 ? gg.data() : nullptr);
          gpu::score_spline_attention_backward(dqkv.get(), dsl, dscores_cpu.get(), dprobs_cpu.get(),
                                               dd_out.get(), s.B, s.T, s.C, s.H, dg.get(), grid,
                                               per_head, gq_dev, which != 1 ? dgg.get() : nullptr);
        } else {
          cpu::attention_backward(qkv.data(), sl, probs.data(), d_out.data(), s.B, s.T, s.C, s.H,
                                  cq);
          gpu::attention_backward(dqkv.get(), dsl, dprobs_cpu.get(), dd_out.get(), s.B, s.T, s.C,
                                  s.H, gq_dev);
        }
        // f32: as the forward, and the softmax backward's row dot products.
        check_close("attention d_qkv", gq, dgq.host(), tol<T>(5e-5));
        check_close("score-spline attention d_g", gg, dgg.host(), tol<T>(5e-5));
      }
    }
}

TEST_CASE_TEMPLATE("cuda parity: feature-spline attention", T, float, double) {
  if (!gpu_or_skip()) return;
  for (const AttentionShape s : kShapes)
    for (int linear = 0; linear < 2; ++linear) {
      CAPTURE(s.T);
      CAPTURE(linear);
      const SplineGrid grid{15, -2.0, 2.0, bool(linear)};
      const int64_t K = grid.knots();
      const int64_t n_qkv = s.B * s.T * 3 * s.C, n_out = s.B * s.T * s.C;
      const auto qkv = random_vector<T>(n_qkv, 220, -2.5, 2.5);  // also beyond [lo, hi]
      const auto g = random_vector<T>(K, 221, -3, 3), d_out = random_vector<T>(n_out, 222);
      std::vector<T> features(2 * n_out), out(n_out);
      DeviceArray<T> dqkv(qkv), dg(g), dd_out(d_out), dfeatures(features), dout(out);
      cpu::feature_attention_forward(qkv.data(), s.B, s.T, s.C, s.H, g.data(), grid,
                                     features.data(), out.data());
      gpu::feature_attention_forward(dqkv.get(), s.B, s.T, s.C, s.H, dg.get(), grid,
                                     dfeatures.get(), dout.get());
      // f32: softplus's exp and log1p within a few ulp; running sums over T.
      check_close("feature attention features", features, dfeatures.host(), tol<T>(2e-6));
      check_close("feature attention out", out, dout.host(), tol<T>(2e-5));

      DeviceArray<T> dfeatures_cpu(features), dout_cpu(out);
      for (int which = 0; which < 3; ++which) {  // both; d_qkv only; d_g only
        CAPTURE(which);
        auto gq = random_vector<T>(n_qkv, 223), gg = random_vector<T>(K, 224);
        DeviceArray<T> dgq(gq), dgg(gg);
        cpu::feature_attention_backward(
            qkv.data(), features.data(), out.data(), d_out.data(), s.B, s.T, s.C, s.H, g.data(),
            grid, which != 2 ? gq.data() : nullptr, which != 1 ? gg.data() : nullptr);
        gpu::feature_attention_backward(
            dqkv.get(), dfeatures_cpu.get(), dout_cpu.get(), dd_out.get(), s.B, s.T, s.C, s.H,
            dg.get(), grid, which != 2 ? dgq.get() : nullptr, which != 1 ? dgg.get() : nullptr);
        // f32: suffix sums over T and D-long dot products in another order.
        check_close("feature attention d_qkv", gq, dgq.host(), tol<T>(5e-5));
        check_close("feature attention d_g", gg, dgg.host(), tol<T>(5e-5));
      }
    }
}

TEST_CASE("cuda knot sums give the same bits run to run") {
  if (!gpu_or_skip()) return;
  using T = float;
  const SplineGrid grid{31, -3.0, 3.0, true};
  const int64_t K = grid.knots(), n = 70000;
  const auto x = random_vector<T>(n, 230, -3.5, 3.5), d_out = random_vector<T>(n, 231);
  const auto values = random_vector<T>(K, 232, -2, 2);
  DeviceArray<T> dx(x), dd_out(d_out), dvalues(values);
  auto spline_knots = [&] {
    DeviceArray<T> gv{std::vector<T>(K)};
    gpu::spline_backward<T>(dx.get(), n, dvalues.get(), grid, dd_out.get(), nullptr, gv.get());
    return gv.host();
  };
  check_same_bits("spline_backward d_values", spline_knots(), spline_knots());

  const int64_t B = 4, T_len = 33, C = 16, H = 4;
  const auto qkv = random_vector<T>(B * T_len * 3 * C, 233, -1.5, 1.5);
  const auto d_att = random_vector<T>(B * T_len * C, 234);
  DeviceArray<T> dqkv(qkv), dd_att(d_att);
  DeviceArray<T> scores{std::vector<T>(B * H * T_len * T_len)},
      probs{std::vector<T>(B * H * T_len * T_len)}, out{std::vector<T>(B * T_len * C)},
      features{std::vector<T>(B * T_len * 2 * C)};
  gpu::score_spline_attention_forward<T>(dqkv.get(), B, T_len, C, H, nullptr, dvalues.get(), grid,
                                         false, scores.get(), probs.get(), out.get());
  auto score_knots = [&] {
    DeviceArray<T> gq{std::vector<T>(B * T_len * 3 * C)}, gg{std::vector<T>(K)};
    gpu::score_spline_attention_backward<T>(dqkv.get(), nullptr, scores.get(), probs.get(),
                                            dd_att.get(), B, T_len, C, H, dvalues.get(), grid,
                                            false, gq.get(), gg.get());
    auto all = gg.host();
    const auto q = gq.host();
    all.insert(all.end(), q.begin(), q.end());
    return all;
  };
  check_same_bits("score_spline_attention_backward", score_knots(), score_knots());

  gpu::feature_attention_forward(dqkv.get(), B, T_len, C, H, dvalues.get(), grid, features.get(),
                                 out.get());
  auto feature_knots = [&] {
    DeviceArray<T> gq{std::vector<T>(B * T_len * 3 * C)}, gg{std::vector<T>(K)};
    gpu::feature_attention_backward(dqkv.get(), features.get(), out.get(), dd_att.get(), B, T_len,
                                    C, H, dvalues.get(), grid, gq.get(), gg.get());
    auto all = gg.host();
    const auto q = gq.host();
    all.insert(all.end(), q.begin(), q.end());
    return all;
  };
  check_same_bits("feature_attention_backward", feature_knots(), feature_knots());
}

#else

TEST_CASE("cuda attention parity suite") {
  MESSAGE("skipped: tapir was built without CUDA (TAPIR_CUDA=OFF or no nvcc)");
}

#endif  // TAPIR_HAS_CUDA
