#include "nn/spline.h"

#include <cmath>

#include "autograd/ops.h"

namespace tapir {

namespace {

// "const:C" -> C; false if init is not of that form.
bool parse_const_init(const std::string& init, double& value) {
  if (init.rfind("const:", 0) != 0) return false;
  const std::string text = init.substr(6);
  size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(value);
}

}  // namespace

void SplineConfig::validate(const std::string& what) const {
  double c = 0;
  TAPIR_CHECK(init == "gelu" || init == "identity" || parse_const_init(init, c), "model: ", what,
              " init must be gelu, identity or const:C with C a number, got '", init, "'");
}

Json SplineConfig::to_json() const {
  Json j = Json::object();
  j.set("knots", grid.knots());
  j.set("lo", grid.lo());
  j.set("hi", grid.hi());
  j.set("extrapolate", extrapolation_name(grid.linear()));
  j.set("init", init);
  j.set("scope", name_of(scope));
  return j;
}

SplineConfig SplineConfig::from_json(const Json& j, const SplineConfig& defaults) {
  SplineConfig c = defaults;
  const auto number = [&](const char* key, double fallback) {
    const Json* v = j.find(key);
    return v ? v->as_double() : fallback;
  };
  const Json* knots = j.find("knots");
  const Json* extrapolate = j.find("extrapolate");
  c.grid = SplineGrid(knots ? knots->as_int() : c.grid.knots(), number("lo", c.grid.lo()),
                      number("hi", c.grid.hi()),
                      extrapolate ? parse_extrapolation(extrapolate->as_string()) : c.grid.linear());
  if (const Json* v = j.find("init")) c.init = v->as_string();
  if (const Json* v = j.find("scope")) c.scope = parse_name<SplineScope>(v->as_string());
  return c;
}

std::vector<double> spline_init_values(const SplineConfig& config) {
  std::vector<double> v(static_cast<size_t>(config.grid.knots()));
  double constant = 0;
  const bool is_const = parse_const_init(config.init, constant);
  for (int64_t k = 0; k < config.grid.knots(); ++k) {
    const double x = config.grid.knot(k);
    double y = x;  // identity
    if (is_const) y = constant;
    if (config.init == "gelu") y = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
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

Tensor Spline::forward(Tensor x) {
  TAPIR_CHECK(rows_ == 1, "a spline with ", rows_, " rows is not an elementwise activation");
  return spline(x, values_->tensor(), config_.grid);
}

}  // namespace tapir
