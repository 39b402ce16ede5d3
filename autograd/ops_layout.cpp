// Layout ops on the tape: reshape (a view), transpose of the last two axes,
// concat and slice along an axis, masked fill.
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

// The output shares the input's data, but not its gradient buffer: backward
// adds the output's gradient into the input's (same element order).
void reshape_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output();
  dispatch_float("reshape backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(x.device(), binary_backward<T>, BinaryOp::add, x.data<T>(), x.numel(), x.data<T>(),
                 x.numel(), out.grad<T>(), grad_for<T>(x), nullptr);
  });
}
TAPIR_REGISTER_OP(kReshape, "reshape", reshape_backward);

struct Last2 {
  int64_t batch, R, C;
};
Last2 last2(Tensor x) {
  return {x.shape().span(0, x.rank() - 2), x.dim(-2), x.dim(-1)};
}

void transpose_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output();
  const Last2 s = last2(out);  // out (batch, C, R) maps back onto x (batch, R, C)
  const Device dev = out.device();
  dispatch_float("transpose backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, transpose_last2<T>, out.grad<T>(), s.batch, s.R, s.C, grad_for<T>(x), true);
  });
}
TAPIR_REGISTER_OP(kTranspose, "transpose", transpose_backward);

struct AxisSplit {
  int64_t outer, inner;
};
AxisSplit around(Tensor x, int axis) {
  return {x.shape().span(0, axis), x.shape().span(axis + 1, x.rank())};
}

// i[0] = axis.
void concat_backward(const Node& n) {
  Tensor out = n.output();
  const int axis = static_cast<int>(n.i[0]);
  const AxisSplit s = around(out, axis);
  const Device dev = out.device();
  int64_t offset = 0;
  for (int k = 0; k < n.n_in; ++k) {
    Tensor part = n.input(k);
    dispatch_float("concat backward", out.dtype(), [&]<typename T>() {
      if (T* g = grad_for<T>(part))
        TAPIR_KERNEL(dev, copy_axis_block<T>, out.grad<T>(), s.outer, out.dim(axis), offset, g,
                     part.dim(axis), 0, part.dim(axis), s.inner, true);
    });
    offset += part.dim(axis);
  }
}
TAPIR_REGISTER_OP(kConcat, "concat", concat_backward);

// i[0] = axis, i[1] = begin.
void slice_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output();
  const int axis = static_cast<int>(n.i[0]);
  const AxisSplit s = around(x, axis);
  const Device dev = out.device();
  dispatch_float("slice backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, copy_axis_block<T>, out.grad<T>(), s.outer, out.dim(axis), 0, grad_for<T>(x),
                 x.dim(axis), n.i[1], out.dim(axis), s.inner, true);
  });
}
TAPIR_REGISTER_OP(kSlice, "slice", slice_backward);

void masked_fill_backward(const Node& n) {
  Tensor x = n.input(0), mask = n.input(1), out = n.output();
  const Device dev = out.device();
  dispatch_float("masked_fill backward", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, masked_fill_backward<T>, out.grad<T>(), x.numel(), mask.data<int32_t>(),
                 mask.numel(), grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kMaskedFill, "masked_fill", masked_fill_backward);

}  // namespace

Tensor reshape(Tensor x, const Shape& shape) {
  check_defined("reshape", x, "input");
  op_device("reshape", {x});
  Tensor out = alias(x, shape);
  if (needs_grad({x})) record(kReshape, out, {x});
  return out;
}

Tensor transpose(Tensor x) {
  check_defined("transpose", x, "input");
  TAPIR_CHECK(x.rank() >= 2, "transpose: needs at least 2 dimensions, got ", x.describe());
  const Device dev = op_device("transpose", {x});
  Shape out_shape = x.shape();
  out_shape[-2] = x.dim(-1);
  out_shape[-1] = x.dim(-2);
  Tensor out = empty(out_shape, x.dtype(), dev);
  const Last2 s = last2(x);
  dispatch_float("transpose", x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, transpose_last2<T>, x.data<T>(), s.batch, s.R, s.C, out.data<T>(), false);
  });
  if (needs_grad({x})) record(kTranspose, out, {x});
  return out;
}

Tensor concat(std::initializer_list<Tensor> parts, int axis) {
  const char* op = "concat";
  TAPIR_CHECK(parts.size() >= 1 && parts.size() <= static_cast<size_t>(kMaxNodeInputs), op,
              ": takes 1 to ", kMaxNodeInputs, " tensors, got ", parts.size());
  const Tensor first = *parts.begin();
  check_defined(op, first, "first part");
  const Device dev = op_device(op, parts);
  const int a = normalize_axis(op, first, axis);
  Shape out_shape = first.shape();
  out_shape[a] = 0;
  for (const Tensor& p : parts) {
    check_defined(op, p, "part");
    check_same_dtype(op, first, p);
    bool fits = p.rank() == first.rank();
    for (int i = 0; fits && i < p.rank(); ++i) fits = i == a || p.dim(i) == first.dim(i);
    TAPIR_CHECK(fits, op, ": ", p.describe(), " does not fit ", first.describe(), " along axis ",
                a);
    out_shape[a] += p.dim(a);
  }
  Tensor out = empty(out_shape, first.dtype(), dev);
  const AxisSplit s = around(out, a);
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    dispatch_float(op, p.dtype(), [&]<typename T>() {
      TAPIR_KERNEL(dev, copy_axis_block<T>, p.data<T>(), s.outer, p.dim(a), 0, out.data<T>(),
                   out_shape[a], offset, p.dim(a), s.inner, false);
    });
    offset += p.dim(a);
  }
  if (needs_grad(parts)) record(kConcat, out, parts).i[0] = a;
  return out;
}

Tensor slice(Tensor x, int axis, int64_t begin, int64_t end) {
  const char* op = "slice";
  check_defined(op, x, "input");
  const int a = normalize_axis(op, x, axis);
  const Device dev = op_device(op, {x});
  TAPIR_CHECK(0 <= begin && begin <= end && end <= x.dim(a), op, ": range [", begin, ", ", end,
              ") is outside axis ", a, " of ", x.describe());
  Shape out_shape = x.shape();
  out_shape[a] = end - begin;
  Tensor out = empty(out_shape, x.dtype(), dev);
  const AxisSplit s = around(x, a);
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, copy_axis_block<T>, x.data<T>(), s.outer, x.dim(a), begin, out.data<T>(),
                 end - begin, 0, end - begin, s.inner, false);
  });
  if (needs_grad({x})) {
    Node& node = record(kSlice, out, {x});
    node.i[0] = a;
    node.i[1] = begin;
  }
  return out;
}

Tensor masked_fill(Tensor x, Tensor mask, double value) {
  const char* op = "masked_fill";
  check_defined(op, x, "input");
  check_defined(op, mask, "mask");
  check_dtype(op, mask, DType::i32, "mask");
  TAPIR_CHECK(x.shape().ends_with(mask.shape()) && mask.numel() > 0, op, ": mask ", mask.describe(),
              " must match the trailing dimensions of ", x.describe());
  const Device dev = op_device(op, {x, mask});
  Tensor out = empty(x.shape(), x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, masked_fill_forward<T>, x.data<T>(), x.numel(), mask.data<int32_t>(),
                 mask.numel(), static_cast<T>(value), out.data<T>());
  });
  if (needs_grad({x})) record(kMaskedFill, out, {x, mask});
  return out;
}

}  // namespace tapir
