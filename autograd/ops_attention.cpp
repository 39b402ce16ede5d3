// Causal multi-head self-attention on the tape, one fused op per kernel:
// softmax (scores, mask, softmax and the weighted sum of values), score-spline (the same with a
// learned spline of the scores, a second differentiable input) and feature-spline (linear attention
// with a learned positive feature map).
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

// Checks qkv (B, T, 3C) and the head count.
void check_qkv(const char* op, Tensor qkv, int64_t heads) {
  check_defined(op, qkv, "qkv");
  TAPIR_CHECK(qkv.rank() == 3 && qkv.dim(2) % 3 == 0, op, ": qkv must be (B, T, 3C), got ",
              qkv.describe());
  const int64_t C = qkv.dim(2) / 3;
  TAPIR_CHECK(heads >= 1 && C % heads == 0, op, ": width ", C, " is not divisible by ", heads,
              " heads");
}

// The probabilities (B, H, T, T), and the score spline's inputs, are kept
// for backward on cuda, and on the CPU while they are small. Past
// kRecomputeAbove values (4 MiB of f32) the CPU backward recomputes them
// pair by pair instead (engine/cpu/attention.cpp): on lm (T = 256) that is
// 134 MB less at the step's peak for one more q k^T product per pair.
constexpr int64_t kRecomputeAbove = int64_t{1} << 20;
bool keep_probs(Device dev, int64_t B, int64_t heads, int64_t T) {
  return dev == Device::cuda || B * heads * T * T <= kRecomputeAbove;
}

void check_slopes(const char* op, Tensor qkv, int64_t heads, Tensor alibi_slopes) {
  if (!alibi_slopes.defined()) return;
  check_same_dtype(op, qkv, alibi_slopes);
  TAPIR_CHECK(alibi_slopes.shape() == Shape{heads}, op, ": ALiBi slopes must be (", heads,
              "), got ", alibi_slopes.describe());
}

// inputs qkv and the ALiBi slopes (or none); i[0] = heads; saved[0] = probs
// (B, H, T, T) where kept.
void attention_backward(const Node& n) {
  Tensor qkv = n.input(0), slopes = n.input(1), out = n.output(), probs = n.saved_tensor(0);
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  const Device dev = out.device();
  dispatch_float("attention backward", qkv.dtype(), [&]<typename F>() {
    bool fresh = false;  // d_qkv just allocated: the kernel writes it, unzeroed
    F* d_qkv = grad_for_write<F>(qkv, &fresh);
    TAPIR_KERNEL(dev, attention_backward<F>, qkv.data<F>(), data_or_null<F>(slopes),
                 data_or_null<F>(probs), out.grad<F>(), B, T, C, n.i[0], d_qkv, !fresh);
  });
}
TAPIR_REGISTER_OP(kAttention, "attention", attention_backward);

}  // namespace

Tensor attention(Tensor qkv, int64_t heads, Tensor alibi_slopes) {
  const char* op = "attention";
  check_qkv(op, qkv, heads);
  check_slopes(op, qkv, heads, alibi_slopes);
  const Device dev = op_device(op, {qkv, alibi_slopes});
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  Tensor out = empty(Shape{B, T, C}, qkv.dtype(), dev);
  Tensor probs =
      keep_probs(dev, B, heads, T) ? empty(Shape{B, heads, T, T}, qkv.dtype(), dev) : Tensor();
  dispatch_float(op, qkv.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, attention_forward<F>, qkv.data<F>(), B, T, C, heads,
                 data_or_null<F>(alibi_slopes), data_or_null<F>(probs), out.data<F>());
  });
  if (needs_grad({qkv})) {
    Node& node = record(kAttention, out, {qkv, alibi_slopes});
    node.i[0] = heads;
    node.saved[0] = probs.defined() ? probs.impl() : nullptr;
  }
  return out;
}

