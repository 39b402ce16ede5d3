// A learned function exported as a polynomial (`tapir arch fit-poly`): a
// least-squares fit of a spline over the range its inputs visit, usable in
// place of the spline as a fixed MLP activation (`--mlp-poly FILE`). The
// input is first mapped onto [-1, 1] over the fitted range,
//   t = (2 x - lo - hi) / (hi - lo),   p(x) = sum_k c_k t^k,
// so the coefficients stay well scaled whatever the range. Outside [lo, hi]
// a clamped polynomial (what fit-poly writes) is constant, p(x) = p(lo) or
// p(hi), as a spline with constant extrapolation; an unclamped one (a poly
// file written before the clamp existed) is evaluated as it is. It is exact
// only where it was fitted. docs/nonlinearities.md gives the file format.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json.h"
#include "engine/kernel_types.h"
#include "nn/layers.h"

namespace tapir {

struct PolyFunction {
  int64_t layer = -1;                // the block it serves; -1: every block
  double lo = -1, hi = 1;            // the fitted range
  std::vector<double> coefficients;  // c_0 .. c_D, in powers of t
  bool clamp = false;                // t clamped onto [-1, 1]: constant outside [lo, hi]

  int64_t degree() const { return static_cast<int64_t>(coefficients.size()) - 1; }
  double operator()(double x) const;  // Horner's rule in t, clamped when `clamp`
  // One-line error naming `what` and the bad field.
  void validate(const std::string& what) const;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("layer", c.layer);
    f.required("lo", c.lo);
    f.required("hi", c.hi);
    f.required("coefficients", c.coefficients);
    f.optional("clamp", c.clamp);  // absent in files written before it: no clamp
  }
};

// A fixed (parameter-free) polynomial activation: one `poly` op
// (autograd/ops_poly.cpp) with the coefficients as a constant buffer on the
// model's device.
class Polynomial final : public Activation {
 public:
  explicit Polynomial(PolyFunction f);
  Tensor forward(Tensor x) override;
  std::string kind() const override { return "poly"; }
  const PolyFunction& function() const { return f_; }

 private:
  void move_buffers(Device device) override;

  PolyFunction f_;
  HeapTensor coefficients_;  // (D + 1) f32
};

// How closely a polynomial follows a spline over its fitted range (on the
// fit points of fit_polynomial, below): the largest and the root-mean-square
// difference.
struct FitError {
  double max_abs = 0, rms = 0;
};

// A poly file (`tapir arch fit-poly`, JSON): the polynomials fitted to an
// architecture file's MLP functions, with where each range came from and
// the fit's error over it.
struct FittedPoly {
  std::string name;  // the spline's parameter name in the architecture file
  PolyFunction poly;
  std::string range_from;  // how [lo, hi] was found ("run DIR, 16 batches of train", "--range")
  FitError error;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("name", c.name);
    PolyFunction::fields(c.poly, f);
    f.required("range_from", c.range_from);
    f.required("max_abs_error", c.error.max_abs);
    f.required("rms_error", c.error.rms);
  }
};
struct PolyFile {
  static constexpr const char* kFormat = "tapir.poly.v1";
  std::string format = kFormat;
  std::string source;  // the architecture file
  int64_t degree = 0;
  std::vector<FittedPoly> functions;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("format", c.format);
    f.required("source", c.source);
    f.required("degree", c.degree);
    f.required("functions", c.functions);
  }
};
void save_poly_file(const std::string& path, const PolyFile& file);  // atomically
// Checked whole: format, every polynomial valid, one for every block or one
// per block in order. Errors name the file.
PolyFile load_poly_file(const std::string& path);
// The file's polynomials as a model's mlp_poly.
std::vector<PolyFunction> poly_functions(const PolyFile& file);

// The fit points: kPolyFitPoints evenly spaced inputs of [lo, hi].
constexpr int kPolyFitPoints = 2001;

// The degree-`degree` polynomial closest in least squares to the spline
// (`values` on `grid`) on the fit points of [lo, hi], clamped to that range,
// with its error there. `weights` (empty: all 1) weighs the fit points, e.g.
// by how many of a run's inputs fell near each (fit-poly --run): the error
// is then the weighted rms and the largest error where the weight is not 0.
// Fails unless lo < hi, 0 <= degree <= 20 and the weights are kPolyFitPoints
// finite values >= 0, not all 0.
PolyFunction fit_polynomial(const std::vector<float>& values, const SplineGrid& grid, double lo,
                            double hi, int degree, FitError* error = nullptr,
                            const std::vector<double>& weights = {});

}  // namespace tapir
