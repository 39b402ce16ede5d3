// Every tuned CPU kernel (tapir::cpu) against its naive reference
// (engine/reference.h) on the same random inputs: gemm, layer norm,
// RMSNorm, softmax, log-softmax, cross-entropy, causal attention and the
// linear spline, forward and backward, at 1 and 3 threads. Every output and
// gradient element must agree within 1e-12 (f64) or 1e-5 (f32) of
// max(1, |reference|), or of the size of the terms it is formed from where
// that is larger (the norms' d_x, the spline's knot sums; see `floor`
// below). A gradient the kernel adds to starts random; one it
// writes (an accumulate flag false, beta = 0) starts NaN, so a kernel that
// reads it fails. The last test checks that the comparison itself reports
// a wrong value, so that it cannot pass by comparing nothing.
//
// Ops of the op table (cmake/checks/op_coverage.cmake): those whose kernels
// are checked here at the kernel level (matmul and linear through gemm);
// every op, these included, runs on both sets of kernels in
// test_reference_parity.cpp, and the op table's gradcheck
// (test_gradcheck.cpp) checks their values and gradients.
// op table, checked here: matmul linear layernorm rmsnorm softmax log_softmax
// op table, checked here: cross_entropy attention spline
// op table, not here: add sub mul div affine exp log tanh sqrt relu gelu
// op table, not here: sum mean sum_all max_last rope embedding reshape transpose
// op table, not here: concat slice masked_fill poly score_spline_attention
// op table, not here: feature_spline_attention

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/kernels.h"
#include "engine/reference.h"
#include "engine/rng.h"
#include "engine/threads.h"

using namespace tapir;

namespace {

template <typename T>
using Vec = std::vector<T>;

template <typename T>
constexpr double kTol = std::is_same_v<T, double> ? 1e-12 : 1e-5;

constexpr int kThreadCounts[] = {1, 3};
struct Threads {
  explicit Threads(int n) { set_num_threads(n); }
  ~Threads() { set_num_threads(1); }
};

template <typename T>
Vec<T> random(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  Vec<T> v(static_cast<size_t>(n));
  Rng rng(seed, 0);
  rng.fill_uniform<T>(v.data(), n, T(lo), T(hi));
  return v;
}
template <typename T>
Vec<T> nans(int64_t n) {
  return Vec<T>(static_cast<size_t>(n), std::numeric_limits<T>::quiet_NaN());
}
// A gradient buffer: random when the kernel adds to it, NaN when it writes it.
template <typename T>
Vec<T> grad_buffer(int64_t n, bool accumulate, uint64_t seed) {
  return accumulate ? random<T>(n, seed) : nans<T>(n);
}
template <typename T>
T* ptr(Vec<T>& v) {
  return v.empty() ? nullptr : v.data();
}
template <typename T>
const T* ptr(const Vec<T>& v) {
  return v.empty() ? nullptr : v.data();
}

// The number of elements where got and want differ by more than
// tol * max(1, |want|, floor[i]) (a NaN in either is a difference; so is
// every element when the sizes differ); the first `show` are printed.
// floor (empty: none) is the size of the terms an element is formed from,
// where rounding error in those terms can exceed 1e-5 of the result in f32.
template <typename T>
int64_t mismatches(const char* what, const Vec<T>& got, const Vec<T>& want, int show = 3,
                   const Vec<double>& floor = {}) {
  if (got.size() != want.size()) {
    if (show > 0)
      MESSAGE(std::string(what) << ": " << got.size() << " elements, reference " << want.size());
    return static_cast<int64_t>(std::max(got.size(), want.size())) + 1;
  }
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = double(got[i]), w = double(want[i]);
    const double size = std::max({1.0, std::fabs(w), floor.empty() ? 0.0 : floor[i]});
    if (std::fabs(g - w) <= kTol<T> * size) continue;
    if (++bad <= show)
      MESSAGE(std::string(what) << "[" << i << "]: tuned " << g << ", reference " << w);
  }
  return bad;
}
#define CHECK_SAME(got, want) CHECK(mismatches(#got, got, want) == 0)
#define CHECK_SAME_FLOOR(got, want, floor) CHECK(mismatches(#got, got, want, 3, floor) == 0)

