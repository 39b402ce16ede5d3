// Softmax, log-softmax and the fused cross-entropy on the tape.
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

void softmax_backward(const Node& n) {
  Tensor x = n.input(0), y = n.output();
  const Device dev = y.device();
  dispatch_float("softmax backward", y.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, softmax_backward<T>, y.data<T>(), y.grad<T>(), y.shape().rows(),
                 y.shape().last(), grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kSoftmax, "softmax", softmax_backward);

void log_softmax_backward(const Node& n) {
  Tensor x = n.input(0), y = n.output();
  const Device dev = y.device();
  dispatch_float("log_softmax backward", y.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, log_softmax_backward<T>, y.data<T>(), y.grad<T>(), y.shape().rows(),
                 y.shape().last(), grad_for<T>(x));
  });
}
TAPIR_REGISTER_OP(kLogSoftmax, "log_softmax", log_softmax_backward);

// saved[0] = probs, f[0] = sum(mask).
void cross_entropy_backward(const Node& n) {
  Tensor logits = n.input(0), targets = n.input(1), mask = n.input(2), loss = n.output();
  Tensor probs = n.saved_tensor(0);
  const double count = n.f[0];
  if (count == 0) return;
  const Device dev = loss.device();
  // The loss's gradient is one value, read on the host (a copy on cuda).
  const double d_loss = grad_item(loss);
  dispatch_float("cross_entropy backward", logits.dtype(), [&]<typename T>() {
    const T d_loss_over_count = static_cast<T>(static_cast<T>(d_loss) / count);
    TAPIR_KERNEL(dev, cross_entropy_backward<T>, probs.data<T>(), targets.data<int32_t>(),
                 mask.defined() ? mask.data<T>() : nullptr, logits.shape().rows(),
                 logits.shape().last(), d_loss_over_count, grad_for<T>(logits));
  });
}
TAPIR_REGISTER_OP(kCrossEntropy, "cross_entropy", cross_entropy_backward);

Tensor softmax_like(const OpInfo& info, Tensor x, bool log_form) {
  check_defined(info.name, x, "input");
  TAPIR_CHECK(x.rank() >= 1 && x.shape().last() > 0, info.name,
              ": needs a non-empty last axis, got ", x.describe());
  const Device dev = op_device(info.name, {x});
  Tensor y = empty(x.shape(), x.dtype(), dev);
  dispatch_float(info.name, x.dtype(), [&]<typename T>() {
    if (log_form)
      TAPIR_KERNEL(dev, log_softmax_forward<T>, x.data<T>(), x.shape().rows(), x.shape().last(),
                   y.data<T>());
    else
      TAPIR_KERNEL(dev, softmax_forward<T>, x.data<T>(), x.shape().rows(), x.shape().last(),
                   y.data<T>());
  });
  if (needs_grad({x})) record(info, y, {x});
  return y;
}

}  // namespace

Tensor softmax(Tensor x) {
  return softmax_like(kSoftmax, x, false);
}
Tensor log_softmax(Tensor x) {
  return softmax_like(kLogSoftmax, x, true);
}

Tensor cross_entropy(Tensor logits, Tensor targets, Tensor mask) {
  const char* op = "cross_entropy";
  check_defined(op, logits, "logits");
  check_defined(op, targets, "targets");
  check_dtype(op, targets, DType::i32, "targets");
  TAPIR_CHECK(logits.rank() >= 1, op, ": logits need a class axis, got ", logits.describe());
  const int64_t rows = logits.shape().rows(), V = logits.shape().last();
  Shape row_shape = logits.shape();
  --row_shape.rank;
  TAPIR_CHECK(targets.shape() == row_shape, op, ": targets ", targets.describe(),
              " do not match logits ", logits.describe(), " (expected shape ", row_shape.str(),
              ")");
  if (mask.defined()) {
    check_same_dtype(op, logits, mask);
    TAPIR_CHECK(mask.shape() == row_shape, op, ": mask ", mask.describe(),
                " does not match targets ", targets.describe());
  }
  const Device dev = op_device(op, {logits, targets, mask});
  const int32_t* t = targets.data<int32_t>();
  const int64_t bad = TAPIR_KERNEL(dev, first_out_of_range, t, rows, V);
  TAPIR_CHECK(bad < 0, op, ": target ", targets.item(bad), " at position ", bad, " is outside the ",
              V, " classes");
  Tensor loss = empty(Shape{}, logits.dtype(), dev);
  Tensor probs = empty(logits.shape(), logits.dtype(), dev);
  Tensor row_losses = empty(row_shape, logits.dtype(), dev);
  double count = 0;
  dispatch_float(op, logits.dtype(), [&]<typename T>() {
    count = TAPIR_KERNEL(dev, cross_entropy_forward<T>, logits.data<T>(), t,
                         mask.defined() ? mask.data<T>() : nullptr, rows, V, probs.data<T>(),
                         row_losses.data<T>(), loss.data<T>());
  });
  if (needs_grad({logits})) {
    Node& node = record(kCrossEntropy, loss, {logits, targets, mask});
    node.saved[0] = probs.impl();
    node.f[0] = count;
  }
  return loss;
}

}  // namespace tapir
