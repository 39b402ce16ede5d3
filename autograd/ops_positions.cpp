// Rotary position embedding on the tape: a fixed rotation per position, so
// the backward is the inverse rotation of the output's gradient.
#include <cmath>

#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

// f[0] = base.
void rope_backward(const Node& n) {
  Tensor x = n.input(0), y = n.output();
  const Device dev = y.device();
  dispatch_float("rope backward", x.dtype(), [&]<typename T>() {
    if (T* dx = grad_for<T>(x))
      TAPIR_KERNEL(dev, rope_backward<T>, y.grad<T>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3),
                   n.f[0], dx);
  });
}
TAPIR_REGISTER_OP(kRope, "rope", rope_backward);

}  // namespace

Tensor rope(Tensor x, double base) {
  const char* op = "rope";
  check_defined(op, x, "input");
  TAPIR_CHECK(x.rank() == 4 && x.dim(3) % 2 == 0 && x.dim(3) > 0, op,
              ": input must be (B, T, G, D) with D even, got ", x.describe());
  TAPIR_CHECK(base > 1 && std::isfinite(base), op, ": base must be finite and above 1, got ", base);
  const Device dev = op_device(op, {x});
  Tensor y = empty(x.shape(), x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, rope_forward<T>, x.data<T>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), base,
                 y.data<T>());
  });
  if (needs_grad({x})) record(kRope, y, {x}).f[0] = base;
  return y;
}

}  // namespace tapir
