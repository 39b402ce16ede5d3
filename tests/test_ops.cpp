// Forward values of the ops against independent references: naive loops,
// closed forms and compositions of simpler ops. (test_gradcheck proves the
// backward matches the forward; these prove the forward itself.)
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.h"
#include "engine/rng.h"
#include "engine/workspace.h"

using namespace tapir;

namespace {

Tensor random(const Shape& s, uint64_t seed, DType t = DType::f64) {
  Tensor x = empty(s, DType::f64);
  Rng rng(seed, 0);
  rng.fill_uniform<double>(x.data<double>(), x.numel(), -1.0, 1.0);
  return t == DType::f64 ? x : cast(x, t);
}

double max_abs_diff(Tensor a, Tensor b) {
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) worst = std::max(worst, std::fabs(a.item(i) - b.item(i)));
  return worst;
}

}  // namespace

TEST_CASE("from_values copies a list, a std::vector or a span, converted to the dtype asked for") {
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9};
  const Tensor t = from_values({2, 3}, ids);  // token ids: i32 by default
  CHECK(t.dtype() == DType::i32);
  CHECK(t.shape() == Shape{2, 3});
  for (int64_t i = 0; i < 6; ++i) CHECK(t.item(i) == ids[static_cast<size_t>(i)]);
  const std::vector<float> mask = {1, 0, 1, 1};
  const Tensor m = from_values({4}, mask);  // a mask: f32
  CHECK(m.dtype() == DType::f32);
  CHECK(m.item(1) == 0.0);
  const std::vector<double> x = {0.25, -2};
  const Tensor d = from_values({2}, std::span<const double>(x), DType::f64);
  CHECK(d.item(0) == 0.25);
  CHECK(from_values({2}, {0.5, 1.5}).item(1) == 1.5);
  CHECK_THROWS_WITH_AS(from_values({4}, ids), "from_values: 6 values given for shape (4)", Error);
}

TEST_CASE("binary ops broadcast a suffix and reject other shapes") {
  Tensor a = from_values({2, 3}, {1, 2, 3, 4, 5, 6}, DType::f64);
  Tensor b = from_values({3}, {10, 20, 30}, DType::f64);
  Tensor c = add(a, b);
  CHECK(c.item(4) == 25);
  CHECK(sub(b, a).item(3) == 6);
  CHECK(div(a, full({}, 2.0, DType::f64)).item(5) == 3);
  CHECK_THROWS_WITH_AS(add(a, from_values({2}, {1, 2}, DType::f64)),
                       doctest::Contains("do not broadcast"), Error);
  CHECK_THROWS_WITH_AS(add(a, cast(b, DType::f32)), doctest::Contains("dtypes differ"), Error);
  reset_step();
}

TEST_CASE("gelu is the exact erf form") {
  Tensor x = from_values({3}, {-1.0, 0.5, 2.0}, DType::f64);
  Tensor y = gelu(x);
  for (int i = 0; i < 3; ++i) {
    const double v = x.item(i);
    CHECK(y.item(i) ==
          doctest::Approx(0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))).epsilon(1e-15));
  }
  CHECK(y.item(0) == doctest::Approx(-0.15865525393145707).epsilon(1e-12));
  reset_step();
}

TEST_CASE("matmul matches a naive triple loop for every transpose flag and batching") {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Tensor a = random(ta ? Shape{2, 5, 3} : Shape{2, 3, 5}, 1);
      Tensor b = random(tb ? Shape{2, 4, 5} : Shape{2, 5, 4}, 2);
      Tensor c = matmul(a, b, ta, tb);
      REQUIRE(c.shape() == Shape{2, 3, 4});
      Tensor ref = zeros({2, 3, 4}, DType::f64);
      for (int n = 0; n < 2; ++n)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 4; ++j) {
            double s = 0;
            for (int k = 0; k < 5; ++k) {
              const double av = ta ? a.item(n * 15 + k * 3 + i) : a.item(n * 15 + i * 5 + k);
              const double bv = tb ? b.item(n * 20 + j * 5 + k) : b.item(n * 20 + k * 4 + j);
              s += av * bv;
            }
            ref.data<double>()[n * 12 + i * 4 + j] = s;
          }
      CHECK(max_abs_diff(c, ref) < 1e-12);
    }
  CHECK_THROWS_WITH_AS(matmul(random({2, 3}, 1), random({4, 2}, 2)),
                       doctest::Contains("inner dimensions differ"), Error);
  reset_step();
}

TEST_CASE("softmax, log_softmax and cross_entropy agree with closed forms") {
  Tensor x = from_values({2, 3}, {1, 2, 3, -1, 0, 1000}, DType::f64);
  Tensor p = softmax(x);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(p.item(0) == doctest::Approx(std::exp(1.0) / z));
  CHECK(p.item(5) == doctest::Approx(1.0));  // stable for large inputs
  Tensor lp = log_softmax(x);
  CHECK(lp.item(2) == doctest::Approx(3.0 - std::log(z)));
  Tensor targets = from_values({2}, {2, 0}, DType::i32);
  Tensor mask = from_values({2}, {1.0, 0.0}, DType::f64);
  CHECK(cross_entropy(x, targets, mask).item() == doctest::Approx(std::log(z) - 3.0));
  Tensor all = cross_entropy(x, targets);
  CHECK(all.item() == doctest::Approx((std::log(z) - 3.0 + 1001.0) / 2.0));
  CHECK_THROWS_WITH_AS(cross_entropy(x, from_values({2}, {3, 0}, DType::i32)),
                       doctest::Contains("outside the 3 classes"), Error);
  reset_step();
}

