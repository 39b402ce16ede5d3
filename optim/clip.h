// Gradient norm and clipping over a list of Parameters, as used once per
// training step between backward() and the optimizer update.
#pragma once
#include <vector>

#include "nn/module.h"

namespace tapir {

// sqrt of the sum of squares of every non-frozen parameter's gradient
// (parameters without a gradient buffer count as zero). Summed in double in
// parameter order and in fixed blocks within a parameter, so the value does not
// depend on the thread count. NaN and inf in a gradient make the norm NaN or
// inf, which the caller can test with std::isfinite.
double global_grad_norm(const std::vector<Parameter*>& params);

// Returns the norm before clipping. When max_norm > 0 and norm > max_norm,
// multiplies every non-frozen gradient by max_norm / (norm + 1e-6), so the new
// norm is just under max_norm. max_norm <= 0 turns clipping off. A NaN norm
// clips nothing; an infinite one scales every gradient by 0 (inf entries
// become NaN), so check the returned norm before stepping.
double clip_grad_norm(const std::vector<Parameter*>& params, double max_norm);

}  // namespace tapir
