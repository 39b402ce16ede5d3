// Tests of optim/clip: the global gradient norm over parameters and clipping
// to a maximum norm.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "optim/clip.h"

using tapir::Parameter;

namespace {
void init(Parameter& p, std::vector<float> grad) {
  p.value =
      tapir::HeapTensor(tapir::Shape{static_cast<int64_t>(grad.size())}, tapir::DType::f32, true);
  std::memcpy(p.tensor().grad<float>(), grad.data(), grad.size() * sizeof(float));
}
float grad(const Parameter& p, int64_t i) {
  return p.tensor().grad<float>()[i];
}
}  // namespace

TEST_CASE("global_grad_norm is the 2-norm over all trained parameters") {
  Parameter a, b, frozen;
  init(a, {3.0f, 0.0f});
  init(b, {4.0f});
  init(frozen, {100.0f});
  frozen.set_frozen(true);
  CHECK(tapir::global_grad_norm({&a, &b}) == 5.0);  // sqrt(9 + 16)
  CHECK(tapir::global_grad_norm({&a, &b, &frozen}) == 5.0);
  CHECK(tapir::global_grad_norm({}) == 0.0);
}

TEST_CASE("clip_grad_norm scales large gradients to the maximum norm") {
  Parameter a, b, frozen;
  init(a, {3.0f, 0.0f});
  init(b, {4.0f});
  init(frozen, {100.0f});
  frozen.set_frozen(true);
  // norm 5 > 1: scale 1 / (5 + 1e-6), so (3, 0, 4) -> (0.6, 0, 0.8)
  CHECK(tapir::clip_grad_norm({&a, &b, &frozen}, 1.0) == 5.0);
  CHECK(grad(a, 0) == doctest::Approx(0.6).epsilon(1e-6));
  CHECK(grad(a, 1) == 0.0f);
  CHECK(grad(b, 0) == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(grad(frozen, 0) == 100.0f);
  const double after = tapir::global_grad_norm({&a, &b});
  CHECK(after <= 1.0);
  CHECK(after == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("clip_grad_norm leaves small gradients alone and is off for max_norm <= 0") {
  Parameter a;
  init(a, {3.0f, 4.0f});
  CHECK(tapir::clip_grad_norm({&a}, 10.0) == 5.0);
  CHECK(tapir::clip_grad_norm({&a}, 5.0) == 5.0);  // not above the maximum
  CHECK(tapir::clip_grad_norm({&a}, 0.0) == 5.0);
  CHECK(tapir::clip_grad_norm({&a}, -1.0) == 5.0);
  CHECK(grad(a, 0) == 3.0f);
  CHECK(grad(a, 1) == 4.0f);
}

TEST_CASE("NaN and inf gradients show in the norm") {
  Parameter a, b;
  init(a, {1.0f, std::numeric_limits<float>::quiet_NaN()});
  init(b, {1.0f, std::numeric_limits<float>::infinity()});
  CHECK(std::isnan(tapir::global_grad_norm({&a})));
  CHECK(std::isinf(tapir::global_grad_norm({&b})));
  CHECK(std::isnan(tapir::clip_grad_norm({&a, &b}, 1.0)));
  CHECK(grad(a, 0) == 1.0f);  // a NaN norm clips nothing
}
