// The learned attention kernels against independent references: the score
// spline at its identity init is softmax attention (values and gradients),
// the feature kernel's running sums match a direct O(T^2) evaluation, random
// spline values never give NaN or inf, and the knot gradients are the same
// bits for any thread count. Gradients against finite differences are in
// test_gradcheck.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "autograd/ops.h"
#include "engine/kernels.h"
#include "engine/rng.h"
#include "engine/threads.h"
#include "nn/positions.h"
#include "nn/spline.h"
#include "tests/spline_ops.h"

using namespace tapir;

namespace {

Tensor random_tensor(const Shape& s, uint64_t seed, double lo, double hi, DType dtype) {
  Tensor x = empty(s, DType::f64);
  Rng rng(seed, 0);
  rng.fill_uniform<double>(x.data<double>(), x.numel(), lo, hi);
  return cast(x, dtype);
}

// Values of a spline module as a step tensor of the given dtype.
Tensor identity_values(int64_t rows, DType dtype) {
  SplineConfig c;
  c.init = "identity";
  Spline g(c, rows);
  return cast(g.values().tensor(), dtype);
}

double max_abs_diff(const float* a, const float* b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  return worst;
}

double softplus(double g) {
  return g > 0 ? g + std::log1p(std::exp(-g)) : std::log1p(std::exp(g));
}

double lerp_spline(double x, const double* v, int64_t K, double lo, double hi) {
  const double h = (hi - lo) / double(K - 1);
  int64_t k = 0;
  while (k < K - 2 && lo + double(k + 1) * h <= x) ++k;
  const double t = (x - (lo + double(k) * h)) / h;
  return v[k] + t * (v[k + 1] - v[k]);
}

struct ThreadCountGuard {
  ~ThreadCountGuard() { set_num_threads(1); }
};

}  // namespace

TEST_CASE("score-spline attention at its identity init is softmax attention") {
  const int64_t B = 2, T = 7, C = 24, H = 4;
  std::vector<float> alibi_f;
  for (double s : alibi_slopes(H)) alibi_f.push_back(float(s));
  for (int per_head = 0; per_head < 2; ++per_head)
    for (int use_alibi = 0; use_alibi < 2; ++use_alibi) {
      CAPTURE(per_head);
      CAPTURE(use_alibi);
      // qkv scaled so that scores spread over several knot intervals.
      Tensor qkv = random_tensor({B, T, 3 * C}, 3, -2.0, 2.0, DType::f32);
      Tensor slopes;
      if (use_alibi) {
        slopes = empty({H}, DType::f32);
        std::copy(alibi_f.begin(), alibi_f.end(), slopes.data<float>());
      }
      Tensor g = identity_values(per_head ? H : 1, DType::f32);  // (K) or (H, K)
      Tensor w = random_tensor({B, T, C}, 4, -1.0, 1.0, DType::f32);
      Tensor qkv2 = cast(qkv, DType::f32);
      qkv.set_requires_grad(true);
      qkv2.set_requires_grad(true);
      // backward() clears the whole tape: one forward and backward at a time.
      Tensor ref = attention(qkv, H, slopes);
      backward(sum_all(mul(ref, w)));
      Tensor got = score_spline_attention(qkv2, H, g, -20.0, 20.0, true, slopes);
      backward(sum_all(mul(got, w)));
      CHECK(max_abs_diff(ref.data<float>(), got.data<float>(), ref.numel()) < 1e-6);
      CHECK(max_abs_diff(qkv.grad<float>(), qkv2.grad<float>(), qkv.numel()) < 1e-5);
      reset_step();
    }
}

TEST_CASE("feature-spline attention matches a direct O(T^2) evaluation") {
  const int64_t B = 2, T = 9, C = 12, H = 3, D = C / H, K = 11;
  const double lo = -2, hi = 2;
  Tensor qkv = random_tensor({B, T, 3 * C}, 11, -2.5, 2.5, DType::f64);  // also outside [lo, hi]
  Tensor g = random_tensor({K}, 12, -3.0, 3.0, DType::f64);
  Tensor out = feature_spline_attention(qkv, H, g, lo, hi, true);
  const double* x = qkv.data<double>();
  const double* v = g.data<double>();
  auto phi = [&](double e) { return softplus(lerp_spline(e, v, K, lo, hi)) + 1e-4; };
  double worst = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < T; ++i) {
        std::vector<double> num(D, 0.0);
        double den = 0;
        for (int64_t j = 0; j <= i; ++j) {  // causal: j <= i only
          double kernel = 0;
          for (int64_t d = 0; d < D; ++d)
            kernel += phi(x[(b * T + i) * 3 * C + h * D + d]) *
                      phi(x[(b * T + j) * 3 * C + C + h * D + d]);
          den += kernel;
          for (int64_t d = 0; d < D; ++d)
            num[d] += kernel * x[(b * T + j) * 3 * C + 2 * C + h * D + d];
        }
        for (int64_t d = 0; d < D; ++d)
          worst = std::max(worst, std::fabs(out.item((b * T + i) * C + h * D + d) - num[d] / den));
      }
  CHECK(worst < 1e-12);
  reset_step();
}

