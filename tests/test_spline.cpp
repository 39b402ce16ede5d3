// The linear spline: its values against a scalar reference (inside the
// range, at the knots, both extrapolation modes, NaN), the knot gradient's
// independence of the thread count, and the Spline module's inits and config
// checks. Gradients against finite differences are in test_gradcheck.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "autograd/ops.h"
#include "engine/rng.h"
#include "engine/threads.h"
#include "nn/spline.h"
#include "tests/spline_ops.h"

using namespace tapir;

namespace {

// An independent evaluation: find the interval by search, not by division.
double reference_spline(double x, const std::vector<double>& v, double lo, double hi, bool linear) {
  const int64_t K = static_cast<int64_t>(v.size());
  const double h = (hi - lo) / double(K - 1);
  if (!linear) x = std::min(std::max(x, lo), hi);
  int64_t k = 0;
  while (k < K - 2 && lo + double(k + 1) * h <= x) ++k;
  const double t = (x - (lo + double(k) * h)) / h;
  return v[k] * (1 - t) + v[k + 1] * t;
}

Tensor values_tensor(const std::vector<double>& v, DType dtype) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, DType::f64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return cast(t, dtype);
}

struct ThreadCountGuard {
  ~ThreadCountGuard() { set_num_threads(1); }
};

}  // namespace

TEST_CASE("spline values match a reference inside and outside the range") {
  const std::vector<double> v = {0.5, -1.0, 2.0, 0.25, 3.0};  // 5 knots on [-2, 2]
  Tensor values = values_tensor(v, DType::f64);
  std::vector<double> xs = {-2, -1, 0, 1, 2, -1.5, 0.3, 1.99, -7.5, 4.25, 100.0, -1e6};
  Tensor x = empty({static_cast<int64_t>(xs.size())}, DType::f64);
  std::copy(xs.begin(), xs.end(), x.data<double>());
  for (bool linear : {true, false}) {
    Tensor y = spline(x, values, -2.0, 2.0, linear);
    for (size_t i = 0; i < xs.size(); ++i) {
      CAPTURE(xs[i]);
      CAPTURE(linear);
      CHECK(y.item(int64_t(i)) ==
            doctest::Approx(reference_spline(xs[i], v, -2, 2, linear)).epsilon(1e-12));
    }
  }
  // At the knots the spline is its values; outside, linear continues the end
  // segments and constant holds the end values.
  Tensor knots = from_values({5}, {-2, -1, 0, 1, 2}, DType::f64);
  Tensor at = spline(knots, values, -2.0, 2.0, true);
  for (int k = 0; k < 5; ++k) CHECK(at.item(k) == doctest::Approx(v[k]).epsilon(1e-15));
  Tensor out = from_values({2}, {-3, 3}, DType::f64);
  Tensor lin = spline(out, values, -2.0, 2.0, true), cst = spline(out, values, -2.0, 2.0, false);
  CHECK(lin.item(0) == doctest::Approx(0.5 - (-1.0 - 0.5)));
  CHECK(lin.item(1) == doctest::Approx(3.0 + (3.0 - 0.25)));
  CHECK(cst.item(0) == 0.5);
  CHECK(cst.item(1) == 3.0);
}

TEST_CASE("spline: NaN reaches the output, bad grids are refused") {
  Tensor values = from_values({3}, {1, 2, 3}, DType::f32);
  Tensor x = from_values({2}, {std::numeric_limits<double>::quiet_NaN(), 0.0}, DType::f32);
  for (bool linear : {true, false}) {
    Tensor y = spline(x, values, -1.0, 1.0, linear);
    CHECK(std::isnan(y.item(0)));
    CHECK(y.item(1) == 2.0);
  }
  CHECK_THROWS_WITH_AS(spline(x, values, 1.0, 1.0, true), doctest::Contains("lo < hi"), Error);
  CHECK_THROWS_WITH_AS(spline(x, from_values({1}, {1}, DType::f32), -1.0, 1.0, true),
                       doctest::Contains("at least 2 knots"), Error);
  CHECK_THROWS_WITH_AS(spline(x, from_values({1, 3}, {1, 2, 3}, DType::f32), -1.0, 1.0, true),
                       doctest::Contains("must be (K)"), Error);
}

