// Helpers shared by the op implementations: device and dtype dispatch, input
// checks.
//
// Device dispatch: an op runs where its inputs live (op_device() checks they
// agree) and calls TAPIR_KERNEL(dev, name<T>, args...), which calls
// cpu::name<T> for cpu tensors and its twin cuda::name<T>
// (engine/cuda/kernels.h, same signature on device pointers) for cuda
// tensors. The kernels taking an op enum go through the *_on() wrappers
// below, because cpu:: and cuda:: each declare their own enum.
#pragma once
#include <cmath>
#include <initializer_list>

#include "engine/cpu/kernels.h"
#include "engine/tensor.h"
#if TAPIR_HAS_CUDA
#include "engine/cuda/kernels.h"
#endif

namespace tapir {

#if TAPIR_HAS_CUDA
#define TAPIR_KERNEL(dev, kernel, ...)                                 \
  ((dev) == ::tapir::Device::cuda ? ::tapir::cuda::kernel(__VA_ARGS__) \
                                  : ::tapir::cpu::kernel(__VA_ARGS__))
#else
// Without CUDA no tensor can be on cuda (its allocation fails).
#define TAPIR_KERNEL(dev, kernel, ...) ((void)(dev), ::tapir::cpu::kernel(__VA_ARGS__))
#endif

// The device of an op's defined inputs. Inputs on different devices fail
// naming the op and both devices; a cuda tensor fails in a build without CUDA.
inline Device op_device(const char* op, std::initializer_list<Tensor> inputs) {
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (!first) {
      first = &t;
      continue;
    }
    TAPIR_CHECK(t.device() == first->device(), op, ": inputs are on different devices (",
                device_name(first->device()), " and ", device_name(t.device()), ")");
  }
  const Device dev = first ? first->device() : Device::cpu;
#if !TAPIR_HAS_CUDA
  TAPIR_CHECK(dev == Device::cpu, op, ": input is on cuda but tapir was built without CUDA");
#endif
  return dev;
}

// Element 0 of t's gradient as a double, wherever it lives (one value).
inline double grad_item(Tensor t) {
  return grad_view(t).item();
}

template <typename T>
void binary_forward_on(Device dev, cpu::BinaryOp op, const T* a, int64_t n_a, const T* b,
                       int64_t n_b, T* out) {
#if TAPIR_HAS_CUDA
  if (dev == Device::cuda)
    return cuda::binary_forward<T>(static_cast<cuda::BinaryOp>(op), a, n_a, b, n_b, out);
#else
  (void)dev;
#endif
  cpu::binary_forward<T>(op, a, n_a, b, n_b, out);
}

template <typename T>
void binary_backward_on(Device dev, cpu::BinaryOp op, const T* a, int64_t n_a, const T* b,
                        int64_t n_b, const T* d_out, T* d_a, T* d_b) {
#if TAPIR_HAS_CUDA
  if (dev == Device::cuda)
    return cuda::binary_backward<T>(static_cast<cuda::BinaryOp>(op), a, n_a, b, n_b, d_out, d_a,
                                    d_b);
#else
  (void)dev;
#endif
  cpu::binary_backward<T>(op, a, n_a, b, n_b, d_out, d_a, d_b);
}

template <typename T>
void unary_forward_on(Device dev, cpu::UnaryOp op, const T* x, int64_t n, T* out) {
#if TAPIR_HAS_CUDA
  if (dev == Device::cuda) return cuda::unary_forward<T>(static_cast<cuda::UnaryOp>(op), x, n, out);
#else
  (void)dev;
#endif
  cpu::unary_forward<T>(op, x, n, out);
}

template <typename T>
void unary_backward_on(Device dev, cpu::UnaryOp op, const T* x, const T* out, const T* d_out,
                       int64_t n, T* d_x) {
#if TAPIR_HAS_CUDA
  if (dev == Device::cuda)
    return cuda::unary_backward<T>(static_cast<cuda::UnaryOp>(op), x, out, d_out, n, d_x);
#else
  (void)dev;
#endif
  cpu::unary_backward<T>(op, x, out, d_out, n, d_x);
}

// Calls f.template operator()<float>() or <double>() for x's dtype; i32 fails.
template <typename F>
decltype(auto) dispatch_float(const char* op, DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f.template operator()<float>();
    case DType::f64:
      return f.template operator()<double>();
    default:
      fail(op, ": expected an f32 or f64 tensor, got ", dtype_name(t));
  }
}

inline void check_defined(const char* op, Tensor t, const char* what) {
  TAPIR_CHECK(t.defined(), op, ": ", what, " is undefined");
}

inline void check_same_dtype(const char* op, Tensor a, Tensor b) {
  TAPIR_CHECK(a.dtype() == b.dtype(), op, ": dtypes differ (", a.describe(), " and ", b.describe(),
              ")");
}

inline void check_dtype(const char* op, Tensor t, DType want, const char* what) {
  TAPIR_CHECK(t.dtype() == want, op, ": ", what, " must be ", dtype_name(want), ", got ",
              t.describe());
}

// Normalises a possibly negative axis and checks it is in range.
inline int normalize_axis(const char* op, Tensor t, int axis) {
  int a = axis < 0 ? axis + t.rank() : axis;
  TAPIR_CHECK(a >= 0 && a < t.rank(), op, ": axis ", axis, " out of range for ", t.describe());
  return a;
}

// Checks a spline's values (..., K) and range and returns its knot grid.
inline cpu::SplineGrid spline_grid(const char* op, Tensor values, double lo, double hi,
                                   bool linear_extrapolation) {
  check_defined(op, values, "values");
  const int64_t K = values.rank() >= 1 ? values.shape().last() : 0;
  TAPIR_CHECK(K >= 2, op, ": spline values must have at least 2 knots, got ", values.describe());
  TAPIR_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi, op,
              ": spline range must be finite with lo < hi, got [", lo, ", ", hi, "]");
  return cpu::SplineGrid{K, lo, hi, linear_extrapolation};
}

}  // namespace tapir
