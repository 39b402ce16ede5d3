// Elementwise kernels: binary ops with suffix broadcasting, unary maps, affine
// maps and fixed polynomials.
#include <algorithm>
#include <cmath>

#include "engine/cpu/eigen.h"
#include "engine/cpu/store_grad.h"
#include "engine/kernels.h"
#include "engine/threads.h"
#include "engine/unary_formulas.h"

namespace tapir::cpu {

namespace {
constexpr int64_t kGrain = 1 << 14;
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
    // One loop per (op, operand): the switch and null checks stay outside,
    // so every loop vectorises.
    switch (op) {
      case BinaryOp::add:
        if (ga)
          for (int64_t i = 0; i < inner; ++i) ga[i] += g[i];
        if (gb)
          for (int64_t i = 0; i < inner; ++i) gb[i] += g[i];
        break;
      case BinaryOp::sub:
        if (ga)
          for (int64_t i = 0; i < inner; ++i) ga[i] += g[i];
        if (gb)
          for (int64_t i = 0; i < inner; ++i) gb[i] -= g[i];
        break;
      case BinaryOp::mul:
        if (ga)
          for (int64_t i = 0; i < inner; ++i) ga[i] += g[i] * pb[i];
        if (gb)
          for (int64_t i = 0; i < inner; ++i) gb[i] += g[i] * pa[i];
        break;
      case BinaryOp::div:
        if (ga)
          for (int64_t i = 0; i < inner; ++i) ga[i] += g[i] / pb[i];
        if (gb)
          for (int64_t i = 0; i < inner; ++i) gb[i] -= g[i] * pa[i] / (pb[i] * pb[i]);
        break;
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

namespace {
// One op's formula (engine/unary_formulas.h) over elements [0, n): on Eigen
// arrays where the formula allows it, so that it vectorises, else element by
// element in a loop the compiler vectorises where it can.
template <typename F, typename T>
void unary_forward_range(const T* x, int64_t n, T* out) {
  if constexpr (F::kOnArrays) {
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> X(x, n);
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> Y(out, n);
    Y = F::value(X);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = F::value(x[i]);
  }
}
template <typename F, typename T>
void unary_backward_range(const T* x, const T* out, const T* d_out, int64_t n, T* d_x,
                          bool accumulate) {
  if constexpr (F::kOnArrays) {
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> X(x, n), Y(out, n), G(d_out, n);
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> DX(d_x, n);
    if (accumulate)
      DX += F::grad(X, Y, G);
    else
      DX = F::grad(X, Y, G);
  } else {
    store_grad(accumulate, 0, n, d_x, [&](int64_t i) { return F::grad(x[i], out[i], d_out[i]); });
  }
}
}  // namespace

template <typename T>
void unary_forward(UnaryOp op, const T* x, int64_t n, T* out) {
  visit_unary_op(op, [&](auto formula) {
    using F = decltype(formula);
    parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
      unary_forward_range<F>(x + i0, i1 - i0, out + i0);
    });
  });
}

template <typename T>
void unary_backward(UnaryOp op, const T* x, const T* out, const T* d_out, int64_t n, T* d_x,
                    bool accumulate) {
  visit_unary_op(op, [&](auto formula) {
    using F = decltype(formula);
    parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
      unary_backward_range<F>(x + i0, out + i0, d_out + i0, i1 - i0, d_x + i0, accumulate);
    });
  });
}

template <typename T>
void affine_forward(const T* a, int64_t n, T scale, T shift, T* out) {
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) out[i] = a[i] * scale + shift;
  });
}

namespace {
// Horner's rule over a chunk of elements at a time, the coefficient loop
// outside, so that the loop over the elements vectorises. t is clamped onto
// [-1, 1] when asked (the polynomial is then constant outside its range).
constexpr int64_t kPolyChunk = 256;

template <typename T>
void poly_t(const T* x, int64_t n, T scale, T shift, bool clamp, T* t) {
  for (int64_t j = 0; j < n; ++j) t[j] = x[j] * scale + shift;
  if (clamp)
    for (int64_t j = 0; j < n; ++j) t[j] = std::min(std::max(t[j], T(-1)), T(1));
}
}  // namespace

template <typename T>
void poly_forward(const T* x, int64_t n, const T* c, int64_t count, T scale, T shift, bool clamp,
                  T* out) {
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    T t[kPolyChunk];
    for (int64_t b = i0; b < i1; b += kPolyChunk) {
      const int64_t m = std::min(kPolyChunk, i1 - b);
      poly_t(x + b, m, scale, shift, clamp, t);
      T* p = out + b;
      for (int64_t j = 0; j < m; ++j) p[j] = c[count - 1];
      for (int64_t k = count - 2; k >= 0; --k)
        for (int64_t j = 0; j < m; ++j) p[j] = p[j] * t[j] + c[k];
    }
  });
}

template <typename T>
void poly_backward(const T* x, const T* d_out, int64_t n, const T* c, int64_t count, T scale,
                   T shift, bool clamp, T* d_x) {
  if (!d_x) return;
  parallel_for(n, kGrain, [&](int64_t i0, int64_t i1) {
    T t[kPolyChunk], p[kPolyChunk], dp[kPolyChunk];
    for (int64_t b = i0; b < i1; b += kPolyChunk) {
      const int64_t m = std::min(kPolyChunk, i1 - b);
      poly_t(x + b, m, scale, shift, false, t);
      for (int64_t j = 0; j < m; ++j) {
        p[j] = c[count - 1];
        dp[j] = 0;
      }
      for (int64_t k = count - 2; k >= 0; --k)
        for (int64_t j = 0; j < m; ++j) {
          dp[j] = dp[j] * t[j] + p[j];
          p[j] = p[j] * t[j] + c[k];
        }
      // Where t was clamped the output does not move with x.
      for (int64_t j = 0; j < m; ++j) {
        const bool inside = !clamp || (t[j] >= T(-1) && t[j] <= T(1));
        d_x[b + j] += inside ? d_out[b + j] * scale * dp[j] : T(0);
      }
    }
  });
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(binary_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(binary_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(unary_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(unary_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(affine_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(poly_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(poly_backward);

}  // namespace tapir::cpu
