// Elementwise ops: binary with suffix broadcasting, affine, unary maps.
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

// --- binary ----------------------------------------------------------------------

void binary_backward(const Node& n) {
  Tensor a = n.input(0), b = n.input(1), out = n.output();
  const auto op = static_cast<BinaryOp>(n.i[0]);
  dispatch_float("binary backward", out.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(out.device(), binary_backward<T>, op, a.data<T>(), a.numel(), b.data<T>(),
                 b.numel(), out.grad<T>(), grad_for<T>(a), grad_for<T>(b));
  });
}

TAPIR_REGISTER_OP(kAdd, op_name(BinaryOp::add), binary_backward);
TAPIR_REGISTER_OP(kSub, op_name(BinaryOp::sub), binary_backward);
TAPIR_REGISTER_OP(kMul, op_name(BinaryOp::mul), binary_backward);
TAPIR_REGISTER_OP(kDiv, op_name(BinaryOp::div), binary_backward);

Tensor binary(const OpInfo& info, BinaryOp op, Tensor a, Tensor b) {
  check_defined(info.name, a, "first operand");
  check_defined(info.name, b, "second operand");
  check_same_dtype(info.name, a, b);
  const Device dev = op_device(info.name, {a, b});
  const bool a_full = a.shape().ends_with(b.shape());
  TAPIR_CHECK(a_full || b.shape().ends_with(a.shape()), info.name, ": shapes ", a.shape().str(),
              " and ", b.shape().str(), " do not broadcast (one must be a suffix of the other)");
  Tensor out = empty(a_full ? a.shape() : b.shape(), a.dtype(), dev);
  dispatch_float(info.name, a.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, binary_forward<T>, op, a.data<T>(), a.numel(), b.data<T>(), b.numel(),
                 out.data<T>());
  });
  if (needs_grad({a, b})) record(info, out, {a, b}).i[0] = static_cast<int64_t>(op);
  return out;
}

// --- affine ----------------------------------------------------------------------

void affine_backward(const Node& n) {
  Tensor a = n.input(0), out = n.output();
  dispatch_float("affine backward", out.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(out.device(), affine_backward<T>, out.grad<T>(), a.numel(), static_cast<T>(n.f[0]),
                 grad_for<T>(a));
  });
}
TAPIR_REGISTER_OP(kAffine, "affine", affine_backward);

// --- unary -----------------------------------------------------------------------

void unary_backward(const Node& n) {
  Tensor x = n.input(0), out = n.output();
  const auto op = static_cast<UnaryOp>(n.i[0]);
  dispatch_float("unary backward", out.dtype(), [&]<typename T>() {
    bool fresh = false;  // d_x just allocated: the kernel writes it, unzeroed
    T* d_x = grad_for_write<T>(x, &fresh);
    TAPIR_KERNEL(out.device(), unary_backward<T>, op, x.data<T>(), out.data<T>(), out.grad<T>(),
                 x.numel(), d_x, !fresh);
  });
}

TAPIR_REGISTER_OP(kExp, op_name(UnaryOp::exp), unary_backward);
TAPIR_REGISTER_OP(kLog, op_name(UnaryOp::log), unary_backward);
TAPIR_REGISTER_OP(kTanh, op_name(UnaryOp::tanh), unary_backward);
TAPIR_REGISTER_OP(kSqrt, op_name(UnaryOp::sqrt), unary_backward);
TAPIR_REGISTER_OP(kRelu, op_name(UnaryOp::relu), unary_backward);
TAPIR_REGISTER_OP(kGelu, op_name(UnaryOp::gelu), unary_backward);

Tensor unary(const OpInfo& info, UnaryOp op, Tensor x) {
  check_defined(info.name, x, "input");
  const Device dev = op_device(info.name, {x});
  Tensor out = empty(x.shape(), x.dtype(), dev);
  dispatch_float(info.name, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, unary_forward<T>, op, x.data<T>(), x.numel(), out.data<T>());
  });
  if (needs_grad({x})) record(info, out, {x}).i[0] = static_cast<int64_t>(op);
  return out;
}

}  // namespace

Tensor add(Tensor a, Tensor b) {
  return binary(kAdd, BinaryOp::add, a, b);
}
Tensor sub(Tensor a, Tensor b) {
  return binary(kSub, BinaryOp::sub, a, b);
}
Tensor mul(Tensor a, Tensor b) {
  return binary(kMul, BinaryOp::mul, a, b);
}
Tensor div(Tensor a, Tensor b) {
  return binary(kDiv, BinaryOp::div, a, b);
}

Tensor affine(Tensor a, double scale, double shift) {
  check_defined("affine", a, "input");
  const Device dev = op_device("affine", {a});
  Tensor out = empty(a.shape(), a.dtype(), dev);
  dispatch_float("affine", a.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, affine_forward<T>, a.data<T>(), a.numel(), static_cast<T>(scale),
                 static_cast<T>(shift), out.data<T>());
  });
  if (needs_grad({a})) record(kAffine, out, {a}).f[0] = scale;
  return out;
}

Tensor exp(Tensor x) {
  return unary(kExp, UnaryOp::exp, x);
}
Tensor log(Tensor x) {
  return unary(kLog, UnaryOp::log, x);
}
Tensor tanh(Tensor x) {
  return unary(kTanh, UnaryOp::tanh, x);
}
Tensor sqrt(Tensor x) {
  return unary(kSqrt, UnaryOp::sqrt, x);
}
Tensor relu(Tensor x) {
  return unary(kRelu, UnaryOp::relu, x);
}
Tensor gelu(Tensor x) {
  return unary(kGelu, UnaryOp::gelu, x);
}

}  // namespace tapir
