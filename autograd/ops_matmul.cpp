// Matrix products on the tape. With C = op(A) op(B):
//   d op(A) = dC op(B)^T,   d op(B) = op(A)^T dC,
// and a transposed operand receives the transpose of that. matmul's gradient
// GEMMs run with beta = 1, accumulating into the existing gradient; linear
// writes dx with beta = 0 when its buffer is fresh (grad_for_write).
#include "autograd/op_checks.h"
#include "autograd/ops.h"
#include "engine/kernels.h"

namespace tapir {

namespace {

struct MatmulDims {
  int64_t batch;  // number of GEMMs
  int64_t M, N, K;
  bool shared_b;  // b is 2-D and used by every batch entry
};

MatmulDims matmul_dims(Tensor a, Tensor b, bool ta, bool tb) {
  TAPIR_CHECK(a.rank() >= 2 && b.rank() >= 2, "matmul: operands need at least 2 dimensions, got ",
              a.describe(), " and ", b.describe());
  MatmulDims d{};
  d.M = ta ? a.dim(-1) : a.dim(-2);
  const int64_t ka = ta ? a.dim(-2) : a.dim(-1);
  const int64_t kb = tb ? b.dim(-1) : b.dim(-2);
  d.N = tb ? b.dim(-2) : b.dim(-1);
  d.K = ka;
  TAPIR_CHECK(ka == kb, "matmul: inner dimensions differ (", a.describe(), ta ? "^T" : "",
              " times ", b.describe(), tb ? "^T" : "", ")");
  d.shared_b = b.rank() == 2;
  d.batch = a.shape().span(0, a.rank() - 2);
  if (!d.shared_b) {
    TAPIR_CHECK(
        a.rank() == b.rank() && a.shape().span(0, a.rank() - 2) == b.shape().span(0, b.rank() - 2),
        "matmul: batch dimensions differ (", a.describe(), " and ", b.describe(), ")");
    for (int i = 0; i < a.rank() - 2; ++i)
      TAPIR_CHECK(a.dim(i) == b.dim(i), "matmul: batch dimensions differ (", a.describe(), " and ",
                  b.describe(), ")");
  }
  return d;
}

template <typename T>
void matmul_forward(Device dev, const MatmulDims& d, bool ta, bool tb, const T* a, const T* b,
                    T* c) {
  if (d.shared_b && !ta) {
    // Leading dimensions flatten into rows: one large GEMM.
    TAPIR_KERNEL(dev, gemm<T>, false, tb, d.batch * d.M, d.N, d.K, T(1), a, b, T(0), c);
    return;
  }
  const int64_t sb = d.shared_b ? 0 : d.K * d.N;
  for (int64_t i = 0; i < d.batch; ++i)
    TAPIR_KERNEL(dev, gemm<T>, ta, tb, d.M, d.N, d.K, T(1), a + i * d.M * d.K, b + i * sb, T(0),
                 c + i * d.M * d.N);
}

void matmul_backward(const Node& n) {
  Tensor a = n.input(0), b = n.input(1), c = n.output();
  const bool ta = n.i[0], tb = n.i[1];
  const MatmulDims d = matmul_dims(a, b, ta, tb);
  const Device dev = c.device();
  dispatch_float("matmul backward", c.dtype(), [&]<typename T>() {
    const T* A = a.data<T>();
    const T* B = b.data<T>();
    const T* dC = c.grad<T>();
    T* dA = grad_for<T>(a);
    T* dB = grad_for<T>(b);
    if (d.shared_b && !ta) {
      const int64_t rows = d.batch * d.M;
      if (dA) {
        if (!tb)
          TAPIR_KERNEL(dev, gemm<T>, false, true, rows, d.K, d.N, T(1), dC, B, T(1), dA);
        else
          TAPIR_KERNEL(dev, gemm<T>, false, false, rows, d.K, d.N, T(1), dC, B, T(1), dA);
      }
      if (dB) {
        if (!tb)
          TAPIR_KERNEL(dev, gemm<T>, true, false, d.K, d.N, rows, T(1), A, dC, T(1), dB);
        else
          TAPIR_KERNEL(dev, gemm<T>, true, false, d.N, d.K, rows, T(1), dC, A, T(1), dB);
      }
      return;
    }
    const int64_t sb = d.shared_b ? 0 : d.K * d.N;
    for (int64_t i = 0; i < d.batch; ++i) {
      const T* Ai = A + i * d.M * d.K;
      const T* Bi = B + i * sb;
      const T* dCi = dC + i * d.M * d.N;
      if (dA) {
        T* dAi = dA + i * d.M * d.K;
        if (!ta)
          TAPIR_KERNEL(dev, gemm<T>, false, !tb, d.M, d.K, d.N, T(1), dCi, Bi, T(1), dAi);
        else
          TAPIR_KERNEL(dev, gemm<T>, tb, true, d.K, d.M, d.N, T(1), Bi, dCi, T(1), dAi);
      }
      if (dB) {
        T* dBi = dB + i * sb;
        if (!tb)
          TAPIR_KERNEL(dev, gemm<T>, !ta, false, d.K, d.N, d.M, T(1), Ai, dCi, T(1), dBi);
        else
          TAPIR_KERNEL(dev, gemm<T>, true, ta, d.N, d.K, d.M, T(1), dCi, Ai, T(1), dBi);
      }
    }
  });
}

TAPIR_REGISTER_OP(kMatmul, "matmul", matmul_backward);

}  // namespace

Tensor matmul(Tensor a, Tensor b, bool trans_a, bool trans_b) {
  check_defined("matmul", a, "first operand");
  check_defined("matmul", b, "second operand");
  check_same_dtype("matmul", a, b);
  const Device dev = op_device("matmul", {a, b});
  const MatmulDims d = matmul_dims(a, b, trans_a, trans_b);
  Shape out_shape = a.shape();
  out_shape[-2] = d.M;
  out_shape[-1] = d.N;
  Tensor c = empty(out_shape, a.dtype(), dev);
  dispatch_float("matmul", a.dtype(), [&]<typename T>() {
    matmul_forward<T>(dev, d, trans_a, trans_b, a.data<T>(), b.data<T>(), c.data<T>());
  });
  if (needs_grad({a, b})) {
    Node& node = record(kMatmul, c, {a, b});
    node.i[0] = trans_a;
    node.i[1] = trans_b;
  }
  return c;
}

}  // namespace tapir

