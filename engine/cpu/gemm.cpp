// Matrix products through OpenBLAS (cblas_sgemm / cblas_dgemm, row-major).
#include <cblas.h>

#include "engine/cpu/kernels.h"

namespace tapir::cpu {

template <>
void gemm<float>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                 const float* A, const float* B, float beta, float* C) {
  if (M == 0 || N == 0) return;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(M), static_cast<int>(N),
              static_cast<int>(K), alpha, A, static_cast<int>(trans_a ? M : K), B,
              static_cast<int>(trans_b ? K : N), beta, C, static_cast<int>(N));
}

template <>
void gemm<double>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
                  const double* A, const double* B, double beta, double* C) {
  if (M == 0 || N == 0) return;
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(M), static_cast<int>(N),
              static_cast<int>(K), alpha, A, static_cast<int>(trans_a ? M : K), B,
              static_cast<int>(trans_b ? K : N), beta, C, static_cast<int>(N));
}

}  // namespace tapir::cpu
