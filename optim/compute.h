// The compute a run or a Stage I search spends on training, in model FLOPs
// (nn/transformer.h: 6 N + 12 L T C per token for a step with weight
// gradients, 4 N + 12 L T C for a search's D_arch pass), over the tokens of
// its batches as the task lays them out (padding included). What a
// comparison reports beside each verdict (lab/compare.h), so that a
// method's search and a baseline's tuning are counted on one scale.
// Evaluations are not counted. Above the tasks and nn; below lab/.
#pragma once
#include <cstdint>

#include "optim/search_config.h"
#include "optim/train_config.h"

namespace tapir {

// Model FLOPs of one training step of `config`: batch x T tokens of the
// train split (T: its batches' length), at model_flops_per_token.
double training_step_flops(const TrainConfig& config);
// `steps` training steps of `config`.
double training_flops(const TrainConfig& config, int64_t steps);

// A whole Stage I search of `config`: every model's steps (model m from its
// first start to the end, optim/model_pool.h), each a training step on a
// D_wts batch and a D_arch pass (forward and the inputs' gradients) on an
// arch batch.
double search_flops(const SearchConfig& config);

}  // namespace tapir