// A norm's d_x is rstd times a difference of terms the size of d_y w: in a
// row of one element (variance 0, rstd = 1 / sqrt(eps)) the exact gradient
// is 0 and what f32 gives is the rounding of d_y w times rstd.
template <typename T>
Vec<double> norm_floor(const Vec<T>& d_y, const Vec<T>& w, const Vec<T>& rstd, int64_t C) {
  Vec<double> f(d_y.size());
  for (size_t e = 0; e < d_y.size(); ++e)
    f[e] = double(rstd[e / C]) * std::fabs(double(d_y[e]) * (w.empty() ? 1.0 : double(w[e % C])));
  return f;
}

// The root sum of squares of the terms d_out (1 - t) and d_out t that each
// knot's gradient adds up: thousands of terms of either sign, which an f32
// sum rounds at the size of its running total, not of the result.
template <typename T>
Vec<double> knot_floor(const Vec<T>& x, const Vec<T>& d_out, const SplineGrid& g) {
  Vec<double> f(g.knots(), 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = (double(x[i]) - g.lo()) * g.inv_spacing();
    const int64_t k = std::clamp<int64_t>(int64_t(std::floor(u)), 0, g.knots() - 2);
    const double t = g.linear() ? u - double(k) : std::clamp(u - double(k), 0.0, 1.0);
    f[k] += std::pow(double(d_out[i]) * (1 - t), 2);
    f[k + 1] += std::pow(double(d_out[i]) * t, 2);
  }
  for (double& v : f) v = std::sqrt(v);
  return f;
}

}  // namespace

TEST_CASE_TEMPLATE("gemm: every transpose, alpha and beta", T, float, double) {
  struct Dims {
    int64_t M, N, K;
  };
  // Odd sizes, single rows and columns, an empty inner dimension, and one
  // product large enough to be split across threads (engine/cpu/gemm.cpp).
  const Dims shapes[] = {{1, 1, 1}, {7, 5, 3},    {13, 1, 9},     {1, 17, 4},
                         {5, 4, 0}, {33, 29, 31}, {256, 256, 128}};
  const double alpha_beta[][2] = {{1, 0}, {0.7, 1}, {-1.3, 0.5}};
  uint64_t seed = 1000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (const Dims& s : shapes)
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
          for (const auto& ab : alpha_beta) {
            INFO("threads " << threads << ", M " << s.M << ", N " << s.N << ", K " << s.K
                            << ", trans " << ta << tb << ", alpha " << ab[0] << ", beta " << ab[1]);
            const Vec<T> a = random<T>(s.M * s.K, ++seed), b = random<T>(s.K * s.N, ++seed);
            Vec<T> c = ab[1] == 0 ? nans<T>(s.M * s.N) : random<T>(s.M * s.N, ++seed);
            Vec<T> c_ref = c;
            cpu::gemm<T>(ta, tb, s.M, s.N, s.K, T(ab[0]), a.data(), b.data(), T(ab[1]), c.data());
            reference::gemm<T>(ta, tb, s.M, s.N, s.K, T(ab[0]), a.data(), b.data(), T(ab[1]),
                               c_ref.data());
            CHECK_SAME(c, c_ref);
          }
  }
}

