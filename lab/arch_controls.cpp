// Shape and scale controls of learned MLP functions (lab/arch_controls.h).
#include "lab/arch_controls.h"

#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "engine/rng.h"
#include "lab/arch_stats.h"

namespace tapir {

namespace {

// The first and last knots of `grid` inside [lo, hi]: at least 3.
std::pair<int64_t, int64_t> knots_inside(const SplineGrid& grid, double lo, double hi) {
  const auto [first, last] = knots_in_range(grid, lo, hi);
  TAPIR_CHECK(first >= 0 && last - first >= 2, "arch control: fewer than 3 knots of the grid (",
              grid.knots(), " on [", grid.lo(), ", ", grid.hi(), "]) in [", lo, ", ", hi, "]");
  return {first, last};
}

double mean_slope(const std::vector<double>& v, const SplineGrid& grid, int64_t first,
                  int64_t last) {
  return (v[size_t(last)] - v[size_t(first)]) / (grid.knot(last) - grid.knot(first));
}

// Sums over the second differences inside [first, last] of a + c b:
// mean(da^2), mean(da db), mean(db^2).
struct Curvature {
  double aa = 0, ab = 0, bb = 0;
};
Curvature curvature_terms(const std::vector<double>& a, const std::vector<double>& b, int64_t first,
                          int64_t last) {
  Curvature c;
  int64_t n = 0;
  for (int64_t k = first + 1; k < last; ++k) {
    const auto d2 = [k](const std::vector<double>& v) {
      return v[size_t(k - 1)] - 2.0 * v[size_t(k)] + v[size_t(k + 1)];
    };
    c.aa += d2(a) * d2(a);
    c.ab += d2(a) * d2(b);
    c.bb += d2(b) * d2(b);
    ++n;
  }
  c.aa /= double(n);
  c.ab /= double(n);
  c.bb /= double(n);
  return c;
}

}  // namespace

Architecture make_control(const Architecture& learned, ArchControl kind, double lo, double hi,
                          uint64_t seed) {
  TAPIR_CHECK(learned.mlp_learned, "arch control: the file learns no MLP function");
  TAPIR_CHECK(!learned.attn_fn_learned && learned.attn == AttentionKind::softmax,
              "arch control: the file learns attention functions too; controls are drawn for MLP "
              "functions only");
  SplineConfig gelu_spline = learned.mlp_spline;
  gelu_spline.init = "gelu";
  const std::vector<double> gelu = spline_init_values(gelu_spline);
  const SplineGrid& grid = learned.mlp_spline.grid;
  const auto [first, last] = knots_inside(grid, lo, hi);
  Rng rng(seed, 0);
  Architecture out = learned;
  for (Architecture::Function& f : out.functions) {
    TAPIR_CHECK(f.slot == "mlp" && f.rows == 1, "arch control: function ", f.name,
                " is not an MLP function of one row");
    const std::vector<double> v(f.values.begin(), f.values.end());
    std::vector<double> control = gelu;
    if (kind == ArchControl::scaled_gelu) {
      const double s = mean_slope(v, grid, first, last) / mean_slope(gelu, grid, first, last);
      for (double& x : control) x *= s;
    } else if (kind == ArchControl::rough) {
      // c >= 0 with mean((dg + c dn)^2) = mean(dv^2): the learned curvature.
      std::vector<double> noise(gelu.size());
      for (double& x : noise) x = rng.normal();
      const Curvature g = curvature_terms(gelu, noise, first, last);
      const double target = curvature_terms(v, v, first, last).aa;
      const double disc = g.ab * g.ab - g.bb * (g.aa - target);
      const double c = target <= g.aa ? 0.0 : (-g.ab + std::sqrt(std::max(0.0, disc))) / g.bb;
      for (size_t k = 0; k < control.size(); ++k) control[k] += c * noise[k];
    }
    for (size_t k = 0; k < control.size(); ++k) f.values[k] = static_cast<float>(control[k]);
  }
  return out;
}

std::string write_control(const std::string& file, ArchControl kind, double lo, double hi,
                          uint64_t seed, const std::string& out) {
  const Architecture learned = load_architecture(file);
  const Architecture control = make_control(learned, kind, lo, hi, seed);
  save_architecture(out, control);
  const auto mean_curvature = [lo, hi](const Architecture& a) {
    double sum = 0;
    const std::vector<FunctionRoughness> r = arch_roughness(a, lo, hi);
    for (const FunctionRoughness& f : r) sum += f.curvature_rms;
    return sum / double(r.size());
  };
  char text[160];
  std::snprintf(text, sizeof text, " (mean curvature on [%g, %g]: %.4g learned, %.4g control)", lo,
                hi, mean_curvature(learned), mean_curvature(control));
  return "wrote " + out + ": the " + name_of(kind) + " control of " + file + text;
}

}  // namespace tapir
