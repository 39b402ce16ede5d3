// LayerNorm, RMSNorm and embedding lookup on the tape.
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

// saved[0] = mean (rows), saved[1] = rstd (rows).
void layernorm_backward(const Node& n) {
  Tensor x = n.input(0), w = n.input(1), b = n.input(2), y = n.output();
  Tensor mean = n.saved_tensor(0), rstd = n.saved_tensor(1);
  const Device dev = y.device();
  dispatch_float("layernorm backward", x.dtype(), [&]<typename T>() {
    bool fresh = false;  // d_x just allocated: the kernel writes it, unzeroed
    T* d_x = grad_for_write<T>(x, &fresh);
    TAPIR_KERNEL(dev, layernorm_backward<T>, x.data<T>(), w.data<T>(), mean.data<T>(),
                 rstd.data<T>(), y.grad<T>(), x.shape().rows(), x.shape().last(), d_x,
                 grad_for<T>(w), grad_for<T>(b), !fresh);
  });
}
TAPIR_REGISTER_OP(kLayernorm, "layernorm", layernorm_backward);

// saved[0] = rstd (rows). The weight may be undefined (no weight).
void rmsnorm_backward(const Node& n) {
  Tensor x = n.input(0), w = n.input(1), y = n.output();
  Tensor rstd = n.saved_tensor(0);
  const Device dev = y.device();
  dispatch_float("rmsnorm backward", x.dtype(), [&]<typename T>() {
    bool fresh = false;  // d_x just allocated: the kernel writes it, unzeroed
    T* d_x = grad_for_write<T>(x, &fresh);
    TAPIR_KERNEL(dev, rmsnorm_backward<T>, x.data<T>(), data_or_null<T>(w), rstd.data<T>(),
                 y.grad<T>(), x.shape().rows(), x.shape().last(), d_x, grad_for<T>(w), !fresh);
  });
}
TAPIR_REGISTER_OP(kRmsnorm, "rmsnorm", rmsnorm_backward);

void embedding_backward(const Node& n) {
  Tensor table = n.input(0), ids = n.input(1), out = n.output();
  const Device dev = out.device();
  dispatch_float("embedding backward", table.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, embedding_backward<T>, ids.data<int32_t>(), out.grad<T>(), ids.numel(),
                 table.dim(1), grad_for<T>(table));
  });
}
TAPIR_REGISTER_OP(kEmbedding, "embedding", embedding_backward);

}  // namespace

Tensor layernorm(Tensor x, Tensor weight, Tensor bias, double eps) {
  const char* op = "layernorm";
  check_defined(op, x, "input");
  check_defined(op, weight, "weight");
  check_same_dtype(op, x, weight);
  const int64_t C = x.shape().last();
  TAPIR_CHECK(x.rank() >= 1 && C > 0, op, ": needs a non-empty last axis, got ", x.describe());
  TAPIR_CHECK(weight.shape() == Shape{C}, op, ": weight must be (", C, "), got ",
              weight.describe());
  if (bias.defined()) {
    check_same_dtype(op, x, bias);
    TAPIR_CHECK(bias.shape() == Shape{C}, op, ": bias must be (", C, "), got ", bias.describe());
  }
  TAPIR_CHECK(eps > 0, op, ": eps must be positive, got ", eps);
  const Device dev = op_device(op, {x, weight, bias});
  const int64_t rows = x.shape().rows();
  Tensor y = empty(x.shape(), x.dtype(), dev);
  Tensor mean = empty(Shape{rows}, x.dtype(), dev);
  Tensor rstd = empty(Shape{rows}, x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, layernorm_forward<T>, x.data<T>(), weight.data<T>(), data_or_null<T>(bias),
                 rows, C, static_cast<T>(eps), y.data<T>(), mean.data<T>(), rstd.data<T>());
  });
  if (needs_grad({x, weight, bias})) {
    Node& node = record(kLayernorm, y, {x, weight, bias});
    node.saved[0] = mean.impl();
    node.saved[1] = rstd.impl();
  }
  return y;
}

Tensor rmsnorm(Tensor x, Tensor weight, double eps) {
  const char* op = "rmsnorm";
  check_defined(op, x, "input");
  const int64_t C = x.shape().last();
  TAPIR_CHECK(x.rank() >= 1 && C > 0, op, ": needs a non-empty last axis, got ", x.describe());
  if (weight.defined()) {
    check_same_dtype(op, x, weight);
    TAPIR_CHECK(weight.shape() == Shape{C}, op, ": weight must be (", C, "), got ",
                weight.describe());
  }
  TAPIR_CHECK(eps > 0, op, ": eps must be positive, got ", eps);
  const Device dev = op_device(op, {x, weight});
  const int64_t rows = x.shape().rows();
  Tensor y = empty(x.shape(), x.dtype(), dev);
  Tensor rstd = empty(Shape{rows}, x.dtype(), dev);
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, rmsnorm_forward<T>, x.data<T>(), data_or_null<T>(weight), rows, C,
                 static_cast<T>(eps), y.data<T>(), rstd.data<T>());
  });
  if (needs_grad({x, weight})) record(kRmsnorm, y, {x, weight}).saved[0] = rstd.impl();
  return y;
}

Tensor embedding(Tensor table, Tensor ids) {
  const char* op = "embedding";
  check_defined(op, table, "table");
  check_defined(op, ids, "ids");
  check_dtype(op, ids, DType::i32, "ids");
  TAPIR_CHECK(table.rank() == 2, op, ": table must be (V, C), got ", table.describe());
  TAPIR_CHECK(ids.rank() < kMaxRank, op, ": ids of rank ", ids.rank(), " leave no room for C");
  const Device dev = op_device(op, {table, ids});
  const int64_t V = table.dim(0), C = table.dim(1), n = ids.numel();
  const int32_t* p = ids.data<int32_t>();
  const int64_t bad = TAPIR_KERNEL(dev, first_out_of_range, p, n, V);
  TAPIR_CHECK(bad < 0, op, ": id ", ids.item(bad), " at position ", bad, " is outside the table's ",
              V, " rows");
  Shape out_shape = ids.shape();
  out_shape.dims[out_shape.rank++] = C;
  Tensor out = empty(out_shape, table.dtype(), dev);
  dispatch_float(op, table.dtype(), [&]<typename T>() {
    TAPIR_KERNEL(dev, embedding_forward<T>, table.data<T>(), p, n, C, out.data<T>());
  });
  if (needs_grad({table})) record(kEmbedding, out, {table, ids});
  return out;
}

}  // namespace tapir