TEST_CASE_TEMPLATE("layernorm forward and backward", T, float, double) {
  const int64_t shapes[][2] = {{1, 1}, {1, 7}, {5, 13}, {50, 64}, {33, 129}};
  const T eps = T(1e-5);
  uint64_t seed = 2000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (const auto& shape : shapes)
      for (int bias = 0; bias < 2; ++bias)
        for (int accumulate = 0; accumulate < 2; ++accumulate) {
          const int64_t rows = shape[0], C = shape[1];
          INFO("threads " << threads << ", rows " << rows << ", C " << C << ", bias " << bias
                          << ", accumulate " << accumulate);
          const Vec<T> x = random<T>(rows * C, ++seed, -1, 2), w = random<T>(C, ++seed, 0.5, 1.5);
          const Vec<T> b = bias ? random<T>(C, ++seed) : Vec<T>{};
          Vec<T> y(rows * C), mean(rows), rstd(rows);
          Vec<T> y_ref = y, mean_ref = mean, rstd_ref = rstd;
          cpu::layernorm_forward<T>(x.data(), w.data(), ptr(b), rows, C, eps, y.data(), mean.data(),
                                    rstd.data());
          reference::layernorm_forward<T>(x.data(), w.data(), ptr(b), rows, C, eps, y_ref.data(),
                                          mean_ref.data(), rstd_ref.data());
          CHECK_SAME(y, y_ref);
          CHECK_SAME(mean, mean_ref);
          CHECK_SAME(rstd, rstd_ref);
          // The backward on the same saved statistics (the tuned forward's).
          const Vec<T> d_y = random<T>(rows * C, ++seed);
          Vec<T> d_x = grad_buffer<T>(rows * C, accumulate, ++seed), d_w = random<T>(C, ++seed);
          Vec<T> d_b = bias ? random<T>(C, ++seed) : Vec<T>{};
          Vec<T> d_x_ref = d_x, d_w_ref = d_w, d_b_ref = d_b;
          cpu::layernorm_backward<T>(x.data(), w.data(), mean.data(), rstd.data(), d_y.data(), rows,
                                     C, d_x.data(), d_w.data(), ptr(d_b), accumulate);
          reference::layernorm_backward<T>(x.data(), w.data(), mean.data(), rstd.data(), d_y.data(),
                                           rows, C, d_x_ref.data(), d_w_ref.data(), ptr(d_b_ref),
                                           accumulate);
          CHECK_SAME_FLOOR(d_x, d_x_ref, norm_floor(d_y, w, rstd, C));
          CHECK_SAME(d_w, d_w_ref);
          CHECK_SAME(d_b, d_b_ref);
        }
  }
}

TEST_CASE_TEMPLATE("rmsnorm forward and backward", T, float, double) {
  const int64_t shapes[][2] = {{1, 1}, {1, 7}, {5, 13}, {50, 64}, {33, 129}};
  const T eps = T(1e-5);
  uint64_t seed = 3000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (const auto& shape : shapes)
      for (int weight = 0; weight < 2; ++weight)
        for (int accumulate = 0; accumulate < 2; ++accumulate) {
          const int64_t rows = shape[0], C = shape[1];
          INFO("threads " << threads << ", rows " << rows << ", C " << C << ", weight " << weight
                          << ", accumulate " << accumulate);
          const Vec<T> x = random<T>(rows * C, ++seed, -1, 2);
          const Vec<T> w = weight ? random<T>(C, ++seed, 0.5, 1.5) : Vec<T>{};
          Vec<T> y(rows * C), rstd(rows);
          Vec<T> y_ref = y, rstd_ref = rstd;
          cpu::rmsnorm_forward<T>(x.data(), ptr(w), rows, C, eps, y.data(), rstd.data());
          reference::rmsnorm_forward<T>(x.data(), ptr(w), rows, C, eps, y_ref.data(),
                                        rstd_ref.data());
          CHECK_SAME(y, y_ref);
          CHECK_SAME(rstd, rstd_ref);
          const Vec<T> d_y = random<T>(rows * C, ++seed);
          Vec<T> d_x = grad_buffer<T>(rows * C, accumulate, ++seed);
          Vec<T> d_w = weight ? random<T>(C, ++seed) : Vec<T>{};  // no weight: no gradient
          Vec<T> d_x_ref = d_x, d_w_ref = d_w;
          cpu::rmsnorm_backward<T>(x.data(), ptr(w), rstd.data(), d_y.data(), rows, C, d_x.data(),
                                   ptr(d_w), accumulate);
          reference::rmsnorm_backward<T>(x.data(), ptr(w), rstd.data(), d_y.data(), rows, C,
                                         d_x_ref.data(), ptr(d_w_ref), accumulate);
          CHECK_SAME_FLOOR(d_x, d_x_ref, norm_floor(d_y, w, rstd, C));
          CHECK_SAME(d_w, d_w_ref);
        }
  }
}

