// What the CUDA parity tests share (tests/test_cuda_*.cpp): skipping when no
// GPU can be used, random host inputs, device copies of host vectors, and the
// comparison of a CPU kernel's output with its CUDA twin's.
//
// Tolerances are per kernel and relative to the array's scale: element i
// passes when |cpu - gpu| <= tol * (|cpu| + max |cpu|), so a small entry of
// an array whose other entries are large is held to the array's precision,
// not its own. NaN matches NaN, inf matches the same inf.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/cuda/runtime.h"
#include "engine/rng.h"

namespace cuda_parity {

// True when a GPU can run the case; otherwise says why the case is skipped.
inline bool gpu_or_skip() {
  if (tapir::cuda::cuda_available()) return true;
  MESSAGE("skipped: no usable GPU (" << tapir::cuda::device_description() << ")");
  return false;
}

template <typename T>
std::vector<T> random_vector(int64_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::vector<double> d(static_cast<size_t>(n));
  tapir::Rng rng(seed, 0);
  rng.fill_uniform<double>(d.data(), n, lo, hi);
  return std::vector<T>(d.begin(), d.end());
}

// A device copy of a host vector, freed on destruction.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host)
      : n_(host.size()), p_(static_cast<T*>(tapir::cuda::device_alloc(bytes()))) {
    tapir::cuda::copy_to_device(p_, host.data(), bytes());
  }
  ~DeviceArray() { tapir::cuda::device_free(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }
  std::vector<T> host() const {
    std::vector<T> out(n_);
    tapir::cuda::synchronize();  // surfaces a failed kernel as an error here
    tapir::cuda::copy_to_host(out.data(), p_, bytes());
    return out;
  }

 private:
  size_t bytes() const { return n_ * sizeof(T); }
  size_t n_;
  T* p_;
};

template <typename T>
bool same_value(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Checks gpu against cpu within tol (see the header comment).
template <typename T>
void check_close(const char* what, const std::vector<T>& cpu, const std::vector<T>& gpu,
                 double tol) {
  REQUIRE(cpu.size() == gpu.size());
  double scale = 0;
  for (T v : cpu)
    if (std::isfinite(v)) scale = std::fmax(scale, std::fabs(double(v)));
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double a = cpu[i], b = gpu[i];
    if (same_value(a, b)) continue;
    const bool ok = std::fabs(a - b) <= tol * (std::fabs(a) + scale);
    if (!ok) {
      FAIL_CHECK(what << ": element " << i << " of " << cpu.size() << ": cpu " << a << ", gpu " << b
                      << " (tolerance " << tol << " relative to " << scale << ")");
      return;  // one report per array
    }
  }
}

// The same bits, element by element (determinism checks).
template <typename T>
void check_same_bits(const char* what, const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  CHECK_MESSAGE(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0,
                what << ": two runs of the same kernel differ");
}

// Per-kernel tolerances: f64 tight; f32 as stated at each use.
template <typename T>
constexpr double tol(double f32) {
  return sizeof(T) == sizeof(double) ? 1e-12 : f32;
}

}  // namespace cuda_parity
