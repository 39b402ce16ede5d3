// The arithmetic of per-layer descent constraints (optim/constraints.h)
// against hand-computed values: constraint values, Lagrangian weights, the
// projected dual step, the resilient slack step and its equilibrium, and the
// configuration's checks.
#include <doctest/doctest.h>

#include "base/error.h"
#include "engine/rng.h"
#include "optim/constraints.h"

using namespace tapir;

namespace {

ConstraintConfig descent(std::vector<double> alpha) {
  ConstraintConfig c;
  c.kind = ConstraintKind::descent;
  c.alpha = std::move(alpha);
  return c;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("constraint values s_l = f_l - (1 - alpha_l) f_{l-1}") {
  // One rate: s_1 = 0.8 - 0.9 * 1.0, s_2 = 0.9 - 0.9 * 0.8.
  check_close(descent_constraints({1.0, 0.8, 0.9}, descent({0.1})), {-0.1, 0.18});
  // Per layer (0.1, 0.5): s_2 = 0.9 - 0.5 * 0.8.
  check_close(descent_constraints({1.0, 0.8, 0.9}, descent({0.1, 0.5})), {-0.1, 0.5});
}

TEST_CASE("Lagrangian weights: f_L + sum_l lambda_l s_l = sum_l w_l f_l") {
  const ConstraintConfig c = descent({0.1, 0.2});
  // w_0 = -0.5 * 0.9, w_1 = 0.5 - 2 * 0.8, w_2 = 1 + 2.
  const std::vector<double> w = lagrangian_weights({0.5, 2.0}, c);
  check_close(w, {-0.45, -1.1, 3.0});
  const std::vector<double> f = {0.7, 0.4, 0.3};
  const std::vector<double> s = descent_constraints(f, c);
  const double lagrangian = f[2] + 0.5 * s[0] + 2.0 * s[1];
  CHECK(w[0] * f[0] + w[1] * f[1] + w[2] * f[2] == doctest::Approx(lagrangian).epsilon(1e-12));
  // With every multiplier 0 the Lagrangian is the plain loss f_L.
  check_close(lagrangian_weights({0.0, 0.0}, c), {0.0, 0.0, 1.0});
  // Holding the right-hand sides drops the negative weights: w_l = [l == L] + lambda_l.
  ConstraintConfig held = c;
  held.detach_previous = true;
  check_close(lagrangian_weights({0.5, 2.0}, held), {0.0, 0.5, 3.0});
}

TEST_CASE("the dual step is projected SGD ascent on lambda") {
  std::vector<double> lambda = {0.0, 0.5, 0.1};
  // 0 + 0.1 * 0.2; 0.5 + 0.1 * (-1) = 0.4; 0.1 + 0.1 * 0.05.
  dual_step(lambda, {0.2, -1.0, 0.05}, {}, 0.1);
  check_close(lambda, {0.02, 0.4, 0.105});
  // Projection: 0.4 + 0.1 * (-10) < 0 -> 0.
  dual_step(lambda, {0.0, -10.0, 0.0}, {}, 0.1);
  check_close(lambda, {0.02, 0.0, 0.105});
  // With slacks: lambda + eta (s - u): 0.02 + 0.1 (0.2 - 0.1); 0; 0.105 + 0.1 (0.05 - 0.5) = 0.06.
  dual_step(lambda, {0.2, 0.0, 0.05}, {0.1, 0.0, 0.5}, 0.1);
  check_close(lambda, {0.03, 0.0, 0.06});
  CHECK_THROWS_AS(dual_step(lambda, {0.1}, {}, 0.1), Error);
}

TEST_CASE("the slack step descends (beta / 2) u^2 - lambda u, projected on u >= 0") {
  std::vector<double> u = {0.2, 0.0, 1.0, 0.05};
  // 0.2 - 0.1 (2 * 0.2 - 0.5) = 0.21; 0 - 0.1 (0 - 0) = 0; 1 - 0.1 (2 - 0.1) = 0.81;
  // 0.05 - 0.1 (0.1 - 0) = 0.04.
  slack_step(u, {0.5, 0.0, 0.1, 0.0}, 2.0, 0.1);
  check_close(u, {0.21, 0.0, 0.81, 0.04});
  std::vector<double> v = {0.05};
  slack_step(v, {0.0}, 10.0, 0.5);  // 0.05 - 0.5 * 0.5 < 0 -> 0
  check_close(v, {0.0});
}

TEST_CASE("multipliers and slacks never go negative") {
  Rng rng(3, 0);
  std::vector<double> lambda(4, 0.0), u(4, 0.0), s(4);
  for (int step = 0; step < 2000; ++step) {
    for (double& v : s) v = 4.0 * rng.normal() - 1.0;
    slack_step(u, lambda, 0.5, 0.3);
    dual_step(lambda, s, step % 2 ? u : std::vector<double>{}, 0.3);
    for (size_t l = 0; l < 4; ++l) {
      REQUIRE(lambda[l] >= 0.0);
      REQUIRE(u[l] >= 0.0);
    }
  }
}

TEST_CASE("resilient equilibrium: a violated constraint settles at u = s, lambda = beta u") {
  std::vector<double> lambda = {0.0}, u = {0.0};
  for (int step = 0; step < 20000; ++step) {
    slack_step(u, lambda, 2.0, 0.05);
    dual_step(lambda, {0.3}, u, 0.05);
  }
  CHECK(u[0] == doctest::Approx(0.3).epsilon(1e-6));
  CHECK(lambda[0] == doctest::Approx(0.6).epsilon(1e-6));
}

TEST_CASE("the configuration checks its fields and round-trips through JSON") {
  ConstraintConfig c = descent({0.1, 0.05, 0.2});
  c.resilient = true;
  c.beta = 3.0;
  c.dual_every = 4;
  c.dual_batch = 128;
  c.detach_previous = true;
  c.validate(3);
  CHECK(c.alpha_at(2) == 0.05);
  const ConstraintConfig back = ConstraintConfig::from_json(c.to_json());
  CHECK(back.to_json() == c.to_json());
  CHECK(descent({0.1}).alpha_at(7) == 0.1);
  CHECK_THROWS_WITH_AS(c.validate(2), doctest::Contains("one per layer (2), got 3"), Error);
  CHECK_THROWS_WITH_AS(descent({1.0}).validate(2), doctest::Contains("must be in [0, 1), got 1"),
                       Error);
  CHECK_THROWS_WITH_AS(descent({-0.5}).validate(2), doctest::Contains("got -0.5"), Error);
  ConstraintConfig bad = descent({0.1});
  bad.dual_lr = 0;
  CHECK_THROWS_WITH_AS(bad.validate(2), doctest::Contains("dual-lr"), Error);
  // The kind is a closed choice: a config file's unknown kind stops reading.
  Json ascent = descent({0.1}).to_json();
  ascent.set("kind", "ascent");
  CHECK_THROWS_WITH_AS(
      ConstraintConfig::from_json(ascent),
      doctest::Contains(
          "unknown constraint kind 'ascent' (known: none, descent, deep-supervision)"),
      Error);
  // The numbers are checked with the constraints off too (a bad --alpha is
  // a mistake either way); only the per-layer count needs them on.
  ConstraintConfig none;
  none.alpha = {5.0};
  CHECK_THROWS_WITH_AS(none.validate(2), doctest::Contains("got 5"), Error);
  none.alpha = {0.1, 0.1, 0.1};
  CHECK_NOTHROW(none.validate(2));
}
