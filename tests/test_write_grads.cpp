// Backward kernels that write a gradient buffer just allocated instead of
// adding to a zeroed one (autograd/tape.h grad_for_write): written into a
// buffer full of NaN, every element must come out equal to what adding into
// zeros gives (the same bits, but for the sign of a zero: 0 + -0 is +0), so
// no element is left unwritten and none is read. Then
// through the tape: an input whose gradient one op writes and another adds
// to still passes the finite-difference check.
//
// Ops of the op table (cmake/checks/op_coverage.cmake): those whose backward
// writes a fresh gradient (grad_for_write) are checked here, but matmul,
// whose write (beta = 0 into NaN) test_reference_kernels.cpp checks. The
// others' backward kernels only add into a zeroed gradient.
// op table, checked here: exp log tanh sqrt relu gelu layernorm rmsnorm spline
// op table, checked here: attention score_spline_attention
// op table, not here: add sub mul div affine matmul linear sum mean sum_all
// op table, not here: max_last softmax log_softmax cross_entropy rope embedding
// op table, not here: reshape transpose concat slice masked_fill poly
// op table, not here: feature_spline_attention

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "engine/kernels.h"
#include "engine/rng.h"

using namespace tapir;

namespace {

std::vector<float> random_floats(int64_t n, uint64_t seed, double lo, double hi) {
  std::vector<float> v(static_cast<size_t>(n));
  Rng rng(seed, 0);
  rng.fill_uniform<float>(v.data(), n, static_cast<float>(lo), static_cast<float>(hi));
  return v;
}

// run(d_x, accumulate) into zeros with accumulate, and into NaN without:
// the same values.
void check_write_matches_add(int64_t n, const std::function<void(float*, bool)>& run) {
  std::vector<float> added(static_cast<size_t>(n), 0.0f);
  std::vector<float> written(static_cast<size_t>(n), std::numeric_limits<float>::quiet_NaN());
  run(added.data(), true);
  run(written.data(), false);
  int64_t differ = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!(added[static_cast<size_t>(i)] == written[static_cast<size_t>(i)])) ++differ;
  CHECK(differ == 0);
  for (float v : added) REQUIRE(std::isfinite(v));
}

SplineGrid grid_of(int64_t knots, double lo, double hi) {
  return SplineGrid(knots, lo, hi, true);
}

}  // namespace

TEST_CASE("every unary backward writes all of a fresh gradient") {
  const int64_t n = 40000;  // more than one chunk of the elementwise loops
  // Every code of UnaryOp (engine/kernel_types.h), so that a new one is
  // checked without a line here.
  for (int code = 0; code < kUnaryOpCount; ++code) {
    const UnaryOp op = static_cast<UnaryOp>(code);
    CAPTURE(op_name(op));
    const std::vector<float> x = random_floats(n, 1, 0.1, 3.0), d_out = random_floats(n, 2, -1, 1);
    std::vector<float> out(static_cast<size_t>(n));
    cpu::unary_forward(op, x.data(), n, out.data());
    check_write_matches_add(n, [&](float* d_x, bool accumulate) {
      cpu::unary_backward(op, x.data(), out.data(), d_out.data(), n, d_x, accumulate);
    });
  }
}

TEST_CASE("layernorm and rmsnorm backward write all of a fresh input gradient") {
  const int64_t rows = 37, C = 70;  // C not a multiple of the lanes
  const std::vector<float> x = random_floats(rows * C, 3, -2, 2), w = random_floats(C, 4, 0.5, 1.5),
                           b = random_floats(C, 5, -1, 1), d_y = random_floats(rows * C, 6, -1, 1);
  std::vector<float> y(static_cast<size_t>(rows * C)), mean(rows), rstd(rows);
  cpu::layernorm_forward(x.data(), w.data(), b.data(), rows, C, 1e-5f, y.data(), mean.data(),
                         rstd.data());
  check_write_matches_add(rows * C, [&](float* d_x, bool accumulate) {
    cpu::layernorm_backward(x.data(), w.data(), mean.data(), rstd.data(), d_y.data(), rows, C, d_x,
                            static_cast<float*>(nullptr), static_cast<float*>(nullptr), accumulate);
  });
  cpu::rmsnorm_forward(x.data(), w.data(), rows, C, 1e-5f, y.data(), rstd.data());
  check_write_matches_add(rows * C, [&](float* d_x, bool accumulate) {
    cpu::rmsnorm_backward(x.data(), w.data(), rstd.data(), d_y.data(), rows, C, d_x,
                          static_cast<float*>(nullptr), accumulate);
  });
}