TEST_CASE("layernorm normalises each row to mean 0 and variance 1 before the affine map") {
  Tensor x = random({4, 16}, 3);
  Tensor w = full({16}, 2.0, DType::f64), b = full({16}, 0.5, DType::f64);
  Tensor y = layernorm(x, w, b, 1e-5);
  for (int r = 0; r < 4; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < 16; ++i) mean += (y.item(r * 16 + i) - 0.5) / 2.0;
    mean /= 16;
    for (int i = 0; i < 16; ++i) var += std::pow((y.item(r * 16 + i) - 0.5) / 2.0 - mean, 2);
    var /= 16;
    CHECK(std::fabs(mean) < 1e-12);
    CHECK(var == doctest::Approx(1.0).epsilon(1e-3));  // eps = 1e-5 shrinks it slightly
  }
  reset_step();
}

TEST_CASE("embedding gathers rows and rejects ids outside the table") {
  Tensor table = from_values({3, 2}, {0, 1, 10, 11, 20, 21}, DType::f64);
  Tensor out = embedding(table, from_values({2, 2}, {2, 0, 1, 2}, DType::i32));
  REQUIRE(out.shape() == Shape{2, 2, 2});
  CHECK(out.item(0) == 20);
  CHECK(out.item(5) == 11);
  CHECK_THROWS_WITH_AS(embedding(table, from_values({1}, {3}, DType::i32)),
                       doctest::Contains("outside the table"), Error);
  reset_step();
}

TEST_CASE("fused attention equals matmul, causal mask, softmax and matmul composed") {
  const int64_t B = 2, T = 5, H = 3, D = 4, C = H * D;
  Tensor qkv = random({B, T, 3 * C}, 4);
  Tensor slopes = from_values({H}, {0.5, 0.25, 0.125}, DType::f64);
  for (bool alibi : {false, true}) {
    Tensor fused = attention(qkv, H, alibi ? slopes : Tensor());
    Tensor causal = empty({T, T}, DType::i32), bias = empty({T, T}, DType::f64);
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        causal.data<int32_t>()[i * T + j] = j > i;
        bias.data<double>()[i * T + j] = -double(i - j);
      }
    Tensor ref = zeros({B, T, C}, DType::f64);
    for (int64_t h = 0; h < H; ++h) {
      Tensor q = slice(qkv, 2, h * D, (h + 1) * D);
      Tensor k = slice(qkv, 2, C + h * D, C + (h + 1) * D);
      Tensor v = slice(qkv, 2, 2 * C + h * D, 2 * C + (h + 1) * D);
      Tensor s = affine(matmul(q, k, false, true), 1.0 / std::sqrt(double(D)));
      if (alibi) s = add(s, affine(bias, slopes.item(h)));
      Tensor o = matmul(softmax(masked_fill(s, causal, -1e300)), v);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < T; ++t)
          for (int64_t d = 0; d < D; ++d)
            ref.data<double>()[(b * T + t) * C + h * D + d] = o.item((b * T + t) * D + d);
    }
    CHECK(max_abs_diff(fused, ref) < 1e-12);
  }
  reset_step();
}

TEST_CASE("reshape is a view; concat and slice invert each other") {
  Tensor x = random({2, 3, 4}, 5);
  Tensor r = reshape(x, {6, 4});
  CHECK(r.raw() == x.raw());
  CHECK_THROWS_WITH_AS(reshape(x, {5, 5}), doctest::Contains("cannot view"), Error);
  Tensor a = slice(x, 1, 0, 1), b = slice(x, 1, 1, 3);
  CHECK(max_abs_diff(concat({a, b}, 1), x) == 0);
  Tensor t = transpose(transpose(x));
  CHECK(max_abs_diff(t, x) == 0);
  reset_step();
}

TEST_CASE("the arena stops allocating after the first step") {
  for (int step = 0; step < 3; ++step) {
    Tensor x = random({64, 256}, 6, DType::f32);
    x.set_requires_grad(true);
    backward(sum_all(gelu(matmul(x, x, true, false))));
    const int64_t blocks = step_arena().block_allocations();
    reset_step();
    if (step > 0) CHECK(step_arena().block_allocations() == blocks);
  }
}

TEST_CASE("backward needs a scalar loss that depends on a gradient-carrying tensor") {
  Tensor x = random({3}, 7);
  CHECK_THROWS_WITH_AS(backward(sum_all(x)), doctest::Contains("does not depend"), Error);
  x.set_requires_grad(true);
  CHECK_THROWS_WITH_AS(backward(gelu(x)), doctest::Contains("one element"), Error);
  {
    NoGrad no_grad;
    CHECK_FALSE(gelu(x).requires_grad());
  }
  reset_step();
}

TEST_CASE("linear equals matmul with a transposed weight plus the bias") {
  Tensor x = random({2, 3, 4}, 8), w = random({5, 4}, 9), b = random({5}, 10);
  CHECK(max_abs_diff(linear(x, w, b), add(matmul(x, w, false, true), b)) < 1e-14);
  CHECK(max_abs_diff(linear(x, w), matmul(x, w, false, true)) < 1e-14);
  CHECK_THROWS_WITH_AS(linear(x, random({5, 3}, 11)), doctest::Contains("does not end in 3"),
                       Error);
  reset_step();
}
