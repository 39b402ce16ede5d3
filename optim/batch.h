// A task's host batch on its way into the model: the tokens (or frames),
// targets and mask of tasks/task.h copied into step-arena tensors on the
// model's device. Above the engine and the tasks; used by the training loop,
// the evaluator, the search and `tapir dump`.
#pragma once
#include "engine/device.h"
#include "engine/tensor.h"
#include "tasks/task.h"

namespace tapir {

// Copies a host batch into step-arena tensors on `device` (uploaded when it is
// cuda): inputs and targets (B, T) i32 for a token task, (B, T, n) f32
// frames for a regression task; mask (B, T) f32.
struct BatchTensors {
  Tensor inputs, targets, mask;
};
BatchTensors to_tensors(const Batch& batch, Device device = Device::cpu);

}  // namespace tapir