TEST_CASE_TEMPLATE("softmax and log-softmax forward and backward", T, float, double) {
  const int64_t shapes[][2] = {{1, 1}, {1, 9}, {7, 5}, {40, 33}, {3, 1000}};
  uint64_t seed = 4000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (const auto& shape : shapes)
      for (double offset : {0.0, 100.0}) {  // 100: exp overflows without the max subtracted
        const int64_t rows = shape[0], n = shape[1];
        INFO("threads " << threads << ", rows " << rows << ", n " << n << ", offset " << offset);
        const Vec<T> x = random<T>(rows * n, ++seed, offset - 5, offset + 5);
        const Vec<T> d_y = random<T>(rows * n, ++seed);
        for (int use_log = 0; use_log < 2; ++use_log) {
          CAPTURE(use_log);
          Vec<T> y(rows * n), y_ref(rows * n);
          (use_log ? cpu::log_softmax_forward<T> : cpu::softmax_forward<T>)(x.data(), rows, n,
                                                                            y.data());
          (use_log ? reference::log_softmax_forward<T>
                   : reference::softmax_forward<T>)(x.data(), rows, n, y_ref.data());
          CHECK_SAME(y, y_ref);
          // Both backwards add into d_x; both take the tuned forward's y.
          Vec<T> d_x = random<T>(rows * n, ++seed), d_x_ref = d_x;
          (use_log ? cpu::log_softmax_backward<T> : cpu::softmax_backward<T>)(y.data(), d_y.data(),
                                                                              rows, n, d_x.data());
          (use_log ? reference::log_softmax_backward<T>
                   : reference::softmax_backward<T>)(y.data(), d_y.data(), rows, n, d_x_ref.data());
          CHECK_SAME(d_x, d_x_ref);
        }
      }
  }
}

TEST_CASE_TEMPLATE("cross-entropy forward and backward, with and without a mask", T, float,
                   double) {
  const int64_t shapes[][2] = {{1, 1}, {1, 7}, {9, 11}, {40, 50}};
  uint64_t seed = 5000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (const auto& shape : shapes)
      for (int mask_kind = 0; mask_kind < 4; ++mask_kind) {  // none, 0/1, fractional, all 0
        const int64_t rows = shape[0], V = shape[1];
        INFO("threads " << threads << ", rows " << rows << ", V " << V << ", mask " << mask_kind);
        const Vec<T> logits = random<T>(rows * V, ++seed, -4, 4);
        Rng rng(++seed, 0);
        Vec<int32_t> targets(rows);
        for (auto& t : targets) t = static_cast<int32_t>(rng.randint(V));
        Vec<T> mask;
        if (mask_kind == 1)
          for (int64_t r = 0; r < rows; ++r) mask.push_back(T(r % 3 != 1));
        if (mask_kind == 2) mask = random<T>(rows, ++seed, 0, 1);
        if (mask_kind == 3) mask.assign(rows, T(0));
        Vec<T> probs(rows * V), losses(rows), loss(1), count(1);
        Vec<T> probs_ref = probs, losses_ref = losses, loss_ref = loss, count_ref = count;
        count[0] = cpu::cross_entropy_forward<T>(logits.data(), targets.data(), ptr(mask), rows, V,
                                                 probs.data(), losses.data(), loss.data());
        count_ref[0] = reference::cross_entropy_forward<T>(logits.data(), targets.data(), ptr(mask),
                                                           rows, V, probs_ref.data(),
                                                           losses_ref.data(), loss_ref.data());
        CHECK_SAME(probs, probs_ref);
        CHECK_SAME(losses, losses_ref);
        CHECK_SAME(loss, loss_ref);
        CHECK_SAME(count, count_ref);
        const T scale = count[0] > T(0) ? T(1) / count[0] : T(0.37);
        Vec<T> d_logits = random<T>(rows * V, ++seed), d_logits_ref = d_logits;  // added to
        cpu::cross_entropy_backward<T>(probs.data(), targets.data(), ptr(mask), rows, V, scale,
                                       d_logits.data());
        reference::cross_entropy_backward<T>(probs.data(), targets.data(), ptr(mask), rows, V,
                                             scale, d_logits_ref.data());
        CHECK_SAME(d_logits, d_logits_ref);
      }
  }
}