namespace tapir {

namespace {

// y = r + x W^T + b. The bias (added to the residual r, when there is one)
// is written into y first and the GEMM accumulates on top (beta = 1), so the
// layer costs one pass over y, not two or three.
void linear_backward(const Node& n) {
  Tensor x = n.input(0), w = n.input(1), b = n.input(2), r = n.input(3), y = n.output();
  const int64_t rows = x.shape().rows(), in = w.dim(1), out = w.dim(0);
  const Device dev = y.device();
  dispatch_float("linear backward", x.dtype(), [&]<typename T>() {
    const T* dy = y.grad<T>();
    bool fresh = false;  // dx just allocated: the GEMM overwrites it
    if (T* dx = grad_for_write<T>(x, &fresh))
      TAPIR_KERNEL(dev, gemm<T>, false, false, rows, in, out, T(1), dy, w.data<T>(),
                   fresh ? T(0) : T(1), dx);
    if (T* dw = grad_for<T>(w))
      TAPIR_KERNEL(dev, gemm<T>, true, false, out, in, rows, T(1), dy, x.data<T>(), T(1), dw);
    // Column sums in row order: deterministic for any thread count.
    if (T* db = grad_for<T>(b)) TAPIR_KERNEL(dev, broadcast_rows_backward<T>, dy, rows, out, db);
    if (T* dr = grad_for<T>(r))  // dr += dy
      TAPIR_KERNEL(dev, binary_backward<T>, BinaryOp::add, dy, y.numel(), dy, y.numel(), dy, dr,
                   nullptr);
  });
}
TAPIR_REGISTER_OP(kLinear, "linear", linear_backward);

}  // namespace

Tensor linear(Tensor x, Tensor weight, Tensor bias, Tensor residual) {
  const char* op = "linear";
  check_defined(op, x, "input");
  check_defined(op, weight, "weight");
  check_same_dtype(op, x, weight);
  const Device dev = op_device(op, {x, weight, bias, residual});
  TAPIR_CHECK(weight.rank() == 2, op, ": weight must be (out, in), got ", weight.describe());
  const int64_t out = weight.dim(0), in = weight.dim(1);
  TAPIR_CHECK(x.rank() >= 1 && x.shape().last() == in, op, ": input ", x.describe(),
              " does not end in ", in, " features");
  if (bias.defined()) {
    check_same_dtype(op, x, bias);
    TAPIR_CHECK(bias.shape() == Shape{out}, op, ": bias must be (", out, "), got ",
                bias.describe());
  }
  Shape out_shape = x.shape();
  out_shape[-1] = out;
  if (residual.defined()) {
    check_same_dtype(op, x, residual);
    TAPIR_CHECK(residual.shape() == out_shape, op, ": residual must be ", out_shape.str(), ", got ",
                residual.describe());
  }
  Tensor y = empty(out_shape, x.dtype(), dev);
  const int64_t rows = x.shape().rows();
  dispatch_float(op, x.dtype(), [&]<typename T>() {
    T* py = y.data<T>();
    if (residual.defined() && bias.defined())
      TAPIR_KERNEL(dev, binary_forward<T>, BinaryOp::add, residual.data<T>(), y.numel(),
                   bias.data<T>(), out, py);
    else if (residual.defined())
      TAPIR_KERNEL(dev, affine_forward<T>, residual.data<T>(), y.numel(), T(1), T(0), py);
    else if (bias.defined())
      TAPIR_KERNEL(dev, broadcast_rows<T>, bias.data<T>(), rows, out, py);
    const bool accumulate = residual.defined() || bias.defined();
    TAPIR_KERNEL(dev, gemm<T>, false, true, rows, out, in, T(1), x.data<T>(), weight.data<T>(),
                 accumulate ? T(1) : T(0), py);
  });
  if (needs_grad({x, weight, bias, residual})) record(kLinear, y, {x, weight, bias, residual});
  return y;
}

}  // namespace tapir
