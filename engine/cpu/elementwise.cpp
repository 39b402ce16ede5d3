// Elementwise kernels: binary ops with suffix broadcasting, unary maps.
#include <cmath>

#include "engine/cpu/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {
constexpr int64_t kGrain = 1 << 14;

// GeLU, exact (erf) form: 0.5 x (1 + erf(x / sqrt(2))).
template <typename T>
inline T gelu(T x) {
  return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
}
template <typename T>
inline T gelu_grad(T x) {
  const T cdf = T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
  const T pdf = std::exp(T(-0.5) * x * x) * T(0.39894228040143267794);  // 1/sqrt(2 pi)
  return cdf + x * pdf;
}
}  // namespace

template <typename T>
void binary_forward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, T* out) {
  const int64_t n = n_a > n_b ? n_a : n_b;
  const int64_t inner = n_a < n_b ? n_a : n_b;  // the repeated (smaller) operand
  parallel_for(n / (inner ? inner : 1), kGrain / (inner ? inner : 1) + 1,
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const T* pa = n_a == n ? a + r * inner : a;
                   const T* pb = n_b == n ? b + r * inner : b;
                   T* po = out + r * inner;
                   switch (op) {
                     case BinaryOp::add:
                       for (int64_t i = 0; i < inner; ++i) po[i] = pa[i] + pb[i];
                       break;
                     case BinaryOp::sub:
                       for (int64_t i = 0; i < inner; ++i) po[i] = pa[i] - pb[i];
                       break;
                     case BinaryOp::mul:
                       for (int64_t i = 0; i < inner; ++i) po[i] = pa[i] * pb[i];
                       break;
                     case BinaryOp::div:
                       for (int64_t i = 0; i < inner; ++i) po[i] = pa[i] / pb[i];
                       break;
                   }
                 }
               });
}

namespace {
template <typename T>
void binary_backward_serial(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b,
                            const T* d_out, T* d_a, T* d_b) {
  const int64_t n = n_a > n_b ? n_a : n_b;
  const int64_t inner = n_a < n_b ? n_a : n_b;
  const int64_t reps = n / (inner ? inner : 1);
  // Rows in a fixed order: the broadcast operand's gradient is a sum over
  // rows, and a serial sum keeps it independent of the thread count.
  for (int64_t r = 0; r < reps; ++r) {
    const T* pa = n_a == n ? a + r * inner : a;
    const T* pb = n_b == n ? b + r * inner : b;
    const T* g = d_out + r * inner;
    T* ga = d_a ? (n_a == n ? d_a + r * inner : d_a) : nullptr;
    T* gb = d_b ? (n_b == n ? d_b + r * inner : d_b) : nullptr;
    for (int64_t i = 0; i < inner; ++i) {
      switch (op) {
        case BinaryOp::add:
          if (ga) ga[i] += g[i];
          if (gb) gb[i] += g[i];
          break;
        case BinaryOp::sub:
          if (ga) ga[i] += g[i];
          if (gb) gb[i] -= g[i];
          break;
        case BinaryOp::mul:
          if (ga) ga[i] += g[i] * pb[i];
          if (gb) gb[i] += g[i] * pa[i];
          break;
        case BinaryOp::div:
          if (ga) ga[i] += g[i] / pb[i];
          if (gb) gb[i] -= g[i] * pa[i] / (pb[i] * pb[i]);
          break;
      }
    }
  }
}
}  // namespace

template <typename T>
void binary_backward(BinaryOp op, const T* a, int64_t n_a, const T* b, int64_t n_b, const T* d_out,
                     T* d_a, T* d_b) {
  if (n_a == n_b) {
    // No broadcasting: elements are independent, split them across threads.
    parallel_for(n_a, kGrain, [&](int64_t i0, int64_t i1) {
      binary_backward_serial(op, a + i0, i1 - i0, b + i0, i1 - i0, d_out + i0,
                             d_a ? d_a + i0 : nullptr, d_b ? d_b + i0 : nullptr);
    });
    return;
  }
  binary_backward_serial(op, a, n_a, b, n_b, d_out, d_a, d_b);
}

template <typename T>
void unary_forward(UnaryOp op, const T* x, int64_t n, T* out) {
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    switch (op) {
      case UnaryOp::exp:
        for (int64_t i = i0; i < i1; ++i) out[i] = std::exp(x[i]);
        break;
      case UnaryOp::log:
        for (int64_t i = i0; i < i1; ++i) out[i] = std::log(x[i]);
        break;
      case UnaryOp::tanh:
        for (int64_t i = i0; i < i1; ++i) out[i] = std::tanh(x[i]);
        break;
      case UnaryOp::sqrt:
        for (int64_t i = i0; i < i1; ++i) out[i] = std::sqrt(x[i]);
        break;
      case UnaryOp::relu:
        for (int64_t i = i0; i < i1; ++i) out[i] = x[i] > T(0) ? x[i] : T(0);
        break;
      case UnaryOp::gelu:
        for (int64_t i = i0; i < i1; ++i) out[i] = gelu(x[i]);
        break;
    }
  });
}

template <typename T>
void unary_backward(UnaryOp op, const T* x, const T* out, const T* d_out, int64_t n, T* d_x) {
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T d = 0;
      switch (op) {
        case UnaryOp::exp:
          d = out[i];
          break;
        case UnaryOp::log:
          d = T(1) / x[i];
          break;
        case UnaryOp::tanh:
          d = T(1) - out[i] * out[i];
          break;
        case UnaryOp::sqrt:
          d = T(0.5) / out[i];
          break;
        case UnaryOp::relu:
          d = x[i] > T(0) ? T(1) : T(0);
          break;
        case UnaryOp::gelu:
          d = gelu_grad(x[i]);
          break;
      }
      d_x[i] += d * d_out[i];
    }
  });
}

template <typename T>
void affine_forward(const T* a, int64_t n, T scale, T shift, T* out) {
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) out[i] = a[i] * scale + shift;
  });
}

#define TAPIR_INSTANTIATE(T)                                                                     \
  template void binary_forward<T>(BinaryOp, const T*, int64_t, const T*, int64_t, T*);           \
  template void binary_backward<T>(BinaryOp, const T*, int64_t, const T*, int64_t, const T*, T*, \
                                   T*);                                                          \
  template void unary_forward<T>(UnaryOp, const T*, int64_t, T*);                                \
  template void unary_backward<T>(UnaryOp, const T*, const T*, const T*, int64_t, T*);           \
  template void affine_forward<T>(const T*, int64_t, T, T, T*);
TAPIR_INSTANTIATE(float)
TAPIR_INSTANTIATE(double)
#undef TAPIR_INSTANTIATE

}  // namespace tapir::cpu