TEST_CASE_TEMPLATE("causal attention forward and backward, with and without ALiBi", T, float,
                   double) {
  // T below and from the kernel's BLAS threshold on (kBlasMinT = 32 in
  // engine/cpu/attention.cpp); head widths D = 3, 8 and 5.
  const int64_t lengths[] = {1, 5, 31, 32, 37};
  const int64_t widths[][2] = {{6, 2}, {16, 2}, {5, 1}};  // (C, H)
  uint64_t seed = 6000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (int64_t T_len : lengths)
      for (const auto& width : widths)
        for (int64_t B : {1, 2})
          for (int alibi = 0; alibi < 2; ++alibi) {
            const int64_t C = width[0], H = width[1];
            INFO("threads " << threads << ", B " << B << ", T " << T_len << ", C " << C << ", H "
                            << H << ", alibi " << alibi);
            const Vec<T> qkv = random<T>(B * T_len * 3 * C, ++seed, -2, 2);
            const Vec<T> d_out = random<T>(B * T_len * C, ++seed);
            Vec<T> slopes;
            if (alibi)
              for (int64_t h = 0; h < H; ++h) slopes.push_back(T(std::exp2(-8.0 * (h + 1) / H)));
            Vec<T> probs = nans<T>(B * H * T_len * T_len), out = nans<T>(B * T_len * C);
            Vec<T> probs_ref = probs, out_ref = out, out_unkept = out;
            cpu::attention_forward<T>(qkv.data(), B, T_len, C, H, ptr(slopes), probs.data(),
                                      out.data());
            cpu::attention_forward<T>(qkv.data(), B, T_len, C, H, ptr(slopes), nullptr,
                                      out_unkept.data());
            reference::attention_forward<T>(qkv.data(), B, T_len, C, H, ptr(slopes),
                                            probs_ref.data(), out_ref.data());
            CHECK_SAME(out, out_ref);
            CHECK_SAME(probs, probs_ref);
            CHECK_SAME(out_unkept, out_ref);
            // Backward with the tuned forward's probabilities, or none (each
            // kernel recomputes them), adding into d_qkv or writing it.
            for (int keep = 0; keep < 2; ++keep)
              for (int accumulate = 0; accumulate < 2; ++accumulate) {
                CAPTURE(keep);
                CAPTURE(accumulate);
                const T* p = keep ? probs.data() : nullptr;
                Vec<T> d_qkv = grad_buffer<T>(B * T_len * 3 * C, accumulate, ++seed);
                Vec<T> d_qkv_ref = d_qkv;
                cpu::attention_backward<T>(qkv.data(), ptr(slopes), p, d_out.data(), B, T_len, C, H,
                                           d_qkv.data(), accumulate);
                reference::attention_backward<T>(qkv.data(), ptr(slopes), p, d_out.data(), B, T_len,
                                                 C, H, d_qkv_ref.data(), accumulate);
                CHECK_SAME(d_qkv, d_qkv_ref);
              }
          }
  }
}

