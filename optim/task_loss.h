// A task's loss: the differentiable loss of a batch that training minimises,
// and the per-position losses that evaluation scores. Above autograd and the
// tasks; used by the training loop, the constrained trainer, the search, the
// evaluator and `tapir dump`.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/tensor.h"
#include "tasks/task.h"

namespace tapir {

// The task loss of a batch: the masked mean cross-entropy of logits (B, T, V)
// against i32 targets (B, T), or for f32 targets (B, T, n) the mean squared
// error sum(mask * |y - t|^2) / (n * sum(mask)).
Tensor task_loss(Tensor outputs, Tensor targets, Tensor mask);

// Per-position cross-entropy of logits (B*T, V) against targets, written to
// losses (B*T); positions with mask 0 get 0. Used by evaluation and `dump`.
void position_losses(const float* logits, const int32_t* targets, const float* mask, int64_t rows,
                     int64_t V, float* losses);
// The per-position losses (B*T) of a batch given the model's outputs: the
// cross-entropy for a token task, the mean squared error over the n values
// for a regression task; 0 where the mask is 0.
void batch_position_losses(const Task& task, const Batch& batch, const float* outputs,
                           std::vector<float>& losses);

}  // namespace tapir
