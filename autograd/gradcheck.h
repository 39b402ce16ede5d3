// Finite-difference gradient checks. The function under test maps f64 inputs
// to a tensor y; the check differentiates the scalar L = sum(y * w) for fixed
// random weights w (so every output element matters, with a distinct weight)
// and compares the tape's gradient of every input that requires one with the
// central difference (L(x + eps) - L(x - eps)) / (2 eps), element by element.
//
// The error of one element is |analytic - numeric| / max(1, |analytic|,
// |numeric|): relative for large gradients, absolute for small ones.
//
// The check allocates in the step arena and does not reset it; call
// reset_step() between checks.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/tensor.h"

namespace tapir {

struct GradcheckResult {
  double max_error = 0;  // worst element error, as defined above
  std::string worst;     // "input 1 element 7: analytic 0.31 numeric 0.30"
  int64_t checked = 0;   // number of elements compared
};

using GradcheckFn = std::function<Tensor(const std::vector<Tensor>&)>;

GradcheckResult gradcheck(const GradcheckFn& f, const std::vector<Tensor>& inputs,
                          double eps = 1e-6, uint64_t seed = 1234);

}  // namespace tapir
