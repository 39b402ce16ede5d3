// Rotary position embedding (Su et al. 2021) in the half-split convention:
// pair i of a D-vector is (x[i], x[i + D/2]). The angles are computed in
// double on both backends, so they agree to the last bit of the rotation.
#include <cmath>
#include <vector>

#include "engine/kernel_formulas.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {
// Rotates every D-vector of x (B, T, G, D) by angle t * base^(-2i/D) for
// pair i (sign = 1), or by its negative (sign = -1), adding into y when
// accumulate.
template <typename T>
void rotate(const T* x, int64_t B, int64_t T_len, int64_t G, int64_t D, double base, double sign,
            bool accumulate, T* y) {
  const int64_t half = D / 2;
  std::vector<double> freq(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) freq[size_t(i)] = std::pow(base, -double(2 * i) / double(D));
  parallel_for(B * T_len, 4, [&](int64_t r0, int64_t r1) {
    std::vector<T> cs(static_cast<size_t>(D));  // cos in [0, half), sin in [half, D)
    for (int64_t r = r0; r < r1; ++r) {
      const double t = double(r % T_len);
      for (int64_t i = 0; i < half; ++i) {
        const double angle = t * freq[size_t(i)];
        cs[size_t(i)] = static_cast<T>(std::cos(angle));
        cs[size_t(half + i)] = static_cast<T>(sign * std::sin(angle));
      }
      for (int64_t g = 0; g < G; ++g) {
        const T* px = x + (r * G + g) * D;
        T* py = y + (r * G + g) * D;
        for (int64_t i = 0; i < half; ++i)
          rope_rotate_pair(px, py, i, half, cs[size_t(i)], cs[size_t(half + i)], accumulate);
      }
    }
  });
}
}  // namespace

template <typename T>
void rope_forward(const T* x, int64_t B, int64_t T_len, int64_t G, int64_t D, double base, T* y) {
  rotate(x, B, T_len, G, D, base, 1.0, false, y);
}

// The rotation is orthogonal: its transpose (the angle negated) maps d_y to d_x.
template <typename T>
void rope_backward(const T* d_y, int64_t B, int64_t T_len, int64_t G, int64_t D, double base,
                   T* d_x) {
  rotate(d_y, B, T_len, G, D, base, -1.0, true, d_x);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(rope_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(rope_backward);

}  // namespace tapir::cpu
