// The linear spline as a differentiable op of its input and its knot values
// (the learned activation of nn/spline.h). Kernels: engine/cpu/spline.cpp.
#include "autograd/dispatch.h"
#include "autograd/ops.h"
#include "engine/cpu/kernels.h"

namespace tapir {

namespace {

// f[0] = lo, f[1] = hi, i[0] = linear extrapolation.
void spline_backward(const Node& n) {
  Tensor x = n.input(0), values = n.input(1), out = n.output();
  const cpu::SplineGrid grid{values.numel(), n.f[0], n.f[1], n.i[0] != 0};
  const Device dev = out.device();
  dispatch_float("spline backward", x.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, spline_backward<F>, x.data<F>(), x.numel(), values.data<F>(), grid,
                 out.grad<F>(), grad_for<F>(x), grad_for<F>(values));
  });
}
TAPIR_REGISTER_OP(kSpline, "spline", spline_backward);

}  // namespace

Tensor spline(Tensor x, Tensor values, double lo, double hi, bool linear_extrapolation) {
  const char* op = "spline";
  check_defined(op, x, "input");
  const cpu::SplineGrid grid = spline_grid(op, values, lo, hi, linear_extrapolation);
  check_same_dtype(op, x, values);
  TAPIR_CHECK(values.rank() == 1, op, ": values must be (K), got ", values.describe());
  const Device dev = op_device(op, {x, values});
  Tensor out = empty(x.shape(), x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, spline_forward<F>, x.data<F>(), x.numel(), values.data<F>(), grid,
                 out.data<F>());
  });
  if (needs_grad({x, values})) {
    Node& node = record(kSpline, out, {x, values});
    node.f[0] = lo;
    node.f[1] = hi;
    node.i[0] = linear_extrapolation ? 1 : 0;
  }
  return out;
}

}  // namespace tapir
