// Data-parallel training: `mpirun -np N tapir train` (docs/distributed.md).
// Every rank draws the whole batch from the same sampler (the same seed
// gives every rank the same batch), keeps its own rows, and runs forward and
// backward on them. Its gradient, times its share of the batch's masked
// positions, is summed over the ranks in rank order (engine/dist.h), which
// gives every rank the gradient of the whole batch's mean loss, bit for bit
// the same on every rank; the optimizer step that follows is then the same
// everywhere, so the ranks' parameters never drift apart. Against one
// process with the same batch the sums run in another order: the losses
// agree to rounding (tests/distributed_commands.sh checks 1e-5 over 50
// steps), not bit for bit. The evaluations are shared among the ranks by
// the evaluator (optim/evaluator.h), with the bits of one process.
#pragma once
#include <vector>

#include "nn/module.h"
#include "tasks/task.h"

namespace tapir {

// This rank's rows of `whole` into `mine`: rank r of N gets the r-th of N
// blocks of rows whose sizes differ by at most one (the first ones larger).
// Returns this rank's share of the batch's loss weight: its mask sum over
// the whole batch's (the task losses are means over masked positions).
double take_rank_rows(const Batch& whole, Batch& mine);

// Scales each parameter's gradient by `share`, then sums the ranks'
// gradients and their share * loss in rank order; every rank gets the sums.
// Returns the whole batch's loss. On cuda the sum goes through NCCL
// (engine/cuda/runtime.h): the same on every rank, in NCCL's order.
double sum_over_ranks(const std::vector<Parameter*>& params, double share, double loss);

}  // namespace tapir
