// Figures of learned functions (report/arch_plot.h).
#include "report/arch_plot.h"

#include <algorithm>
#include <cmath>

namespace tapir {

namespace {
std::string function_title(const Architecture& arch, const Architecture::Function& f) {
  std::string title = f.layer < 0 ? "shared" : "layer ";
  if (f.layer >= 0) title += std::to_string(f.layer);
  if (f.slot == "mlp") {
    title += ", MLP activation";
  } else if (f.slot == "attn_fn") {
    title += ", attention input function f";
  } else {
    title += arch.attn == AttentionKind::score_spline ? ", score kernel g(s)"
                                                      : ", feature map g (phi = softplus(g))";
  }
  return title;
}
}  // namespace

SvgPanel function_panel(const Architecture& arch, const Architecture::Function& f,
                        const UsedRange* used) {
  const SplineConfig& s = arch.spline_of(f);
  // The x range drawn: the knots', or the used range widened by half its
  // width each side, within the knots.
  double x_lo = s.grid.lo(), x_hi = s.grid.hi();
  if (used) {
    const double pad = 0.5 * (used->hi - used->lo);
    x_lo = std::max(x_lo, used->lo - pad);
    x_hi = std::min(x_hi, used->hi + pad);
  }
  SvgPanel panel;
  panel.title = function_title(arch, f);
  const bool mlp = f.slot == "mlp";
  const bool input_fn = f.slot == "attn_fn";
  panel.x_label =
      mlp || input_fn
          ? (mlp ? "x" : "a n + b")
          : (arch.attn == AttentionKind::score_spline ? "score s" : "query or key element");
  panel.y_label = mlp ? "activation" : (input_fn ? "f" : "g");
  // A linear spline is exactly the polyline through its knots: the knots
  // inside [x_lo, x_hi] and the spline's values at both ends.
  const int64_t knots = s.grid.knots();
  double y_lo = 0, y_hi = 0;
  bool any = false;
  for (int64_t r = 0; r < f.rows; ++r) {
    const float* row = f.values.data() + r * knots;
    const auto value_at = [&](double x) {
      const double t = (x - s.grid.lo()) / (s.grid.hi() - s.grid.lo()) * double(knots - 1);
      const int64_t k = std::clamp<int64_t>(static_cast<int64_t>(std::floor(t)), 0, knots - 2);
      const double w = t - double(k);
      return double(row[k]) * (1 - w) + double(row[k + 1]) * w;
    };
    SvgSeries line;
    line.label = f.rows == 1 ? "learned" : "head ";
    if (f.rows > 1) line.label += std::to_string(r);
    const auto add = [&](double x, double y) {
      line.x.push_back(x);
      line.y.push_back(y);
      y_lo = any ? std::min(y_lo, y) : y;
      y_hi = any ? std::max(y_hi, y) : y;
      any = true;
    };
    if (s.grid.knot(0) < x_lo) add(x_lo, value_at(x_lo));
    for (int64_t k = 0; k < knots; ++k)
      if (s.grid.knot(k) >= x_lo && s.grid.knot(k) <= x_hi) add(s.grid.knot(k), row[k]);
    if (s.grid.knot(knots - 1) > x_hi) add(x_hi, value_at(x_hi));
    panel.series.push_back(std::move(line));
  }
  SvgSeries ref;
  ref.label = mlp ? "GeLU" : "identity";
  ref.color = "#888888";
  ref.dashed = true;
  const int n = mlp ? 400 : 2;
  for (int i = 0; i < n; ++i) {
    const double x = x_lo + (x_hi - x_lo) * i / (n - 1);
    ref.x.push_back(x);
    ref.y.push_back(mlp ? 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))) : x);
  }
  panel.series.push_back(std::move(ref));
  if (used && any) {
    // The used inputs, a band over the learned curve's height.
    SvgSeries band;
    band.label = used->label;
    band.color = "#56B4E9";
    band.x = {used->lo, used->hi};
    band.y = {std::nan(""), std::nan("")};
    band.band_lo = {y_lo, y_lo};
    band.band_hi = {y_hi, y_hi};
    panel.series.push_back(std::move(band));
  }
  return panel;
}

std::string architecture_svg(const Architecture& arch, const std::string& title,
                             const std::map<std::string, UsedRange>& used) {
  std::vector<SvgPanel> panels;
  for (const Architecture::Function& f : arch.functions) {
    const auto it = used.find(f.name);
    panels.push_back(function_panel(arch, f, it == used.end() ? nullptr : &it->second));
  }
  SvgLayout layout;
  const int slots =
      int(arch.mlp_learned) + int(arch.attn != AttentionKind::softmax) + int(arch.attn_fn_learned);
  layout.columns = slots > 1 ? slots : 3;
  return svg_figure(title, panels, layout);
}

}  // namespace tapir
