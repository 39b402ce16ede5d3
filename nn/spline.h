// The learned nonlinearity: a 1-D linear spline with its knot values as a
// parameter (see docs/nonlinearities.md). It is an Activation, so it can
// replace GeLU in the MLP, and it also serves as the learned function of the
// attention kernels (nn/transformer.h passes its values to the attention op).
#pragma once
#include <string>
#include <vector>

#include "engine/json.h"
#include "nn/layers.h"

namespace tapir {

// A spline's grid, extrapolation, initial values and placement.
struct SplineConfig {
  int64_t knots = 121;
  double lo = -20.0, hi = 20.0;
  std::string extrapolate = "linear";  // linear | constant
  std::string init = "gelu";           // gelu | identity | const:C
  std::string scope = "layer";         // layer (one per block) | shared (one for all blocks)

  bool linear() const { return extrapolate == "linear"; }
  double knot(int64_t k) const { return lo + double(k) * (hi - lo) / double(knots - 1); }
  // One-line error naming `what` (e.g. "MLP spline") and the bad field.
  void validate(const std::string& what) const;
  Json to_json() const;
  // Missing fields keep the values of `defaults` (configs written before a
  // field existed still load).
  static SplineConfig from_json(const Json& j, const SplineConfig& defaults);
};

// The knot values of an init: the exact GeLU, the identity, or a constant.
std::vector<double> spline_init_values(const SplineConfig& config);

class Spline final : public Activation {
 public:
  // rows > 1 holds one spline per row (per attention head): values (rows, K).
  explicit Spline(const SplineConfig& config, int64_t rows = 1);
  Tensor forward(Tensor x) override;  // elementwise; needs rows == 1
  std::string kind() const override { return "spline"; }

  Parameter& values() { return *values_; }
  const SplineConfig& config() const { return config_; }
  int64_t rows() const { return rows_; }
  // Sets every row's values from the config's init.
  void reset();

 private:
  SplineConfig config_;
  int64_t rows_;
  Parameter* values_;
};

}  // namespace tapir
