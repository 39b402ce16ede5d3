// Elementwise kernels: binary ops with suffix broadcasting, unary maps (their
// formulas shared with the CPU: engine/unary_formulas.h), affine maps, fixed
// polynomials. One thread per element (grid-stride, 64-bit indices); the
// broadcast operand's gradient is a column sum with a fixed tree
// (column_sums in common.cuh).
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"
#include "engine/unary_formulas.h"

namespace tapir::cuda {

namespace {

template <typename T>
__device__ inline T apply(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::add:
      return a + b;
    case BinaryOp::sub:
      return a - b;
    case BinaryOp::mul:
      return a * b;
    case BinaryOp::div:
      return a / b;
  }
  return a;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    binary_forward_kernel(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, int64_t n,
                          int64_t inner, T* out) {
  TAPIR_GRID_STRIDE(i, n) {
    out[i] = apply(op, a[n_a == n ? i : i % inner], b[n_b == n ? i : i % inner]);
  }
}

// The gradient of a (which_b false) or b (which_b true) at one element.
template <typename T>
__device__ inline T binary_grad(BinaryOp op, bool which_b, T a, T b, T g) {
  switch (op) {
    case BinaryOp::add:
      return g;
    case BinaryOp::sub:
      return which_b ? -g : g;
    case BinaryOp::mul:
      return which_b ? g * a : g * b;
    case BinaryOp::div:
      return which_b ? -(g * a / (b * b)) : g / b;
  }
  return g;
}

// Gradients of the full-size operands (d_a, d_b null when not full-size or
// not needed).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    binary_backward_full_kernel(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b,
                                const T* d_out, int64_t n, int64_t inner, T* d_a, T* d_b) {
  TAPIR_GRID_STRIDE(i, n) {
    const T av = a[n_a == n ? i : i % inner], bv = b[n_b == n ? i : i % inner], g = d_out[i];
    if (d_a) d_a[i] += binary_grad(op, false, av, bv, g);
    if (d_b) d_b[i] += binary_grad(op, true, av, bv, g);
  }
}

// The broadcast operand's gradient: rows r of the full operand, column i.
template <typename T>
struct BroadcastGrad {
  BinaryOp op;
  bool small_is_b;
  const T *a, *b, *d_out;
  int64_t inner;
  __device__ T operator()(int64_t, int64_t r, int64_t i) const {
    const int64_t full = r * inner + i;
    const T av = a[small_is_b ? full : i], bv = b[small_is_b ? i : full];
    return binary_grad(op, small_is_b, av, bv, d_out[full]);
  }
};

// One op's formula (engine/unary_formulas.h), one thread per element.
template <typename F, typename T>
__global__ void __launch_bounds__(kThreads) unary_forward_kernel(const T* x, int64_t n, T* out) {
  TAPIR_GRID_STRIDE(i, n) {
    out[i] = F::value(x[i]);
  }
}

template <typename F, typename T>
__global__ void __launch_bounds__(kThreads)
    unary_backward_kernel(const T* x, const T* out, const T* d_out, int64_t n, T* d_x,
                          bool accumulate) {
  TAPIR_GRID_STRIDE(i, n) {
    const T d = F::grad(x[i], out[i], d_out[i]);
    d_x[i] = accumulate ? d_x[i] + d : d;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    affine_kernel(const T* a, int64_t n, T scale, T shift, T* out) {
  TAPIR_GRID_STRIDE(i, n) {
    out[i] = a[i] * scale + shift;
  }
}

// Horner's rule for p(t) and p'(t) together (see the CPU twin).
template <typename T>
__device__ T poly_value(const T* c, int64_t count, T t, T* slope) {
  T p = c[count - 1], dp = 0;
  for (int64_t k = count - 2; k >= 0; --k) {
    dp = dp * t + p;
    p = p * t + c[k];
  }
  if (slope) *slope = dp;
  return p;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    poly_forward_kernel(const T* x, int64_t n, const T* c, int64_t count, T scale, T shift,
                        bool clamp, T* out) {
  TAPIR_GRID_STRIDE(i, n) {
    T t = x[i] * scale + shift;
    if (clamp) t = t < T(-1) ? T(-1) : (t > T(1) ? T(1) : t);
    out[i] = poly_value<T>(c, count, t, nullptr);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    poly_backward_kernel(const T* x, const T* d_out, int64_t n, const T* c, int64_t count, T scale,
                         T shift, bool clamp, T* d_x) {
  TAPIR_GRID_STRIDE(i, n) {
    const T t = x[i] * scale + shift;
    if (clamp && (t < T(-1) || t > T(1))) continue;
    T slope;
    poly_value<T>(c, count, t, &slope);
    d_x[i] += d_out[i] * scale * slope;
  }
}

}  // namespace

template <typename T>
void binary_forward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, T* out) {
  const int64_t n = n_a > n_b ? n_a : n_b;
  const int64_t inner = n_a < n_b ? n_a : n_b;
  if (n <= 0 || inner <= 0) return;
  binary_forward_kernel<<<grid_for(n), kThreads, 0, stream()>>>(op, a, n_a, b, n_b, n, inner, out);
  TAPIR_LAUNCH_CHECK("binary_forward_kernel");
}

template <typename T>
void binary_backward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, const T* d_out,
                     T* d_a, T* d_b) {
  const int64_t n = n_a > n_b ? n_a : n_b;
  const int64_t inner = n_a < n_b ? n_a : n_b;
  if (n <= 0 || inner <= 0 || (!d_a && !d_b)) return;
  T* full_a = n_a == n ? d_a : nullptr;
  T* full_b = n_b == n ? d_b : nullptr;
  if (full_a || full_b) {
    binary_backward_full_kernel<<<grid_for(n), kThreads, 0, stream()>>>(op, a, n_a, b, n_b, d_out,
                                                                        n, inner, full_a, full_b);
    TAPIR_LAUNCH_CHECK("binary_backward_full_kernel");
  }
  if (n_a == n_b) return;
  const bool small_is_b = n_b < n_a;
  T* d_small = small_is_b ? d_b : d_a;
  if (!d_small) return;
  column_sums<T>(BroadcastGrad<T>{op, small_is_b, a, b, d_out, inner}, AddInto<T>{d_small, inner},
                 1, n / inner, inner);
}

template <typename T>
void unary_forward(UnaryOp op, const T* x, int64_t n, T* out) {
  if (n <= 0) return;
  visit_unary_op(op, [&](auto formula) {
    unary_forward_kernel<decltype(formula), T><<<grid_for(n), kThreads, 0, stream()>>>(x, n, out);
    TAPIR_LAUNCH_CHECK("unary_forward_kernel");
  });
}

template <typename T>
void unary_backward(UnaryOp op, const T* x, const T* out, const T* d_out, int64_t n, T* d_x,
                    bool accumulate) {
  if (n <= 0 || !d_x) return;
  visit_unary_op(op, [&](auto formula) {
    unary_backward_kernel<decltype(formula), T>
        <<<grid_for(n), kThreads, 0, stream()>>>(x, out, d_out, n, d_x, accumulate);
    TAPIR_LAUNCH_CHECK("unary_backward_kernel");
  });
}

template <typename T>
void affine_forward(const T* a, int64_t n, T scale, T shift, T* out) {
  if (n <= 0) return;
  affine_kernel<<<grid_for(n), kThreads, 0, stream()>>>(a, n, scale, shift, out);
  TAPIR_LAUNCH_CHECK("affine_kernel");
}

template <typename T>
void poly_forward(const T* x, int64_t n, const T* c, int64_t count, T scale, T shift, bool clamp,
                  T* out) {
  if (n <= 0) return;
  poly_forward_kernel<<<grid_for(n), kThreads, 0, stream()>>>(x, n, c, count, scale, shift, clamp,
                                                              out);
  TAPIR_LAUNCH_CHECK("poly_forward_kernel");
}

template <typename T>
void poly_backward(const T* x, const T* d_out, int64_t n, const T* c, int64_t count, T scale,
                   T shift, bool clamp, T* d_x) {
  if (n <= 0 || !d_x) return;
  poly_backward_kernel<<<grid_for(n), kThreads, 0, stream()>>>(x, d_out, n, c, count, scale, shift,
                                                               clamp, d_x);
  TAPIR_LAUNCH_CHECK("poly_backward_kernel");
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(binary_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(binary_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(unary_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(unary_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(affine_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(poly_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(poly_backward);

}  // namespace tapir::cuda
