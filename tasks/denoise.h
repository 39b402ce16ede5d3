// The signal behind the denoise task (tasks/denoise.cpp), exposed so that
// tests can check its invariants: sequences of T frames, each a vector of n
// values that is sparse in a fixed random dictionary and correlated in time.
//
// The dictionary holds K atoms d_k in R^n, unit-norm, drawn once from the data
// seed. A sequence picks s distinct atoms (its support) and gives each an
// amplitude that follows a stationary AR(1) process with unit variance,
//   a_0 ~ N(0, 1),  a_t = rho a_{t-1} + sqrt(1 - rho^2) e_t,  e_t ~ N(0, 1),
// and frame t is x_t = sqrt(n / s) sum_j a_{t,j} d_{k_j}. The factor makes
// E[x^2] = 1 per entry (cross terms vanish in expectation), so the clean
// frames have unit RMS and a noise of std sigma has a signal-to-noise ratio
// of 1 / sigma^2. The noise is drawn as standard normal values, and the noisy
// input is x + sigma * noise.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/rng.h"

namespace tapir {

class DenoiseSignal {
 public:
  DenoiseSignal(int64_t frames, int64_t dim, int64_t atoms, int64_t active, double rho,
                uint64_t data_seed);

  struct Sequence {
    std::vector<int32_t> support;  // (s): atom ids, distinct
    std::vector<float> amplitude;  // (T, s): a_{t,j}
    std::vector<float> clean;      // (T, n)
    std::vector<float> noise;      // (T, n): standard normal
  };
  void draw(Rng& rng, Sequence& out) const;

  const std::vector<float>& dictionary() const { return dictionary_; }  // (K, n), unit rows
  double scale() const;                                                 // sqrt(n / s)
  int64_t frames() const { return frames_; }
  int64_t dim() const { return dim_; }
  int64_t atoms() const { return atoms_; }
  int64_t active() const { return active_; }
  double rho() const { return rho_; }

 private:
  int64_t frames_, dim_, atoms_, active_;
  double rho_;
  std::vector<float> dictionary_;
};

}  // namespace tapir
