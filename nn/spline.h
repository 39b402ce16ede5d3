// The learned nonlinearity: a 1-D linear spline with its knot values as a
// parameter (see docs/nonlinearities.md). It is an Activation, so it can
// replace GeLU in the MLP, and it also serves as the learned function of the
// attention kernels (nn/transformer.h passes its values to the attention op).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/names.h"
#include "engine/kernel_types.h"
#include "nn/layers.h"

namespace tapir {

// Where a model.s spline lives: one per block, or one for all blocks.
enum class SplineScope { layer, shared };
template <>
struct Names<SplineScope> {
  static constexpr const char* what = "spline scope";
  static constexpr std::pair<SplineScope, const char*> table[] = {{SplineScope::layer, "layer"},
                                                                  {SplineScope::shared, "shared"}};
};

// How a spline's values start: the exact GeLU, the identity, or a constant
// C, spelled "gelu", "identity" and "const:C".
enum class SplineInitKind { gelu, identity, constant };
template <>
struct Names<SplineInitKind> {
  static constexpr const char* what = "spline init";
  static constexpr std::pair<SplineInitKind, const char*> table[] = {
      {SplineInitKind::gelu, "gelu"},
      {SplineInitKind::identity, "identity"},
      {SplineInitKind::constant, "const"}};
};
struct SplineInit {
  SplineInitKind kind = SplineInitKind::gelu;
  double constant = 0;  // kind == constant: the value C
};
// "gelu", "identity" or "const:C" with C a finite number; anything else fails
// with one line (Names' message for an unknown word).
SplineInit parse_spline_init(std::string_view text);

// A spline.s grid (knots, range, extrapolation: valid by construction),
// initial values and placement.
struct SplineConfig {
  SplineGrid grid{121, -20.0, 20.0, true};
  std::string init = "gelu";  // as spelled: what parse_spline_init reads
  SplineScope scope = SplineScope::layer;

  // One-line error naming `what` (e.g. "MLP spline") and the bad init.
  void validate(const std::string& what) const;
  Json to_json() const;
  // Missing fields keep the values of `defaults` (configs written before a
  // field existed still load).
  static SplineConfig from_json(const Json& j, const SplineConfig& defaults);
  // The JSON fields, in the order written (base/json_fields.h); all optional.
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.optional_grid(c.grid);  // knots, lo, hi, extrapolate
    f.optional("init", c.init);
    f.optional("scope", c.scope);
  }
};

// The knot values of an init: the exact GeLU, the identity, or a constant.
std::vector<double> spline_init_values(const SplineConfig& config);

// Where a watched function's inputs went: their least and greatest value and,
// when bins are set, how many fell in each of `counts.size()` equal bins of
// [bin_lo, bin_hi] (inputs outside it are not binned).
struct InputRecord {
  double lo = 1, hi = 0;  // empty until an input is seen
  double bin_lo = 0, bin_hi = 0;
  std::vector<double> counts;  // empty: no histogram
  bool any() const { return lo <= hi; }
  void add(double v);
};

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
  // While a record is set (none by default), forward() adds every input it
  // sees to it: where a function's inputs go (fit-poly). Null stops.
  void watch_inputs(InputRecord* record) { record_ = record; }

 private:
  SplineConfig config_;
  int64_t rows_;
  Parameter* values_;
  InputRecord* record_ = nullptr;
};

}  // namespace tapir
