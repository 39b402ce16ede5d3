// The products of `tapir bench --gemm` (engine/gemm_libraries.h,
// lab/bench_gemm.h): every library built in against a plain loop, on small
// strided batches of each transpose, and against OpenBLAS the way the
// benchmark checks them; and the benchmark's shapes against the main job's
// model. No timing.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "engine/gemm_libraries.h"
#include "engine/rng.h"
#include "lab/bench_gemm.h"
#include "nn/transformer.h"

using namespace tapir;

namespace {

// outer x inner products of M x N x K with every stride padded, so that a
// library that mixes up a stride, or writes outside its products, fails.
GemmBatch padded_batch(int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b) {
  GemmBatch g{.M = M, .N = N, .K = K, .trans_a = trans_a, .trans_b = trans_b};
  g.lda = (trans_a ? M : K) + 2;
  g.ldb = (trans_b ? K : N) + 1;
  g.ldc = N + 3;
  g.outer = 2;
  g.inner = 3;
  g.a_inner = (trans_a ? K : M) * g.lda + 1;
  g.b_inner = (trans_b ? N : K) * g.ldb + 2;
  g.c_inner = M * g.ldc + 1;
  g.a_outer = g.inner * g.a_inner + 5;
  g.b_outer = g.inner * g.b_inner + 4;
  g.c_outer = g.inner * g.c_inner + 2;
  return g;
}

// A value no product of values in [-1, 1] over a few terms reaches.
constexpr float kUntouched = 100.0f;

// The products in double precision by the definition; C's padding keeps
// kUntouched.
std::vector<double> reference(const GemmBatch& g, const std::vector<float>& a,
                              const std::vector<float>& b) {
  std::vector<double> c(static_cast<size_t>(g.c_span()), kUntouched);
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      const float* pa = a.data() + o * g.a_outer + i * g.a_inner;
      const float* pb = b.data() + o * g.b_outer + i * g.b_inner;
      double* pc = c.data() + o * g.c_outer + i * g.c_inner;
      for (int64_t m = 0; m < g.M; ++m)
        for (int64_t n = 0; n < g.N; ++n) {
          double sum = 0;
          for (int64_t k = 0; k < g.K; ++k)
            sum += double(g.trans_a ? pa[k * g.lda + m] : pa[m * g.lda + k]) *
                   double(g.trans_b ? pb[n * g.ldb + k] : pb[k * g.ldb + n]);
          pc[m * g.ldc + n] = sum;
        }
    }
  return c;
}

std::vector<float> random_values(int64_t n, uint64_t stream) {
  Rng rng(7, stream);
  std::vector<float> v(static_cast<size_t>(n));
  rng.fill_uniform<float>(v.data(), n, -1.0f, 1.0f);
  return v;
}

}  // namespace

TEST_CASE("every library built in computes strided batches of each transpose") {
  for (bool trans_a : {false, true})
    for (bool trans_b : {false, true}) {
      const GemmBatch g = padded_batch(3, 5, 4, trans_a, trans_b);
      const std::vector<float> a = random_values(g.a_span(), 1), b = random_values(g.b_span(), 2);
      const std::vector<double> want = reference(g, a, b);
      for (GemmLibrary library : kGemmLibraries) {
        if (!gemm_library_built(library)) continue;
        CAPTURE(name_of(library));
        CAPTURE(trans_a);
        CAPTURE(trans_b);
        std::vector<float> c(static_cast<size_t>(g.c_span()), kUntouched);
        make_library_gemm(library, g)(a.data(), b.data(), c.data());
        double worst = 0;
        for (size_t j = 0; j < want.size(); ++j)
          worst = std::max(worst, std::abs(double(c[j]) - want[j]));
        CHECK(worst < 1e-5);
      }
    }
}

TEST_CASE("the benchmark's check against OpenBLAS passes on small products") {
  const GemmBatch shapes[] = {GemmBatch::single(8, 6, 5, false, true),
                              GemmBatch::single(7, 9, 33, true, false),
                              padded_batch(4, 16, 4, false, false)};
  for (const GemmBatch& g : shapes) {
    const std::vector<GemmDifference> differences = compare_gemm_libraries(g);
    REQUIRE(differences.size() == (gemm_library_built(GemmLibrary::libxsmm) ? 3u : 2u));
    CHECK(differences[0].library == GemmLibrary::openblas);
    CHECK(differences[0].difference == 0.0);
    for (const GemmDifference& d : differences) {
      CAPTURE(name_of(d.library));
      CHECK(d.difference <= kGemmMaxDifference);
    }
  }
}

TEST_CASE("a library not built in is refused by name") {
  if (gemm_library_built(GemmLibrary::libxsmm)) return;
  CHECK_THROWS_WITH(
      make_library_gemm(GemmLibrary::libxsmm, GemmBatch::single(2, 2, 2, false, false)),
      "libxsmm is not built in");
}

TEST_CASE("the benchmark's shapes are the main job's model's products") {
  ModelConfig model;
  model.vocab = 49;
  model.width = 64;
  model.heads = 4;
  model.layers = 1;
  constexpr int64_t T = 4, rows = 256 * T;
  // Each linear product once forward and twice backward; the attention's
  // three are half of its six per (batch, head) pair (the others have the
  // same shapes).
  double linear = 0, attention = 0;
  for (const GemmShape& shape : main_model_gemm_shapes()) {
    const GemmBatch& g = shape.batch;
    (g.products() > 1 ? attention : linear) += g.flops();
    // The operands fit the step's arrays: qkv (rows, 3C), the
    // probabilities (B, H, T, T), the attention output (rows, C).
    if (g.products() > 1) {
      CHECK(g.products() == 256 * 4);
      CHECK(g.a_span() <= rows * 3 * 64);
      CHECK(g.b_span() <= rows * 3 * 64);
      CHECK(g.c_span() <= rows * 3 * 64);
    }
  }
  CHECK(linear + 2 * attention == doctest::Approx(model_flops_per_token(model, T) * rows));
}
