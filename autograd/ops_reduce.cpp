// Reductions on the tape: sum and mean over an axis, sum of everything, and
// max over the last axis (gradient to the first maximal element).
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

// x seen as (outer, n, inner) around `axis`.
struct AxisSplit {
  int64_t outer, n, inner;
};
AxisSplit split_at(Tensor x, int axis) {
  return {x.shape().span(0, axis), x.dim(axis), x.shape().span(axis + 1, x.rank())};
}

// i[0] = axis, f[0] = scale (1 for sum, 1/n for mean).
void sum_axis_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output();
  const AxisSplit s = split_at(x, static_cast<int>(n.i[0]));
  const Device dev = out.device();
  dispatch_float("sum backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, sum_axis_backward<T>, out.grad<T>(), s.outer, s.n, s.inner,
                 static_cast<T>(n.f[0]), grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kSum, "sum", sum_axis_backward);
TAPIR_REGISTER_OP(kMean, "mean", sum_axis_backward);

Tensor reduce_axis(const OpInfo& info, Tensor x, int axis, bool average) {
  check_defined(info.name, x, "input");
  const int a = normalize_axis(info.name, x, axis);
  const Device dev = op_device(info.name, {x});
  const AxisSplit s = split_at(x, a);
  Shape out_shape;
  for (int i = 0; i < x.rank(); ++i)
    if (i != a) out_shape.dims[out_shape.rank++] = x.dim(i);
  Tensor out = empty(out_shape, x.dtype(), dev);
  const double scale = average ? 1.0 / static_cast<double>(s.n) : 1.0;
  dispatch_float(info.name, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, sum_axis_forward<T>, x.data<T>(), s.outer, s.n, s.inner, out.data<T>());
    if (average)
      TAPIR_KERNEL(dev, scale_inplace<T>, out.data<T>(), out.numel(), static_cast<T>(scale));
  });
  if (needs_grad({x})) {
    Node& node = record(info, out, {x});
    node.i[0] = a;
    node.f[0] = scale;
  }
  return out;
}

void sum_all_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output();
  const Device dev = out.device();
  dispatch_float("sum_all backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, sum_axis_backward<T>, out.grad<T>(), 1, x.numel(), 1, T(1), grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kSumAll, "sum_all", sum_all_backward);

void max_last_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output(), argmax = n.saved_tensor(0);
  const Device dev = out.device();
  dispatch_float("max_last backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, max_last_backward<T>, out.grad<T>(), argmax.data<int32_t>(), x.shape().rows(),
                 x.shape().last(), grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kMaxLast, "max_last", max_last_backward);

}  // namespace

Tensor sum(Tensor x, int axis) {
  return reduce_axis(kSum, x, axis, false);
}
Tensor mean(Tensor x, int axis) {
  return reduce_axis(kMean, x, axis, true);
}

Tensor sum_all(Tensor x) {
  check_defined("sum_all", x, "input");
  const Device dev = op_device("sum_all", {x});
  Tensor out = empty(Shape{}, x.dtype(), dev);
  dispatch_float("sum_all", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, sum_axis_forward<T>, x.data<T>(), 1, x.numel(), 1, out.data<T>());
  });
  if (needs_grad({x})) record(kSumAll, out, {x});
  return out;
}

Tensor max_last(Tensor x) {
  check_defined("max_last", x, "input");
  TAPIR_CHECK(x.rank() >= 1 && x.shape().last() > 0, "max_last: needs a non-empty last axis, got ",
              x.describe());
  const Device dev = op_device("max_last", {x});
  Shape out_shape = x.shape();
  --out_shape.rank;
  Tensor out = empty(out_shape, x.dtype(), dev);
  Tensor argmax = empty(out_shape, DType::i32, dev);
  dispatch_float("max_last", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, max_last_forward<T>, x.data<T>(), x.shape().rows(), x.shape().last(),
                 out.data<T>(), argmax.data<int32_t>());
  });
  if (needs_grad({x})) record(kMaxLast, out, {x}).saved[0] = argmax.impl();
  return out;
}

}  // namespace tapir
