// Causal multi-head self-attention on the tape (one fused op: scores, mask,
// softmax and the weighted sum of values; probabilities kept for backward).
#include "autograd/dispatch.h"
#include "autograd/ops.h"
#include "engine/cpu/kernels.h"

namespace tapir {

namespace {

// i[0] = heads, saved[0] = probs (B, H, T, T).
void attention_backward(const Node& n) {
  Tensor qkv = n.input(0), out = n.output(), probs = n.saved_tensor(0);
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  dispatch_float("attention backward", qkv.dtype(), [&]<typename F>() {
    cpu::attention_backward<F>(qkv.data<F>(), probs.data<F>(), out.grad<F>(), B, T, C, n.i[0],
                               grad_for<F>(qkv));
  });
}
TAPIR_REGISTER_OP(kAttention, "attention", attention_backward);

}  // namespace

Tensor attention(Tensor qkv, int64_t heads, Tensor alibi_slopes) {
  const char* op = "attention";
  check_defined(op, qkv, "qkv");
  TAPIR_CHECK(qkv.rank() == 3 && qkv.dim(2) % 3 == 0, op, ": qkv must be (B, T, 3C), got ",
              qkv.describe());
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  TAPIR_CHECK(heads >= 1 && C % heads == 0, op, ": width ", C, " is not divisible by ", heads,
              " heads");
  if (alibi_slopes.defined()) {
    check_same_dtype(op, qkv, alibi_slopes);
    TAPIR_CHECK(alibi_slopes.shape() == Shape{heads}, op, ": ALiBi slopes must be (", heads,
                "), got ", alibi_slopes.describe());
  }
  Tensor out = empty(Shape{B, T, C}, qkv.dtype());
  Tensor probs = empty(Shape{B, heads, T, T}, qkv.dtype());
  dispatch_float(op, qkv.dtype(), [&]<typename F>() {
    cpu::attention_forward<F>(qkv.data<F>(), B, T, C, heads,
                              alibi_slopes.defined() ? alibi_slopes.data<F>() : nullptr,
                              probs.data<F>(), out.data<F>());
  });
  if (needs_grad({qkv})) {
    Node& node = record(kAttention, out, {qkv});
    node.i[0] = heads;
    node.saved[0] = probs.impl();
  }
  return out;
}

}  // namespace tapir
