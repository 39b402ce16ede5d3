// Shape and scale controls of learned MLP functions (lab/arch_controls.h):
// the gelu control is GeLU at the knots, the scaled one has the learned
// function's mean slope, the rough one its curvature (lab/arch_stats.h),
// from a seed; files with attention functions are refused.
#include <doctest/doctest.h>

#include <cmath>

#include "base/error.h"
#include "lab/arch_controls.h"
#include "lab/arch_stats.h"
#include "nn/transformer.h"
#include "tests/test_support.h"

using namespace tapir;

namespace {

// Two blocks' MLP splines on [-4, 4] (33 knots), each a rough function
// with a slope of its own: 1.5 x + sin(5 x) / (l + 1).
Architecture learned() {
  ModelConfig c;
  c.vocab = 25;
  c.context = 4;
  c.width = 16;
  c.heads = 4;
  c.layers = 2;
  c.mlp_act = MlpAct::spline;
  c.mlp_spline.grid = SplineGrid(33, -4, 4, /*linear=*/false);
  Transformer model(c);
  Architecture a = architecture_of(model);
  REQUIRE(a.functions.size() == 2);
  for (size_t l = 0; l < 2; ++l)
    for (int64_t k = 0; k < 33; ++k) {
      const double x = a.mlp_spline.grid.knot(k);
      a.functions[l].values[size_t(k)] = float(1.5 * x + std::sin(5 * x) / double(l + 1));
    }
  return a;
}

double slope_over(const std::vector<float>& v, const SplineGrid& g, int64_t first, int64_t last) {
  return (double(v[size_t(last)]) - v[size_t(first)]) / (g.knot(last) - g.knot(first));
}

}  // namespace

TEST_CASE("the gelu control is GeLU at the knots; the scaled one has the learned mean slope") {
  const Architecture a = learned();
  SplineConfig gelu = a.mlp_spline;
  gelu.init = "gelu";
  const std::vector<double> exact = spline_init_values(gelu);
  const Architecture g = make_control(a, ArchControl::gelu, -3, 3, 0);
  for (const Architecture::Function& f : g.functions)
    for (size_t k = 0; k < exact.size(); ++k) CHECK(f.values[k] == float(exact[k]));
  // Knots 4 .. 28 are -3 .. 3 on this grid (spacing 0.25).
  const SplineGrid& grid = a.mlp_spline.grid;
  CHECK(grid.knot(4) == doctest::Approx(-3));
  CHECK(grid.knot(28) == doctest::Approx(3));
  const Architecture s = make_control(a, ArchControl::scaled_gelu, -3, 3, 0);
  for (size_t l = 0; l < 2; ++l) {
    CHECK(slope_over(s.functions[l].values, grid, 4, 28) ==
          doctest::Approx(slope_over(a.functions[l].values, grid, 4, 28)).epsilon(1e-5));
    // Still GeLU's shape: a multiple of it.
    const double ratio = s.functions[l].values[30] / exact[30];
    CHECK(s.functions[l].values[10] == doctest::Approx(ratio * exact[10]).epsilon(1e-5));
  }
}

TEST_CASE("the rough control has the learned curvature, from its seed") {
  const Architecture a = learned();
  const Architecture r = make_control(a, ArchControl::rough, -3, 3, 7);
  const std::vector<FunctionRoughness> want = arch_roughness(a, -3, 3);
  const std::vector<FunctionRoughness> got = arch_roughness(r, -3, 3);
  REQUIRE(got.size() == 2);
  for (size_t l = 0; l < 2; ++l)
    CHECK(got[l].curvature_rms == doctest::Approx(want[l].curvature_rms).epsilon(1e-4));
  // The same seed, the same noise; another, other noise.
  CHECK(make_control(a, ArchControl::rough, -3, 3, 7).functions[0].values == r.functions[0].values);
  CHECK(make_control(a, ArchControl::rough, -3, 3, 8).functions[0].values != r.functions[0].values);
}

TEST_CASE("a control of attention functions, or of no function, is refused") {
  ModelConfig c;
  c.vocab = 25;
  c.context = 4;
  c.width = 16;
  c.heads = 4;
  c.layers = 1;
  c.mlp_act = MlpAct::spline;
  c.attn = AttentionKind::score_spline;
  Transformer model(c);
  CHECK_THROWS_WITH_AS(make_control(architecture_of(model), ArchControl::gelu, -3, 3, 0),
                       doctest::Contains("MLP functions only"), Error);
  Architecture none;
  CHECK_THROWS_WITH_AS(make_control(none, ArchControl::gelu, -3, 3, 0),
                       doctest::Contains("learns no MLP function"), Error);
}