TEST_CASE_TEMPLATE("linear spline forward and backward, both extrapolations", T, float, double) {
  struct Grid {
    int64_t K;
    double lo, hi;
  };
  // The second grid's knots are exact in binary, so its inputs include
  // every knot itself; the others' inputs keep 1e-3 of a knot interval
  // from any knot, where the slope jumps and rounding may pick either side.
  const Grid grids[] = {{2, -1, 1}, {9, -2, 2}, {13, -1.3, 2.7}, {100, 0, 3}};
  // 40001: three of the backward's chunks of 2^14 elements (spline_eval.h).
  const int64_t sizes[] = {1, 7, 1000, 40001};
  uint64_t seed = 7000;
  for (int threads : kThreadCounts) {
    Threads guard(threads);
    for (const Grid& gr : grids)
      for (int linear = 0; linear < 2; ++linear)
        for (int64_t n : sizes) {
          INFO("threads " << threads << ", K " << gr.K << ", [" << gr.lo << ", " << gr.hi
                          << "], linear " << linear << ", n " << n);
          const SplineGrid grid(gr.K, gr.lo, gr.hi, linear);
          const double h = (gr.hi - gr.lo) / double(gr.K - 1), span = gr.hi - gr.lo;
          Vec<T> x = random<T>(n, ++seed, gr.lo - 0.5 * span, gr.hi + 0.5 * span);
          for (T& xi : x) {
            const double u = (double(xi) - gr.lo) / h;
            if (std::fabs(u - std::round(u)) < 1e-3) xi = T(double(xi) + 2e-3 * h);
          }
          if (gr.K == 9)  // lo, every knot, hi, and two points outside
            for (int64_t k = 0; k < std::min<int64_t>(n, gr.K + 2); ++k)
              x[k] = k < gr.K ? T(grid.knot(k)) : T(k == gr.K ? gr.lo - 0.75 : gr.hi + 0.75);
          const Vec<T> values = random<T>(gr.K, ++seed), d_out = random<T>(n, ++seed);
          Vec<T> out = nans<T>(n), out_ref = out;
          cpu::spline_forward<T>(x.data(), n, values.data(), grid, out.data());
          reference::spline_forward<T>(x.data(), n, values.data(), grid, out_ref.data());
          CHECK_SAME(out, out_ref);
          // Both gradients, d_x only or the knots' only; d_x added to or
          // written, d_values always added to.
          for (int wanted = 0; wanted < 3; ++wanted)
            for (int accumulate = 0; accumulate < 2; ++accumulate) {
              CAPTURE(wanted);
              CAPTURE(accumulate);
              Vec<T> d_x = wanted == 2 ? Vec<T>{} : grad_buffer<T>(n, accumulate, ++seed);
              Vec<T> d_values = wanted == 1 ? Vec<T>{} : random<T>(gr.K, ++seed);
              Vec<T> d_x_ref = d_x, d_values_ref = d_values;
              cpu::spline_backward<T>(x.data(), n, values.data(), grid, d_out.data(), ptr(d_x),
                                      ptr(d_values), accumulate);
              reference::spline_backward<T>(x.data(), n, values.data(), grid, d_out.data(),
                                            ptr(d_x_ref), ptr(d_values_ref), accumulate);
              CHECK_SAME(d_x, d_x_ref);
              CHECK_SAME_FLOOR(d_values, d_values_ref, knot_floor(x, d_out, grid));
            }
        }
  }
}

TEST_CASE_TEMPLATE("the comparison reports a wrong reference", T, float, double) {
  const int64_t M = 9, N = 7, K = 5;
  const Vec<T> a = random<T>(M * K, 1), b = random<T>(K * N, 2), b_square = random<T>(N * N, 3);
  Vec<T> c(M * N);
  reference::gemm<T>(false, false, M, N, K, T(1), a.data(), b.data(), T(0), c.data());
  CHECK(mismatches("same", c, c, 0) == 0);
  // One element off by ten times the tolerance.
  Vec<T> off = c;
  off[17] += T(10 * kTol<T> * std::max(1.0, std::fabs(double(off[17]))));
  CHECK(mismatches("perturbed", off, c, 0) == 1);
  CHECK(mismatches("perturbed", c, off, 0) == 1);
  // A NaN, and a missing element.
  Vec<T> nan = c;
  nan[3] = std::numeric_limits<T>::quiet_NaN();
  CHECK(mismatches("nan", nan, c, 0) == 1);
  CHECK(mismatches("nan", c, nan, 0) == 1);
  CHECK(mismatches("short", Vec<T>(c.begin(), c.end() - 1), c, 0) > 0);
  // A reference that ignored trans_b would be caught by the tuned gemm.
  const Vec<T> a_square = random<T>(M * N, 4);
  Vec<T> tuned(M * N), wrong(M * N);
  cpu::gemm<T>(false, true, M, N, N, T(1), a_square.data(), b_square.data(), T(0), tuned.data());
  reference::gemm<T>(false, false, M, N, N, T(1), a_square.data(), b_square.data(), T(0),
                     wrong.data());
  CHECK(mismatches("trans_b ignored", tuned, wrong, 0) > 0);
}