TEST_CASE("random spline values never give NaN or inf in the learned attention kernels") {
  const int64_t B = 2, T = 16, C = 16, H = 2;
  for (uint64_t seed = 0; seed < 4; ++seed)
    for (int kind = 0; kind < 2; ++kind)
      for (bool linear : {true, false}) {
        // Large qkv (scores far outside the knot range) and wild knot values.
        Tensor q = random_tensor({B, T, 3 * C}, 100 + seed, -30.0, 30.0, DType::f32);
        Tensor gv = random_tensor({41}, 200 + seed, -80.0, 80.0, DType::f32);
        q.set_requires_grad(true);
        gv.set_requires_grad(true);
        Tensor o = kind == 0 ? score_spline_attention(q, H, gv, -5.0, 5.0, linear)
                             : feature_spline_attention(q, H, gv, -5.0, 5.0, linear);
        backward(sum_all(o));
        bool finite = true;
        for (int64_t i = 0; i < o.numel(); ++i) finite = finite && std::isfinite(o.item(i));
        for (int64_t i = 0; i < q.numel(); ++i)
          finite = finite && std::isfinite(q.grad<float>()[i]);
        for (int64_t i = 0; i < gv.numel(); ++i)
          finite = finite && std::isfinite(gv.grad<float>()[i]);
        CAPTURE(seed);
        CAPTURE(kind);
        CHECK(finite);
        reset_step();
      }
}

TEST_CASE("learned attention kernels: knot gradients are the same bits for any thread count") {
  ThreadCountGuard guard;
  const int64_t B = 3, T = 12, C = 16, H = 4, K = 21;
  for (int kind = 0; kind < 2; ++kind) {
    std::vector<float> grads[2];
    for (int run = 0; run < 2; ++run) {
      set_num_threads(run + 1);
      Tensor qkv = random_tensor({B, T, 3 * C}, 5, -2.0, 2.0, DType::f32);
      Tensor g = random_tensor({K}, 6, -1.0, 1.0, DType::f32);
      g.set_requires_grad(true);
      Tensor w = random_tensor({B, T, C}, 7, -1.0, 1.0, DType::f32);
      Tensor o = kind == 0 ? score_spline_attention(qkv, H, g, -3.0, 3.0, true)
                           : feature_spline_attention(qkv, H, g, -3.0, 3.0, true);
      backward(sum_all(mul(o, w)));
      grads[run].assign(g.grad<float>(), g.grad<float>() + K);
      reset_step();
    }
    CAPTURE(kind);
    CHECK(std::memcmp(grads[0].data(), grads[1].data(), K * sizeof(float)) == 0);
  }
}

TEST_CASE("attention backward that recomputes the probabilities gives the kept ones' bits") {
  // The op keeps no probabilities on the CPU for long sequences; the
  // kernels still take kept ones (short sequences, and the CUDA kernels).
  // Both backward paths must agree bit for bit, with and without ALiBi, for
  // softmax and the score spline. Eigen's vectorised exp treats an array's
  // unaligned head apart, so the bits depend on where a row sits: with T = 8
  // every pair's block of the kept array starts on 64 bytes, as the
  // recomputing kernel's scratch does.
  const int64_t B = 2, T = 8, C = 12, H = 3, K = 11;
  const SplineGrid grid{K, -3.0, 3.0, true};
  std::vector<float> qkv(B * T * 3 * C), d_out(B * T * C), slopes{0.5f, 0.25f, 0.125f}, g(H * K);
  Rng rng(31, 0);
  rng.fill_uniform<float>(qkv.data(), int64_t(qkv.size()), -2.0, 2.0);
  rng.fill_uniform<float>(d_out.data(), int64_t(d_out.size()), -1.0, 1.0);
  rng.fill_uniform<float>(g.data(), int64_t(g.size()), -2.0, 2.0);
  for (int spline = 0; spline < 2; ++spline)
    for (int alibi = 0; alibi < 2; ++alibi) {
      CAPTURE(spline);
      CAPTURE(alibi);
      const float* sl = alibi ? slopes.data() : nullptr;
      // Kept arrays in the step arena, as the op would keep them: rows at
      // the same alignment (64 bytes) as the recomputed ones.
      float* probs = empty(Shape{B * H * T * T}, DType::f32).data<float>();
      float* scores = empty(Shape{B * H * T * T}, DType::f32).data<float>();
      std::vector<float> out_kept(B * T * C), out_none(B * T * C);
      std::vector<float> dq_kept(qkv.size(), 0.5f), dq_none(qkv.size(), 0.5f), dg_kept(H * K),
          dg_none(H * K);
      if (spline) {
        cpu::score_spline_attention_forward(qkv.data(), B, T, C, H, sl, g.data(), grid, true,
                                            scores, probs, out_kept.data());
        cpu::score_spline_attention_forward<float>(qkv.data(), B, T, C, H, sl, g.data(), grid, true,
                                                   nullptr, nullptr, out_none.data());
        cpu::score_spline_attention_backward(qkv.data(), sl, scores, probs, d_out.data(), B, T, C,
                                             H, g.data(), grid, true, dq_kept.data(),
                                             dg_kept.data());
        cpu::score_spline_attention_backward<float>(qkv.data(), sl, nullptr, nullptr, d_out.data(),
                                                    B, T, C, H, g.data(), grid, true,
                                                    dq_none.data(), dg_none.data());
      } else {
        cpu::attention_forward(qkv.data(), B, T, C, H, sl, probs, out_kept.data());
        cpu::attention_forward<float>(qkv.data(), B, T, C, H, sl, nullptr, out_none.data());
        cpu::attention_backward(qkv.data(), sl, probs, d_out.data(), B, T, C, H, dq_kept.data());
        cpu::attention_backward<float>(qkv.data(), sl, nullptr, d_out.data(), B, T, C, H,
                                       dq_none.data());
      }
      CHECK(out_kept == out_none);
      CHECK(dq_kept == dq_none);
      CHECK(dg_kept == dg_none);
      // The gradient is not trivially equal: it moved from its start.
      CHECK(max_abs_diff(dq_kept.data(), std::vector<float>(qkv.size(), 0.5f).data(),
                         int64_t(qkv.size())) > 1e-3);
      reset_step();
    }
}
