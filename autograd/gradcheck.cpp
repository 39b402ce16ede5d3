#include "autograd/gradcheck.h"

#include <cmath>
#include <sstream>

#include "autograd/ops.h"
#include "engine/rng.h"

namespace tapir {

namespace {

double weighted_sum(const GradcheckFn& f, const std::vector<Tensor>& inputs, Tensor weights) {
  NoGrad no_grad;
  Tensor y = f(inputs);
  const double* py = y.host_data<double>();
  const double* pw = weights.host_data<double>();
  double total = 0;
  for (int64_t i = 0, n = y.numel(); i < n; ++i) total += py[i] * pw[i];
  return total;
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& f, const std::vector<Tensor>& inputs, double eps,
                          uint64_t seed) {
  for (const Tensor& x : inputs)
    TAPIR_CHECK(x.dtype() != DType::f32, "gradcheck: inputs must be f64 (or i32), got ",
                x.describe());

  // Analytic gradients from the tape.
  for (const Tensor& x : inputs)
    if (x.requires_grad()) x.impl()->grad = nullptr;
  Tensor y = f(inputs);
  TAPIR_CHECK(y.dtype() == DType::f64, "gradcheck: output must be f64, got ", y.describe());
  Tensor weights = empty(y.shape(), DType::f64);
  Rng rng(seed, 0);
  rng.fill_uniform<double>(weights.host_data<double>(), weights.numel(), -1.0, 1.0);
  backward(sum_all(mul(y, weights)));

  GradcheckResult result;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor x = inputs[k];
    if (!x.requires_grad()) continue;
    TAPIR_CHECK(x.has_grad(), "gradcheck: no gradient reached input ", k);
    double* px = x.host_data<double>();
    const double* analytic = x.host_grad<double>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      const double saved = px[i];
      px[i] = saved + eps;
      const double plus = weighted_sum(f, inputs, weights);
      px[i] = saved - eps;
      const double minus = weighted_sum(f, inputs, weights);
      px[i] = saved;
      const double numeric = (plus - minus) / (2 * eps);
      const double scale = std::max({1.0, std::fabs(analytic[i]), std::fabs(numeric)});
      const double error = std::fabs(analytic[i] - numeric) / scale;
      ++result.checked;
      if (!(error <= result.max_error)) {  // also catches NaN
        result.max_error = std::isnan(error) ? INFINITY : error;
        std::ostringstream what;
        what << "input " << k << " element " << i << ": analytic " << analytic[i] << " numeric "
             << numeric;
        result.worst = what.str();
      }
    }
  }
  return result;
}

}  // namespace tapir