TEST_CASE("spline backward writes all of a fresh input gradient") {
  const int64_t n = 10000, K = 17;  // several chunks, inputs inside and outside the range
  const std::vector<float> x = random_floats(n, 7, -3, 3), values = random_floats(K, 8, -1, 1),
                           d_out = random_floats(n, 9, -1, 1);
  for (const SplineGrid& grid : {grid_of(K, -2.0, 2.0), SplineGrid(K, -2.0, 2.0, false)}) {
    check_write_matches_add(n, [&](float* d_x, bool accumulate) {
      std::vector<float> d_values(static_cast<size_t>(K), 0.0f);
      cpu::spline_backward(x.data(), n, values.data(), grid, d_out.data(), d_x, d_values.data(),
                           accumulate);
    });
  }
}

TEST_CASE("attention backward writes all of a fresh qkv gradient, short and long sequences") {
  const int64_t B = 2, C = 24, H = 3;
  const int64_t K = 9;
  const std::vector<float> values = random_floats(K, 10, -1, 1);
  for (int64_t T : {1, 4, 7, 33}) {  // the loops below 32, OpenBLAS from 32
    CAPTURE(T);
    const int64_t n = B * T * 3 * C;
    const std::vector<float> qkv = random_floats(n, 11, -1, 1),
                             d_out = random_floats(B * T * C, 12, -1, 1),
                             slopes = random_floats(H, 13, 0.1, 0.5);
    std::vector<float> probs(static_cast<size_t>(B * H * T * T)),
        out(static_cast<size_t>(B * T * C));
    cpu::attention_forward(qkv.data(), B, T, C, H, slopes.data(), probs.data(), out.data());
    check_write_matches_add(n, [&](float* d_qkv, bool accumulate) {
      cpu::attention_backward(qkv.data(), slopes.data(), probs.data(), d_out.data(), B, T, C, H,
                              d_qkv, accumulate);
    });
    // Probabilities recomputed in backward (none kept).
    check_write_matches_add(n, [&](float* d_qkv, bool accumulate) {
      cpu::attention_backward<float>(qkv.data(), slopes.data(), nullptr, d_out.data(), B, T, C, H,
                                     d_qkv, accumulate);
    });
    const SplineGrid grid = grid_of(K, -3.0, 3.0);
    std::vector<float> scores(static_cast<size_t>(B * H * T * T));
    cpu::score_spline_attention_forward(qkv.data(), B, T, C, H, slopes.data(), values.data(), grid,
                                        false, scores.data(), probs.data(), out.data());
    check_write_matches_add(n, [&](float* d_qkv, bool accumulate) {
      std::vector<float> d_values(static_cast<size_t>(K), 0.0f);
      cpu::score_spline_attention_backward(qkv.data(), slopes.data(), scores.data(), probs.data(),
                                           d_out.data(), B, T, C, H, values.data(), grid, false,
                                           d_qkv, d_values.data(), accumulate);
    });
  }
}

TEST_CASE("an input whose gradient one op writes and others add to: finite differences agree") {
  // x feeds gelu, layernorm, a spline and attention; whichever backward runs
  // first writes x's gradient, the rest add to it.
  const int64_t B = 2, T = 5, C = 12, H = 2;
  Tensor x = empty(Shape{B, T, 3 * C}, DType::f64);
  Rng rng(14, 0);
  rng.fill_uniform<double>(x.data<double>(), x.numel(), -1.0, 1.0);
  x.set_requires_grad(true);
  Tensor w = full(Shape{3 * C}, 1.1, DType::f64), b = full(Shape{3 * C}, 0.1, DType::f64);
  const int64_t K = 9;
  Tensor values = empty(Shape{K}, DType::f64);
  rng.fill_uniform<double>(values.data<double>(), K, -1.0, 1.0);
  // Knots at the quarters: the inputs' finite differences never cross one.
  const SplineGrid grid(K, -1.0, 1.0, true);
  const GradcheckFn f = [&](const std::vector<Tensor>& in) {
    Tensor a = gelu(in[0]);
    Tensor n = layernorm(in[0], w, b, 1e-5);
    Tensor s = spline(in[0], values, grid);
    Tensor att = attention(in[0], H);
    Tensor mixed = add(add(a, n), s);
    return add(slice(mixed, 2, 0, C), att);
  };
  const GradcheckResult r = gradcheck(f, {x});
  CAPTURE(r.worst);
  CHECK(r.checked == x.numel());
  CHECK(r.max_error < 1e-6);
  reset_step();
}
