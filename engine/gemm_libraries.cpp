// The products of engine/gemm_libraries.h, one library each.
#include "engine/gemm_libraries.h"

#include <cblas.h>

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "engine/blas_kernels.h"
#include "engine/cpu/eigen.h"

#ifdef TAPIR_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

namespace tapir {

namespace {

// The floats an operand of `rows` rows of `cols` values, `ld` apart, spans
// in every product of the batch.
int64_t span(const GemmBatch& g, int64_t rows, int64_t cols, int64_t ld, int64_t step_outer,
             int64_t step_inner) {
  if (rows == 0 || cols == 0 || g.products() == 0) return 0;
  return (g.outer - 1) * step_outer + (g.inner - 1) * step_inner + (rows - 1) * ld + cols;
}

// Calls product(o, a, b, c) for every product of the batch, with its
// operands' addresses.
template <typename Product>
void for_each_product(const GemmBatch& g, const float* a, const float* b, float* c,
                      Product&& product) {
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i)
      product(a + o * g.a_outer + i * g.a_inner, b + o * g.b_outer + i * g.b_inner,
              c + o * g.c_outer + i * g.c_inner);
}

GemmRun openblas_gemm(const GemmBatch& g) {
  return [g](const float* a, const float* b, float* c) {
    for_each_product(g, a, b, c, [&g](const float* pa, const float* pb, float* pc) {
      cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
                  g.trans_b ? CblasTrans : CblasNoTrans, int(g.M), int(g.N), int(g.K), 1.0f, pa,
                  int(g.lda), pb, int(g.ldb), 0.0f, pc, int(g.ldc));
    });
  };
}

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStrided = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;

template <bool Transposed>
auto op(const ConstStrided& x) {
  if constexpr (Transposed)
    return x.transpose();
  else
    return x;
}

template <bool TransA, bool TransB>
GemmRun eigen_gemm_of(const GemmBatch& g) {
  return [g](const float* a, const float* b, float* c) {
    for_each_product(g, a, b, c, [&g](const float* pa, const float* pb, float* pc) {
      const ConstStrided A(pa, TransA ? g.K : g.M, TransA ? g.M : g.K, Eigen::OuterStride<>(g.lda));
      const ConstStrided B(pb, TransB ? g.N : g.K, TransB ? g.K : g.N, Eigen::OuterStride<>(g.ldb));
      Strided C(pc, g.M, g.N, Eigen::OuterStride<>(g.ldc));
      C.noalias() = op<TransA>(A) * op<TransB>(B);
    });
  };
}

GemmRun eigen_gemm(const GemmBatch& g) {
  if (g.trans_a) return g.trans_b ? eigen_gemm_of<true, true>(g) : eigen_gemm_of<true, false>(g);
  return g.trans_b ? eigen_gemm_of<false, true>(g) : eigen_gemm_of<false, false>(g);
}

const char* eigen_instructions() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "AVX2 and FMA";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE4_2__)
  return "SSE4.2";
#else
  return "SSE2";
#endif
}

#ifdef TAPIR_HAVE_LIBXSMM
// A row-major product is the column-major product of the transposes,
// C^T (N, M) = op(B)^T op(A)^T, with each row-major operand read as its
// column-major transpose: libxsmm's A is our B, its B our A. Its kernels
// transpose their B (our trans_a) but not their A (our trans_b): then each
// product's B is first copied transposed, (N, K) to (K, N), into scratch.
GemmRun libxsmm_gemm(const GemmBatch& g) {
  libxsmm_init();
  const float alpha = 1, beta = 0;
  const int flags = g.trans_a ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE;
  const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  const libxsmm_blasint lda = g.trans_b ? g.N : g.ldb, ldb = g.lda, ldc = g.ldc;
  const libxsmm_smmfunction kernel =
      libxsmm_smmdispatch(g.N, g.M, g.K, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  TAPIR_CHECK(kernel != nullptr, "libxsmm generated no kernel for a ", g.M, "x", g.N, "x", g.K,
              " product on this machine (target ", libxsmm_get_target_arch(), ")");
  // On a cache line, wherever the closure's copy of the vector lands.
  std::vector<float> scratch(g.trans_b ? static_cast<size_t>(g.K * g.N) + 16 : 0);
  return [g, kernel, scratch](const float* a, const float* b, float* c) mutable {
    const auto address = reinterpret_cast<uintptr_t>(scratch.data());
    float* b_t = reinterpret_cast<float*>((address + 63) & ~uintptr_t{63});  // (K, N)
    for_each_product(g, a, b, c, [&](const float* pa, const float* pb, float* pc) {
      if (g.trans_b) {
        for (int64_t n = 0; n < g.N; ++n)
          for (int64_t k = 0; k < g.K; ++k) b_t[k * g.N + n] = pb[n * g.ldb + k];
        pb = b_t;
      }
      kernel(pb, pa, pc);
    });
  };
}
#endif

}  // namespace

GemmBatch GemmBatch::single(int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b) {
  GemmBatch g;
  g.M = M;
  g.N = N;
  g.K = K;
  g.trans_a = trans_a;
  g.trans_b = trans_b;
  g.lda = trans_a ? M : K;
  g.ldb = trans_b ? K : N;
  g.ldc = N;
  return g;
}

int64_t GemmBatch::a_span() const {
  return span(*this, trans_a ? K : M, trans_a ? M : K, lda, a_outer, a_inner);
}
int64_t GemmBatch::b_span() const {
  return span(*this, trans_b ? N : K, trans_b ? K : N, ldb, b_outer, b_inner);
}
int64_t GemmBatch::c_span() const {
  return span(*this, M, N, ldc, c_outer, c_inner);
}

const char* name_of(GemmLibrary library) {
  switch (library) {
    case GemmLibrary::openblas:
      return "OpenBLAS";
    case GemmLibrary::eigen:
      return "Eigen";
    case GemmLibrary::libxsmm:
      return "libxsmm";
  }
  return "?";
}

bool gemm_library_built(GemmLibrary library) {
#ifdef TAPIR_HAVE_LIBXSMM
  (void)library;
  return true;
#else
  return library != GemmLibrary::libxsmm;
#endif
}

std::string gemm_library_target(GemmLibrary library) {
  switch (library) {
    case GemmLibrary::openblas:
      return blas_kernels_description();
    case GemmLibrary::eigen:
      return std::string("compiled for ") + eigen_instructions();
    case GemmLibrary::libxsmm:
#ifdef TAPIR_HAVE_LIBXSMM
      libxsmm_init();
      return std::string("JIT for ") + libxsmm_get_target_arch();
#else
      return "not built in (TAPIR_LIBXSMM, Debian package libxsmm-dev)";
#endif
  }
  return "?";
}

GemmRun make_library_gemm(GemmLibrary library, const GemmBatch& batch) {
  TAPIR_CHECK(gemm_library_built(library), name_of(library), " is not built in");
  switch (library) {
    case GemmLibrary::openblas:
      return openblas_gemm(batch);
    case GemmLibrary::eigen:
      return eigen_gemm(batch);
    case GemmLibrary::libxsmm:
#ifdef TAPIR_HAVE_LIBXSMM
      return libxsmm_gemm(batch);
#else
      break;
#endif
  }
  fail("no such library");
}

}  // namespace tapir
