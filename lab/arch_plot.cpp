// Figures of learned functions (lab/arch_plot.h).
#include "lab/arch_plot.h"

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

SvgPanel function_panel(const Architecture& arch, const Architecture::Function& f) {
  const SplineConfig& s = arch.spline_of(f);
  SvgPanel panel;
  panel.title = function_title(arch, f);
  const bool mlp = f.slot == "mlp";
  const bool input_fn = f.slot == "attn_fn";
  panel.x_label =
      mlp || input_fn
          ? (mlp ? "x" : "a n + b")
          : (arch.attn == AttentionKind::score_spline ? "score s" : "query or key element");
  panel.y_label = mlp ? "activation" : (input_fn ? "f" : "g");
  // A linear spline is exactly the polyline through its knots.
  for (int64_t r = 0; r < f.rows; ++r) {
    SvgSeries line;
    line.label = f.rows == 1 ? "learned" : "head ";
    if (f.rows > 1) line.label += std::to_string(r);
    for (int64_t k = 0; k < s.grid.knots(); ++k) {
      line.x.push_back(s.grid.knot(k));
      line.y.push_back(f.values[static_cast<size_t>(r * s.grid.knots() + k)]);
    }
    panel.series.push_back(std::move(line));
  }
  SvgSeries ref;
  ref.label = mlp ? "GeLU" : "identity";
  ref.color = "#888888";
  ref.dashed = true;
  const int n = mlp ? 400 : 2;
  for (int i = 0; i < n; ++i) {
    const double x = s.grid.lo() + (s.grid.hi() - s.grid.lo()) * i / (n - 1);
    ref.x.push_back(x);
    ref.y.push_back(mlp ? 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))) : x);
  }
  panel.series.push_back(std::move(ref));
  return panel;
}

std::string architecture_svg(const Architecture& arch, const std::string& title) {
  std::vector<SvgPanel> panels;
  for (const Architecture::Function& f : arch.functions) panels.push_back(function_panel(arch, f));
  SvgLayout layout;
  const int slots =
      int(arch.mlp_learned) + int(arch.attn != AttentionKind::softmax) + int(arch.attn_fn_learned);
  layout.columns = slots > 1 ? slots : 3;
  return svg_figure(title, panels, layout);
}

}  // namespace tapir
