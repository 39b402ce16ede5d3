// The engine self-check: a 2-layer MLP built from tapir ops and trained with
// plain SGD through the tape on a 1-D regression problem. It proves that the
// tensors, kernels, tape and backward fit together end to end.
// Sits in lab/, on autograd/; the command is tools/cmd_selfcheck.cpp.
#pragma once
#include <cstdint>
#include <functional>

namespace tapir {

struct SelfcheckResult {
  double initial_loss = 0;
  double final_loss = 0;
  int steps = 0;
};

// Fits y = sin(3x) on 64 points of [-1, 1] with a 1-32-1 tanh MLP, full
// batch, SGD with learning rate 0.1, mean squared error. `progress` (if set)
// is called every 500 steps with (step, loss).
SelfcheckResult run_selfcheck(int steps = 3000, uint64_t seed = 1,
                              const std::function<void(int, double)>& progress = {});

}  // namespace tapir
