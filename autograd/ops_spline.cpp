// The linear spline as a differentiable op of its input and its knot values
// (the learned activation of nn/spline.h). Kernels: engine/cpu/spline.cpp
// and engine/cuda/spline.cu.
#include "autograd/op_checks.h"
#include "autograd/ops.h"

namespace tapir {

namespace {

// The grid is on the node (save_grid).
void spline_backward(const Node& n) {
  Tensor x = n.input(0), values = n.input(1), out = n.output();
  const SplineGrid grid = saved_grid(n);
  const Device dev = out.device();
  dispatch_float("spline backward", x.dtype(), [&]<typename F>() {
    bool fresh = false;  // d_x just allocated: the kernel writes it, unzeroed
    F* d_x = grad_for_write<F>(x, &fresh);
    TAPIR_KERNEL(dev, spline_backward<F>, x.data<F>(), x.numel(), values.data<F>(), grid,
                 out.grad<F>(), d_x, grad_for<F>(values), !fresh);
  });
}
TAPIR_REGISTER_OP(kSpline, "spline", spline_backward);

}  // namespace

Tensor spline(Tensor x, Tensor values, const SplineGrid& grid) {
  const char* op = "spline";
  check_defined(op, x, "input");
  check_spline_values(op, values, grid);
  check_same_dtype(op, x, values);
  TAPIR_CHECK(values.rank() == 1, op, ": values must be (K), got ", values.describe());
  const Device dev = op_device(op, {x, values});
  Tensor out = empty(x.shape(), x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, spline_forward<F>, x.data<F>(), x.numel(), values.data<F>(), grid,
                 out.data<F>());
  });
  if (needs_grad({x, values})) save_grid(record(kSpline, out, {x, values}), grid);
  return out;
}

}  // namespace tapir
