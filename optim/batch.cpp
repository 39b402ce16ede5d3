// Host batches into device tensors (optim/batch.h).
#include "optim/batch.h"

namespace tapir {

BatchTensors to_tensors(const Batch& batch, Device device) {
  BatchTensors t;
  if (batch.n > 0) {
    t.inputs = empty(Shape{batch.B, batch.T, batch.n}, DType::f32, device);
    t.targets = empty(Shape{batch.B, batch.T, batch.n}, DType::f32, device);
    write_bytes(t.inputs, batch.inputs.data());
    write_bytes(t.targets, batch.values.data());
  } else {
    t.inputs = empty(Shape{batch.B, batch.T}, DType::i32, device);
    t.targets = empty(Shape{batch.B, batch.T}, DType::i32, device);
    write_bytes(t.inputs, batch.tokens.data());
    write_bytes(t.targets, batch.targets.data());
  }
  t.mask = empty(Shape{batch.B, batch.T}, DType::f32, device);
  write_bytes(t.mask, batch.mask.data());
  return t;
}

}  // namespace tapir
