// Single-precision matrix products through the libraries the cpu backend
// could run them on, for `tapir bench --gemm` (lab/bench_gemm.h) to compare
// on the main job's shapes: OpenBLAS (one cblas_sgemm call per product, what
// engine/cpu/gemm.cpp makes at one thread), Eigen (a product of strided
// Maps, as engine/cpu/attention.cpp ran its products below T = 32 before
// they became loops over the causal triangle) and, where the build has it
// (TAPIR_LIBXSMM, cmake/libxsmm.cmake), libxsmm: a kernel its JIT generates
// for the shape. Here because the engine is the only layer that calls BLAS
// and Eigen; no training step calls these.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace tapir {

enum class GemmLibrary { openblas, eigen, libxsmm };
inline constexpr GemmLibrary kGemmLibraries[] = {GemmLibrary::openblas, GemmLibrary::eigen,
                                                 GemmLibrary::libxsmm};

// "OpenBLAS", "Eigen", "libxsmm".
const char* name_of(GemmLibrary library);

// OpenBLAS and Eigen always; libxsmm where the build found it.
bool gemm_library_built(GemmLibrary library);

// The code a library runs on this machine: OpenBLAS's kernels
// (engine/blas_kernels.h), the instructions Eigen was compiled for, the
// target of libxsmm's JIT (its pick from the CPU, or LIBXSMM_TARGET).
std::string gemm_library_target(GemmLibrary library);

// outer x inner row-major products C (M, N) = op(A) op(B), C overwritten
// (beta 0), op(X) = X^T where trans_a / trans_b. Product (o, i) reads A at
// a + o a_outer + i a_inner, B and C likewise; lda, ldb and ldc are the row
// strides of A, B and C as stored (A is stored (K, M) when trans_a, B is
// stored (N, K) when trans_b).
struct GemmBatch {
  int64_t M = 0, N = 0, K = 0;
  bool trans_a = false, trans_b = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t outer = 1, inner = 1;
  int64_t a_outer = 0, a_inner = 0, b_outer = 0, b_inner = 0, c_outer = 0, c_inner = 0;

  // One product of contiguous operands.
  static GemmBatch single(int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b);
  int64_t products() const { return outer * inner; }
  double flops() const { return 2.0 * double(M) * double(N) * double(K) * double(products()); }
  // The floats that A, B and C span, from the first product's first value
  // to the last product's last.
  int64_t a_span() const;
  int64_t b_span() const;
  int64_t c_span() const;
};

// Runs a batch: run(a, b, c) computes every product of it.
using GemmRun = std::function<void(const float* a, const float* b, float* c)>;

// `batch` set up on one library: libxsmm's kernel is generated here, once.
// libxsmm's kernels are column-major and cannot transpose their first
// operand, which a row-major op(B) = B^T needs: that run copies each
// product's B transposed into scratch, inside the call. Fails when the
// library is not built in or cannot take the shape.
GemmRun make_library_gemm(GemmLibrary library, const GemmBatch& batch);

}  // namespace tapir
