// Matrix products through OpenBLAS (cblas_sgemm / cblas_dgemm, row-major),
// timed into kernel_profile() so the benchmark can report their share.
// OpenBLAS runs one thread (engine/threads.h); a product large enough is
// split into blocks of C's rows (or of its columns, when it has fewer rows),
// each a single-threaded BLAS call on the pool, so that a busy core delays
// no one. The blocks depend only on the shape and the thread count.
#include <cblas.h>

#include <algorithm>
#include <chrono>

#include "engine/kernels.h"
#include "engine/profile.h"
#include "engine/threads.h"

namespace tapir {

KernelProfile& kernel_profile() {
  thread_local KernelProfile profile;
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

// A block is worth a thread when it holds at least this many FLOPs (about
// 40 microseconds of one core's GEMM peak, well above a worker's wake-up).
constexpr double kMinBlockFlops = 4e6;
// Block boundaries fall on multiples of this many rows or columns, the
// width of BLAS micro-kernels' tiles.
constexpr int64_t kTile = 16;

// Calls blas(trans_a, trans_b, m, n, A', B', C') on blocks of C that cover
// it once; A', B' and C' point at each block's operands.
template <typename T, typename Blas>
void split_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const T* A, const T* B,
                T* C, Blas&& blas) {
  const double flops = 2.0 * double(M) * double(N) * double(K);
  // Too little work for two blocks (an empty inner dimension, K = 0, has
  // none at all, and would make min_tiles below infinite): one call.
  if (num_threads() == 1 || flops < 2 * kMinBlockFlops) {
    blas(M, N, A, B, C);
    return;
  }
  const bool by_rows = M >= N;
  const int64_t extent = by_rows ? M : N;
  const int64_t tiles = (extent + kTile - 1) / kTile;
  // The fewest tiles a block may have to be worth its thread.
  const double per_tile = flops / double(tiles);
  const int64_t min_tiles =
      per_tile >= kMinBlockFlops ? 1 : static_cast<int64_t>(kMinBlockFlops / per_tile) + 1;
  if (tiles < 2 * min_tiles) {
    blas(M, N, A, B, C);
    return;
  }
  const int64_t lda = trans_a ? M : K, ldb = trans_b ? K : N;
  parallel_for(tiles, min_tiles, [&](int64_t begin, int64_t end) {
    const int64_t lo = begin * kTile, hi = std::min(end * kTile, extent);
    if (by_rows)  // rows lo..hi of C: the same rows of op(A)
      blas(hi - lo, N, A + (trans_a ? lo : lo * lda), B, C + lo * N);
    else  // columns lo..hi of C: the same columns of op(B)
      blas(M, hi - lo, A, B + (trans_b ? lo * ldb : lo), C + lo);
  });
}

}  // namespace

template <>
void gemm<float>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                 const float* A, const float* B, float beta, float* C) {
  if (M == 0 || N == 0) return;
  GemmTimer timer(M, N, K);
  split_gemm(trans_a, trans_b, M, N, K, A, B, C,
             [&](int64_t m, int64_t n, const float* a, const float* b, float* c) {
               cblas_sgemm(CblasRowMajor, flag(trans_a), flag(trans_b), as_int(m), as_int(n),
                           as_int(K), alpha, a, ld(trans_a ? M : K), b, ld(trans_b ? K : N), beta,
                           c, ld(N));
             });
}

template <>
void gemm<double>(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
                  const double* A, const double* B, double beta, double* C) {
  if (M == 0 || N == 0) return;
  GemmTimer timer(M, N, K);
  split_gemm(trans_a, trans_b, M, N, K, A, B, C,
             [&](int64_t m, int64_t n, const double* a, const double* b, double* c) {
               cblas_dgemm(CblasRowMajor, flag(trans_a), flag(trans_b), as_int(m), as_int(n),
                           as_int(K), alpha, a, ld(trans_a ? M : K), b, ld(trans_b ? K : N), beta,
                           c, ld(N));
             });
}

}  // namespace cpu
}  // namespace tapir