TEST_CASE("spline backward: knot gradients are the same bits for any thread count") {
  ThreadCountGuard guard;
  const int64_t n = 100000, K = 121;  // several fixed chunks
  std::vector<float> grads[3];
  std::vector<float> dx[3];
  for (int run = 0; run < 3; ++run) {
    set_num_threads(run == 0 ? 1 : (run == 1 ? 2 : 3));
    Rng rng(7, 0);
    Tensor x = empty({n}, DType::f32);
    rng.fill_normal<float>(x.data<float>(), n, 0.0f, 3.0f);
    Tensor values = empty({K}, DType::f32);
    rng.fill_uniform<float>(values.data<float>(), K, -1.0f, 1.0f);
    x.set_requires_grad(true);
    values.set_requires_grad(true);
    Tensor w = empty({n}, DType::f32);
    rng.fill_uniform<float>(w.data<float>(), n, -1.0f, 1.0f);
    backward(sum_all(mul(spline(x, values, -20.0, 20.0, true), w)));
    grads[run].assign(values.grad<float>(), values.grad<float>() + K);
    dx[run].assign(x.grad<float>(), x.grad<float>() + n);
    if (run == 0) {
      // The sums themselves, against a double reference.
      std::vector<double> ref(K, 0.0);
      const double h = 40.0 / double(K - 1);
      for (int64_t i = 0; i < n; ++i) {
        const double u = (double(x.data<float>()[i]) + 20.0) / h;
        const int64_t k = std::min<int64_t>(std::max<int64_t>(int64_t(std::floor(u)), 0), K - 2);
        const double t = u - double(k);
        ref[k] += w.data<float>()[i] * (1 - t);
        ref[k + 1] += w.data<float>()[i] * t;
      }
      for (int64_t k = 0; k < K; ++k)
        CHECK(grads[0][k] == doctest::Approx(ref[k]).epsilon(1e-4).scale(1.0));
    }
    reset_step();
  }
  for (int run = 1; run < 3; ++run) {
    CHECK(std::memcmp(grads[0].data(), grads[run].data(), K * sizeof(float)) == 0);
    CHECK(std::memcmp(dx[0].data(), dx[run].data(), n * sizeof(float)) == 0);
  }
}

TEST_CASE("Spline module: inits, parameter and config checks") {
  SplineConfig c;  // 121 knots on [-20, 20], GeLU init
  Spline gelu_spline(c);
  CHECK(gelu_spline.values().tensor().shape() == Shape{121});
  CHECK_FALSE(gelu_spline.values().decay);
  for (int64_t k : {0, 40, 59, 60, 61, 90, 120}) {
    const double x = c.grid.knot(k);
    CHECK(gelu_spline.values().tensor().item(k) ==
          doctest::Approx(0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))).epsilon(1e-6));
  }
  CHECK(c.grid.knot(60) == 0.0);
  c.init = "identity";
  Spline identity(c, 3);  // per head
  CHECK(identity.values().tensor().shape() == Shape{3, 121});
  CHECK(identity.values().tensor().item(2 * 121 + 7) == doctest::Approx(c.grid.knot(7)));
  c.init = "const:0.01";
  Spline constant(c);
  CHECK(constant.values().tensor().item(100) == doctest::Approx(0.01));
  // Elementwise forward of the GeLU spline is close to GeLU where knots are
  // dense relative to the curvature.
  Tensor x = from_values({3}, {-0.5, 0.1, 2.0});
  Tensor y = gelu_spline.forward(x);
  for (int i = 0; i < 3; ++i) CHECK(y.item(i) == doctest::Approx(gelu(x).item(i)).epsilon(0.05));

  SplineConfig bad;
  bad.init = "const:abc";
  CHECK_THROWS_WITH_AS(bad.validate("MLP spline"), doctest::Contains("const:C"), Error);
  for (const char* init : {"const: 0.5", "const:0.5 ", "const:inf", "const:", "const", "gelu:1",
                           "identity:", ":0.5"}) {
    CAPTURE(init);
    bad.init = init;
    CHECK_THROWS_AS(bad.validate("MLP spline"), Error);  // std::stod took the first
  }
  CHECK(parse_spline_init("identity").kind == SplineInitKind::identity);
  CHECK(parse_spline_init("const:-0.25").kind == SplineInitKind::constant);
  CHECK(parse_spline_init("const:-0.25").constant == -0.25);
  bad.init = "sine";
  CHECK_THROWS_WITH_AS(
      bad.validate("MLP spline"),
      "model: MLP spline: unknown spline init 'sine' (known: gelu, identity, const)", Error);
  // The grid is checked where it is made: a config cannot hold a bad one.
  CHECK_THROWS_WITH_AS(parse_extrapolation("mirror"), doctest::Contains("linear or constant"),
                       Error);
  CHECK_THROWS_WITH_AS(SplineGrid(121, 3, -3, true), doctest::Contains("lo < hi"), Error);
  CHECK_THROWS_WITH_AS(SplineGrid(1, -20, 20, true), doctest::Contains("knots"), Error);
  // JSON round trip, and defaults for missing fields.
  SplineConfig d;
  d.grid = SplineGrid(64, -20, 20, /*linear=*/false);
  d.scope = SplineScope::shared;
  SplineConfig back = SplineConfig::from_json(d.to_json(), SplineConfig{});
  CHECK(back.grid.knots() == 64);
  CHECK(!back.grid.linear());
  CHECK(back.scope == SplineScope::shared);
  CHECK(SplineConfig::from_json(Json::object(), d).grid.knots() == 64);
}
