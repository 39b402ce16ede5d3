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

// SGD on one f32 parameter w with gradient g: w -= lr (g + weight_decay w),
// or, with momentum, through the velocity v (Nesterov's look-ahead when
// asked).
TAPIR_HOST_DEVICE inline void sgd_step(float& w, float g, float lr, float weight_decay) {
  w -= lr * (g + weight_decay * w);
}
TAPIR_HOST_DEVICE inline void sgd_momentum_step(float& w, float g, float& velocity, float lr,
                                                float momentum, float weight_decay, bool nesterov) {
  const float grad = g + weight_decay * w;
  const float v = momentum * velocity + grad;
  velocity = v;
  w -= lr * (nesterov ? grad + momentum * v : v);
}

// Adam's per-step scalars, formed once per call in double from the step's
// bias corrections and rounded to float. Decoupled decay (AdamW) multiplies
// w by shrink; coupled decay adds l2 w to the gradient; one of the two is
// the identity.
struct AdamScalars {
  float step_size, correction2_sqrt, beta1, beta2, one_minus_beta1, one_minus_beta2, eps, shrink,
      l2;
};
// step is 1-based (the caller checks).
inline AdamScalars adam_scalars(float lr, float beta1, float beta2, float eps, float weight_decay,
                                bool decoupled, int64_t step) {
  const double t = static_cast<double>(step);
  const double correction1 = 1.0 - std::pow(static_cast<double>(beta1), t);
  const double correction2 = 1.0 - std::pow(static_cast<double>(beta2), t);
  return {static_cast<float>(static_cast<double>(lr) / correction1),
          static_cast<float>(std::sqrt(correction2)),
          beta1,
          beta2,
          1.0f - beta1,
          1.0f - beta2,
          eps,
          decoupled ? 1.0f - lr * weight_decay : 1.0f,
          decoupled ? 0.0f : weight_decay};
}
// One parameter's Adam step: the moments m and v, then w.
TAPIR_HOST_DEVICE inline void adam_step(const AdamScalars& s, float& w, float g, float& m,
                                        float& v) {
  using std::sqrt;
  const float wi = w * s.shrink;
  const float grad = g + s.l2 * wi;
  const float mi = s.beta1 * m + s.one_minus_beta1 * grad;
  const float vi = s.beta2 * v + s.one_minus_beta2 * grad * grad;
  m = mi;
  v = vi;
  w = wi - s.step_size * mi / (sqrt(vi) / s.correction2_sqrt + s.eps);
}

}  // namespace tapir
