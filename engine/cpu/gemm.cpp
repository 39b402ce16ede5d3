// Matrix products through OpenBLAS (cblas_sgemm / cblas_dgemm, row-major),
// timed into kernel_profile() so the benchmark can report their share.
#include <cblas.h>

#include <chrono>

#include "engine/kernels.h"
#include "engine/profile.h"

namespace tapir {

KernelProfile& kernel_profile() {
  static KernelProfile profile;
  return profile;
}

namespace cpu {

namespace {

class GemmTimer {
 public:
  GemmTimer(int64_t M, int64_t N, int64_t K)
      : flops_(2.0 * double(M) * double(N) * double(K)), start_(std::chrono::steady_clock::now()) {}
  ~GemmTimer() {
    KernelProfile& p = kernel_profile();
    p.gemm_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    p.gemm_calls += 1;
    p.gemm_flops += flops_;
  }

 private:
  double flops_;
  std::chrono::steady_clock::time_point start_;
};

CBLAS_TRANSPOSE flag(bool t) {
  return t ? CblasTrans : CblasNoTrans;
}
int as_int(int64_t n) {
  return static_cast<int>(n);
}
// BLAS requires leading dimensions of at least 1, even for empty operands.
int ld(int64_t n) {
  return static_cast<int>(n > 1 ? n : 1);
}

}  // namespace

template <>
void gemm<float>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                 const float* A, const float* B, float beta, float* C) {
  if (M == 0 || N == 0) return;
  GemmTimer timer(M, N, K);
  cblas_sgemm(CblasRowMajor, flag(trans_a), flag(trans_b), as_int(M), as_int(N), as_int(K), alpha,
              A, ld(trans_a ? M : K), B, ld(trans_b ? K : N), beta, C, ld(N));
}

template <>
void gemm<double>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
                  const double* A, const double* B, double beta, double* C) {
  if (M == 0 || N == 0) return;
  GemmTimer timer(M, N, K);
  cblas_dgemm(CblasRowMajor, flag(trans_a), flag(trans_b), as_int(M), as_int(N), as_int(K), alpha,
              A, ld(trans_a ? M : K), B, ld(trans_b ? K : N), beta, C, ld(N));
}

}  // namespace cpu
}  // namespace tapir
