// Rotary position embedding in the half-split convention (engine/cpu/rope.cpp):
// one thread per pair (x[i], x[i + D/2]) of a D-vector; the angle is computed
// in double, as on the CPU.
#include "engine/cuda/common.cuh"
#include "engine/kernel_formulas.h"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

// Rotates by angle t * base^(-2i/D) (sign 1) or its negative (sign -1);
// adds into y when accumulate.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    rope_kernel(const T* x, int64_t B, int64_t T_len, int64_t G, int64_t D, double base,
                double sign, bool accumulate, T* y) {
  const int64_t half = D / 2;
  const int64_t pairs = B * T_len * G * half;
  TAPIR_GRID_STRIDE(p, pairs) {
    const int64_t i = p % half;
    const int64_t vec = p / half;  // (b, t, g) flattened
    const double t = double((vec / G) % T_len);
    const double angle = t * pow(base, -double(2 * i) / double(D));
    const T c = static_cast<T>(cos(angle)), s = static_cast<T>(sign * sin(angle));
    rope_rotate_pair(x + vec * D, y + vec * D, i, half, c, s, accumulate);
  }
}

}  // namespace

template <typename T>
void rope_forward(const T* x, int64_t B, int64_t T_len, int64_t G, int64_t D, double base, T* y) {
  const int64_t pairs = B * T_len * G * (D / 2);
  if (pairs <= 0) return;
  rope_kernel<<<grid_for(pairs), kThreads, 0, stream()>>>(x, B, T_len, G, D, base, 1.0, false, y);
  TAPIR_LAUNCH_CHECK("rope_kernel");
}

// The rotation is orthogonal: its transpose (the angle negated) maps d_y to d_x.
template <typename T>
void rope_backward(const T* d_y, int64_t B, int64_t T_len, int64_t G, int64_t D, double base,
                   T* d_x) {
  const int64_t pairs = B * T_len * G * (D / 2);
  if (pairs <= 0) return;
  rope_kernel<<<grid_for(pairs), kThreads, 0, stream()>>>(d_y, B, T_len, G, D, base, -1.0, true,
                                                          d_x);
  TAPIR_LAUNCH_CHECK("rope_kernel");
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(rope_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rope_backward);

}  // namespace tapir::cuda
