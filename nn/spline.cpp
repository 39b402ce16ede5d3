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
  TAPIR_CHECK(knots >= 2 && knots <= 100000, "model: ", what, " knots must be in [2, 100000], got ",
              knots);
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi, "model: ", what,
              " range must be finite with lo < hi, got ", lo, ",", hi);
  TAPIR_CHECK(extrapolate == "linear" || extrapolate == "constant", "model: ", what,
              " extrapolation must be linear or constant, got '", extrapolate, "'");
  double c = 0;
  TAPIR_CHECK(init == "gelu" || init == "identity" || parse_const_init(init, c), "model: ", what,
              " init must be gelu, identity or const:C with C a number, got '", init, "'");
  TAPIR_CHECK(scope == "layer" || scope == "shared", "model: ", what,
              " scope must be layer or shared, got '", scope, "'");
}

Json SplineConfig::to_json() const {
  Json j = Json::object();
  j.set("knots", knots);
  j.set("lo", lo);
  j.set("hi", hi);
  j.set("extrapolate", extrapolate);
  j.set("init", init);
  j.set("scope", scope);
  return j;
}

SplineConfig SplineConfig::from_json(const Json& j, const SplineConfig& defaults) {
  SplineConfig c = defaults;
  if (const Json* v = j.find("knots")) c.knots = v->as_int();
  if (const Json* v = j.find("lo")) c.lo = v->as_double();
  if (const Json* v = j.find("hi")) c.hi = v->as_double();
  if (const Json* v = j.find("extrapolate")) c.extrapolate = v->as_string();
  if (const Json* v = j.find("init")) c.init = v->as_string();
  if (const Json* v = j.find("scope")) c.scope = v->as_string();
  return c;
}

std::vector<double> spline_init_values(const SplineConfig& config) {
  std::vector<double> v(static_cast<size_t>(config.knots));
  double constant = 0;
  const bool is_const = parse_const_init(config.init, constant);
  for (int64_t k = 0; k < config.knots; ++k) {
    const double x = config.knot(k);
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
  const Shape shape = rows == 1 ? Shape{config.knots} : Shape{rows, config.knots};
  values_ = &add_parameter("values", shape, /*decay=*/false);
  reset();
}

void Spline::reset() {
  const std::vector<double> v = spline_init_values(config_);
  float* out = values_->tensor().host_data<float>();
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t k = 0; k < config_.knots; ++k)
      out[r * config_.knots + k] = static_cast<float>(v[static_cast<size_t>(k)]);
}

Tensor Spline::forward(Tensor x) {
  TAPIR_CHECK(rows_ == 1, "a spline with ", rows_, " rows is not an elementwise activation");
  return spline(x, values_->tensor(), config_.lo, config_.hi, config_.linear());
}

}  // namespace tapir