namespace {

// inputs qkv, the spline's values and the ALiBi slopes (or none); i[0] =
// heads, the grid as save_grid keeps it; saved[0] = probs, saved[1] = scores
// (B, H, T, T) where kept.
void score_spline_attention_backward(const Node& n) {
  Tensor qkv = n.input(0), g = n.input(1), slopes = n.input(2), out = n.output();
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  const SplineGrid grid = saved_grid(n);
  const Device dev = out.device();
  dispatch_float("score-spline attention backward", qkv.dtype(), [&]<typename F>() {
    bool fresh = false;  // d_qkv just allocated: the kernel writes it, unzeroed
    F* d_qkv = grad_for_write<F>(qkv, &fresh);
    TAPIR_KERNEL(dev, score_spline_attention_backward<F>, qkv.data<F>(), data_or_null<F>(slopes),
                 data_or_null<F>(n.saved_tensor(1)), data_or_null<F>(n.saved_tensor(0)),
                 out.grad<F>(), B, T, C, n.i[0], g.data<F>(), grid, g.rank() == 2, d_qkv,
                 grad_for<F>(g), !fresh);
  });
}
TAPIR_REGISTER_OP(kScoreSplineAttention, "score_spline_attention", score_spline_attention_backward);

// i[0] = heads, the grid as save_grid keeps it;
// saved[0] = features (B, T, 2C).
void feature_spline_attention_backward(const Node& n) {
  Tensor qkv = n.input(0), g = n.input(1), out = n.output();
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  const SplineGrid grid = saved_grid(n);
  const Device dev = out.device();
  dispatch_float("feature-spline attention backward", qkv.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, feature_attention_backward<F>, qkv.data<F>(), n.saved_tensor(0).data<F>(),
                 out.data<F>(), out.grad<F>(), B, T, C, n.i[0], g.data<F>(), grid, grad_for<F>(qkv),
                 grad_for<F>(g));
  });
}
TAPIR_REGISTER_OP(kFeatureSplineAttention, "feature_spline_attention",
                  feature_spline_attention_backward);

void record_spline_attention(const OpInfo& info, Tensor out, Tensor qkv, Tensor g, Tensor slopes,
                             int64_t heads, const SplineGrid& grid, Tensor saved0, Tensor saved1) {
  if (!needs_grad({qkv, g})) return;
  Node& node = record(info, out, {qkv, g, slopes});
  node.i[0] = heads;
  save_grid(node, grid);
  node.saved[0] = saved0.defined() ? saved0.impl() : nullptr;
  node.saved[1] = saved1.defined() ? saved1.impl() : nullptr;
}

}  // namespace

Tensor score_spline_attention(Tensor qkv, int64_t heads, Tensor g_values, const SplineGrid& grid,
                              Tensor alibi_slopes) {
  const char* op = "score_spline_attention";
  check_qkv(op, qkv, heads);
  check_slopes(op, qkv, heads, alibi_slopes);
  check_spline_values(op, g_values, grid);
  check_same_dtype(op, qkv, g_values);
  const bool per_head = g_values.rank() == 2;
  TAPIR_CHECK(g_values.rank() == 1 || (per_head && g_values.dim(0) == heads), op,
              ": score spline values must be (K) or (", heads, ", K), got ", g_values.describe());
  const Device dev = op_device(op, {qkv, g_values, alibi_slopes});
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  Tensor out = empty(Shape{B, T, C}, qkv.dtype(), dev);
  const bool keep = keep_probs(dev, B, heads, T);
  Tensor probs = keep ? empty(Shape{B, heads, T, T}, qkv.dtype(), dev) : Tensor();
  Tensor scores = keep ? empty(Shape{B, heads, T, T}, qkv.dtype(), dev) : Tensor();
  dispatch_float(op, qkv.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, score_spline_attention_forward<F>, qkv.data<F>(), B, T, C, heads,
                 data_or_null<F>(alibi_slopes), g_values.data<F>(), grid, per_head,
                 data_or_null<F>(scores), data_or_null<F>(probs), out.data<F>());
  });
  record_spline_attention(kScoreSplineAttention, out, qkv, g_values, alibi_slopes, heads, grid,
                          probs, scores);
  return out;
}

Tensor feature_spline_attention(Tensor qkv, int64_t heads, Tensor g_values,
                                const SplineGrid& grid) {
  const char* op = "feature_spline_attention";
  check_qkv(op, qkv, heads);
  check_spline_values(op, g_values, grid);
  check_same_dtype(op, qkv, g_values);
  TAPIR_CHECK(g_values.rank() == 1, op, ": feature spline values must be (K), got ",
              g_values.describe());
  const Device dev = op_device(op, {qkv, g_values});
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  Tensor out = empty(Shape{B, T, C}, qkv.dtype(), dev);
  Tensor features = empty(Shape{B, T, 2 * C}, qkv.dtype(), dev);
  dispatch_float(op, qkv.dtype(), [&]<typename F>() {
    TAPIR_KERNEL(dev, feature_attention_forward<F>, qkv.data<F>(), B, T, C, heads,
                 g_values.data<F>(), grid, features.data<F>(), out.data<F>());
  });
  record_spline_attention(kFeatureSplineAttention, out, qkv, g_values, Tensor(), heads, grid,
                          features, Tensor());
  return out;
}

}  // namespace tapir
