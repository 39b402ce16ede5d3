#include "nn/spline.h"

#include <algorithm>
#include <cmath>

#include "autograd/ops.h"
#include "base/json_fields.h"
#include "base/parse.h"

namespace tapir {

SplineInit parse_spline_init(std::string_view text) {
  const size_t colon = text.find(':');
  SplineInit init;
  init.kind = parse_name<SplineInitKind>(text.substr(0, colon));
  const bool constant = init.kind == SplineInitKind::constant;
  TAPIR_CHECK((colon != std::string_view::npos) == constant, "spline init '", text,
              "': only const takes a value, as const:C with C a number");
  if (constant) {
    try {
      init.constant = parse_double(text.substr(colon + 1), "init");
    } catch (const Error&) {
      fail("spline init '", text, "': const:C needs C a finite number");
    }
  }
  return init;
}

void SplineConfig::validate(const std::string& what) const {
  try {
    parse_spline_init(init);
  } catch (const Error& e) {
    fail("model: ", what, ": ", e.what());
  }
}

Json SplineConfig::to_json() const {
  return fields_to_json(*this);
}

SplineConfig SplineConfig::from_json(const Json& j, const SplineConfig& defaults) {
  SplineConfig c = defaults;
  fields_from_json(j, c);
  return c;
}

std::vector<double> spline_init_values(const SplineConfig& config) {
  std::vector<double> v(static_cast<size_t>(config.grid.knots()));
  const SplineInit init = parse_spline_init(config.init);
  for (int64_t k = 0; k < config.grid.knots(); ++k) {
    const double x = config.grid.knot(k);
    double y = x;
    switch (init.kind) {
      case SplineInitKind::gelu:
        y = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        break;
      case SplineInitKind::identity:
        break;
      case SplineInitKind::constant:
        y = init.constant;
        break;
    }
    v[static_cast<size_t>(k)] = y;
  }
  return v;
}

Spline::Spline(const SplineConfig& config, int64_t rows) : config_(config), rows_(rows) {
  config_.validate("spline");
  TAPIR_CHECK(rows >= 1, "spline rows must be at least 1, got ", rows);
  const Shape shape = rows == 1 ? Shape{config.grid.knots()} : Shape{rows, config.grid.knots()};
  values_ = &add_parameter("values", shape, /*decay=*/false);
  reset();
}

void Spline::reset() {
  const std::vector<double> v = spline_init_values(config_);
  float* out = values_->tensor().host_data<float>();
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t k = 0; k < config_.grid.knots(); ++k)
      out[r * config_.grid.knots() + k] = static_cast<float>(v[static_cast<size_t>(k)]);
}

void InputRecord::add(double v) {
  if (!any()) lo = hi = v;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
  if (counts.empty() || v < bin_lo || v > bin_hi) return;
  const auto bins = static_cast<int64_t>(counts.size());
  const auto k = static_cast<int64_t>((v - bin_lo) / (bin_hi - bin_lo) * double(bins));
  counts[static_cast<size_t>(std::min(k, bins - 1))] += 1;
}

Tensor Spline::forward(Tensor x) {
  TAPIR_CHECK(rows_ == 1, "a spline with ", rows_, " rows is not an elementwise activation");
  if (record_) {
    const Tensor h = to_host(x);
    for (int64_t i = 0; i < h.numel(); ++i)
      record_->add(h.dtype() == DType::f32 ? double(h.host_data<float>()[i])
                                           : h.host_data<double>()[i]);
  }
  return spline(x, values_->tensor(), config_.grid);
}

}  // namespace tapir
