// A fixed polynomial as one differentiable op of its input: the `poly` MLP
// activation of nn/polynomial.h in one pass over the elements, instead of a
// tape node (and an activation tensor) per coefficient. With
// t = x * scale + shift, clamped to [-1, 1] when `clamp`,
//   y = sum_k c_k t^k   (Horner's rule),
// and dy/dx = scale * p'(t) where t was not clamped, 0 where it was. The
// coefficients are a constant input: they take no gradient. Kernels:
// engine/cpu/elementwise.cpp and engine/cuda/elementwise.cu.
#include <cmath>

#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

void poly_backward(const Node& n) {
  Tensor x = n.input(0), c = n.input(1), out = n.output();
  dispatch_float("poly backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(out.device(), poly_backward<T>, x.data<T>(), out.grad<T>(), x.numel(), c.data<T>(),
                 c.numel(), static_cast<T>(n.f[0]), static_cast<T>(n.f[1]), n.i[0] != 0,
                 grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kPoly, "poly", poly_backward);

}  // namespace

Tensor poly(Tensor x, Tensor coefficients, double scale, double shift, bool clamp) {
  const char* op = "poly";
  check_defined(op, x, "input");
  check_defined(op, coefficients, "coefficients");
  check_same_dtype(op, x, coefficients);
  TAPIR_CHECK(coefficients.rank() == 1 && coefficients.numel() >= 1, op,
              ": coefficients must be (D + 1) with D >= 0, got ", coefficients.describe());
  TAPIR_CHECK(!coefficients.requires_grad(), op,
              ": the coefficients are constants and take no gradient");
  TAPIR_CHECK(std::isfinite(scale) && std::isfinite(shift), op,
              ": scale and shift must be finite, got ", scale, " and ", shift);
  const Device dev = op_device(op, {x, coefficients});
  Tensor out = empty(x.shape(), x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, poly_forward<T>, x.data<T>(), x.numel(), coefficients.data<T>(),
                 coefficients.numel(), static_cast<T>(scale), static_cast<T>(shift), clamp,
                 out.data<T>());
  });
  if (needs_grad({x})) {
    Node& node = record(kPoly, out, {x, coefficients});
    node.f[0] = scale;
    node.f[1] = shift;
    node.i[0] = clamp ? 1 : 0;
  }
  return out;
}

}  // namespace tapir
