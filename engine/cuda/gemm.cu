// Matrix products through cuBLAS. tapir's arrays are row-major and cuBLAS is
// column-major: a row-major (M, N) C is a column-major (N, M) C^T, and
// C^T = op(B)^T op(A)^T, so the call swaps the operands (and M with N) and
// keeps each operand's transpose flag. The handle runs in pedantic math mode
// (runtime.cu): no TF32, so f32 products keep f32 precision.
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

cublasOperation_t flag(bool t) {
  return t ? CUBLAS_OP_T : CUBLAS_OP_N;
}
int as_int(int64_t n, const char* what) {
  TAPIR_CHECK(n >= 0 && n <= int64_t(0x7fffffff), "cuda::gemm: ", what, " = ", n,
              " does not fit cuBLAS's 32-bit sizes");
  return static_cast<int>(n);
}
// cuBLAS requires leading dimensions of at least 1, even for empty operands.
int ld(int64_t n) {
  return as_int(n > 1 ? n : 1, "leading dimension");
}

}  // namespace

template <>
void gemm<float>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                 const float* A, const float* B, float beta, float* C) {
  if (M == 0 || N == 0) return;
  TAPIR_CUBLAS_CHECK(cublas().sgemm(cublas_handle(), flag(trans_b), flag(trans_a), as_int(N, "N"),
                                    as_int(M, "M"), as_int(K, "K"), &alpha, B, ld(trans_b ? K : N),
                                    A, ld(trans_a ? M : K), &beta, C, ld(N)));
}

template <>
void gemm<double>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
                  const double* A, const double* B, double beta, double* C) {
  if (M == 0 || N == 0) return;
  TAPIR_CUBLAS_CHECK(cublas().dgemm(cublas_handle(), flag(trans_b), flag(trans_a), as_int(N, "N"),
                                    as_int(M, "M"), as_int(K, "K"), &alpha, B, ld(trans_b ? K : N),
                                    A, ld(trans_a ? M : K), &beta, C, ld(N)));
}

namespace {

// The same swap as gemm: column-major C_n^T = op(B_n)^T op(A_n)^T.
template <typename T, typename Call>
void strided_batched(Call call, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                     T alpha, const T* A, Strided a, const T* B, Strided b, T beta, T* C, Strided c,
                     int64_t batch) {
  if (M == 0 || N == 0 || batch == 0) return;
  TAPIR_CUBLAS_CHECK(call(cublas_handle(), flag(trans_b), flag(trans_a), as_int(N, "N"),
                          as_int(M, "M"), as_int(K, "K"), &alpha, B, ld(b.ld), b.stride, A,
                          ld(a.ld), a.stride, &beta, C, ld(c.ld), c.stride,
                          as_int(batch, "batch")));
}

}  // namespace

template <>
void gemm_strided_batched<float>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                                 float alpha, const float* A, Strided a, const float* B, Strided b,
                                 float beta, float* C, Strided c, int64_t batch) {
  strided_batched(cublas().sgemm_strided_batched, trans_a, trans_b, M, N, K, alpha, A, a, B, b,
                  beta, C, c, batch);
}

template <>
void gemm_strided_batched<double>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                                  double alpha, const double* A, Strided a, const double* B,
                                  Strided b, double beta, double* C, Strided c, int64_t batch) {
  strided_batched(cublas().dgemm_strided_batched, trans_a, trans_b, M, N, K, alpha, A, a, B, b,
                  beta, C, c, batch);
}

}  // namespace tapir::cuda
