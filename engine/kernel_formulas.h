// Formulas that the CPU kernels (engine/cpu/) and the CUDA kernels
// (engine/cuda/) share, written once: each is an inline function that both
// compilers build, the host's for the CPU and nvcc's for the device. A
// kernel keeps its own loop (a thread pool's rows, a grid's threads); what
// it computes for one element or one pair comes from here, so the two
// backends cannot drift apart.
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define TAPIR_HOST_DEVICE __host__ __device__
#else
#define TAPIR_HOST_DEVICE
#endif

namespace tapir {

// RoPE in the half-split convention: pair i of the D-vector x is
// (x[i], x[i + half]), rotated by the angle whose cosine is c and whose
// sine is s (the sine negated for the transpose), written into y, or added
// to it when accumulate.
template <typename T>
TAPIR_HOST_DEVICE inline void rope_rotate_pair(const T* x, T* y, int64_t i, int64_t half, T c, T s,
                                               bool accumulate) {
  const T a = x[i] * c + x[half + i] * s;
  const T b = x[half + i] * c - x[i] * s;
  y[i] = accumulate ? y[i] + a : a;
  y[half + i] = accumulate ? y[half + i] + b : b;
}

// softplus(g) = log(1 + e^g), without overflow for large g; its derivative
// sigmoid(g), without overflow for very negative g. The feature map of the
// feature-kernel attention, phi = softplus(spline) + eps.
template <typename T>
TAPIR_HOST_DEVICE inline T softplus(T g) {
  using std::exp;
  using std::log1p;
  return g > T(0) ? g + log1p(exp(-g)) : log1p(exp(g));
}
template <typename T>
TAPIR_HOST_DEVICE inline T sigmoid(T g) {
  using std::exp;
  if (g >= T(0)) return T(1) / (T(1) + exp(-g));
  const T e = exp(g);
  return e / (T(1) + e);
}

}  // namespace tapir
