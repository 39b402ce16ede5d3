// The matrix-product benchmark of `tapir bench --gemm` (lab/bench_gemm.h).
#include "lab/bench_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/ops.h"
#include "base/clock.h"
#include "base/error.h"
#include "engine/gemm_peak.h"
#include "engine/rng.h"
#include "engine/threads.h"
#include "lab/stats.h"

namespace tapir {

namespace {

// Seconds each product of the model's table is timed for, all libraries
// together, and the fewest and most calls each library gets.
constexpr double kSecondsPerShape = 0.3;
constexpr int kMinCalls = 21, kMaxCalls = 4001;

// The seconds of `reps` calls of fn, after two untimed ones: the median.
template <typename Fn>
double median_seconds(int reps, Fn&& fn) {
  std::vector<double> times;
  for (int i = 0; i < reps + 2; ++i) {
    const double start = now_seconds();
    fn();
    const double s = now_seconds() - start;
    if (i >= 2) times.push_back(s);
  }
  return quantile(times, 0.5);
}

// Square sgemm throughput at size n, through tapir's matmul op (arena
// output, shape checks, dispatch) and through one direct cblas_sgemm call.
void bench_square(int64_t n, int reps) {
  NoGrad no_grad;
  Rng rng(0, 2);
  HeapTensor a(Shape{n, n}, DType::f32), b(Shape{n, n}, DType::f32), c(Shape{n, n}, DType::f32);
  rng.fill_uniform<float>(a.view().host_data<float>(), n * n, -1.0f, 1.0f);
  rng.fill_uniform<float>(b.view().host_data<float>(), n * n, -1.0f, 1.0f);
  const double through_op = median_seconds(reps, [&] {
    matmul(a, b);
    reset_step();
  });
  const double direct = median_seconds(reps, [&] {
    direct_sgemm(n, a.view().host_data<float>(), b.view().host_data<float>(),
                 c.view().host_data<float>());
  });
  const double flops = 2.0 * double(n) * double(n) * double(n);
  std::printf("%6lld %16.1f %16.1f %8.3f\n", static_cast<long long>(n), flops / through_op / 1e9,
              flops / direct / 1e9, through_op / direct);
}

// One library set up on one batch, with its own result.
struct LibraryCase {
  GemmLibrary library;
  GemmRun run;
  std::vector<float> c;
  double difference = 0;
};

// The largest |c - ref| over the largest |ref|.
double relative_difference(const std::vector<float>& c, const std::vector<float>& ref) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff = std::max(diff, std::abs(double(c[i]) - double(ref[i])));
    scale = std::max(scale, std::abs(double(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// Every library built in on `batch` (OpenBLAS first), each run once on the
// operands a and b, its result measured against OpenBLAS's.
std::vector<LibraryCase> set_up_libraries(const GemmBatch& batch, const std::vector<float>& a,
                                          const std::vector<float>& b) {
  std::vector<LibraryCase> cases;
  for (GemmLibrary library : kGemmLibraries) {
    if (!gemm_library_built(library)) continue;
    LibraryCase lc{library, make_library_gemm(library, batch),
                   std::vector<float>(static_cast<size_t>(batch.c_span()), 0.0f)};
    lc.run(a.data(), b.data(), lc.c.data());
    lc.difference = relative_difference(lc.c, cases.empty() ? lc.c : cases.front().c);
    cases.push_back(std::move(lc));
  }
  return cases;
}

std::vector<float> random_values(int64_t n, uint64_t stream) {
  Rng rng(0, stream);
  std::vector<float> v(static_cast<size_t>(n));
  rng.fill_uniform<float>(v.data(), n, -1.0f, 1.0f);
  return v;
}

// "NT": op(A) op(B), T where transposed.
std::string op_letters(const GemmBatch& g) {
  return std::string(g.trans_a ? "T" : "N") + (g.trans_b ? "T" : "N");
}

void print_model_header(const std::vector<GemmLibrary>& libraries) {
  std::printf(
      "\nThe main job's model (modadd p = 47: 1024 token rows, width 64, 4 heads of 16, MLP 256, "
      "vocab 49),\nsingle precision, one thread, C overwritten; op: op(A) op(B), T = "
      "transposed\n");
  for (GemmLibrary library : kGemmLibraries)
    std::printf("  %-9s %s\n", name_of(library), gemm_library_target(library).c_str());
  std::printf(
      "ns: median of the calls (libraries called in turn); x: OpenBLAS ns / ns (above 1: "
      "faster);\ndiff: largest |C - C_OpenBLAS| / largest |C_OpenBLAS|\n");
  std::printf("%-26s %5s %5s %5s %-2s %5s %6s", "product", "M", "N", "K", "op", "count", "calls");
  for (GemmLibrary library : libraries) {
    const std::string ns = std::string(name_of(library)) + " ns";
    if (library == GemmLibrary::openblas)
      std::printf(" %12s %7s", ns.c_str(), "GFLOP/s");
    else
      std::printf(" %12s %7s %6s %7s", ns.c_str(), "GFLOP/s", "x", "diff");
  }
  std::printf("  fastest\n");
}

// Times one shape's libraries in turn (a change in the machine's load
// touches them alike) and prints its row.
void bench_shape(const GemmShape& shape) {
  const GemmBatch& g = shape.batch;
  const std::vector<float> a = random_values(g.a_span(), 4), b = random_values(g.b_span(), 5);
  std::vector<LibraryCase> cases = set_up_libraries(g, a, b);
  for (const LibraryCase& lc : cases)
    TAPIR_CHECK(lc.difference <= kGemmMaxDifference, "bench --gemm: ", name_of(lc.library),
                "'s result for ", shape.name, " differs from OpenBLAS's by ", lc.difference,
                " (largest difference over largest value), more than ", kGemmMaxDifference);

  // Warm up, and size the timed calls from the fastest warm-up round (a
  // round that another process slowed would size them too few).
  double round_seconds = 1e9;
  for (int round = 0; round < 5; ++round) {
    const double start = now_seconds();
    for (LibraryCase& lc : cases) lc.run(a.data(), b.data(), lc.c.data());
    round_seconds = std::min(round_seconds, now_seconds() - start);
  }
  const int calls = static_cast<int>(std::clamp(kSecondsPerShape / std::max(round_seconds, 1e-9),
                                                double(kMinCalls), double(kMaxCalls)));
  std::vector<std::vector<double>> times(cases.size());
  for (int i = 0; i < calls; ++i)
    for (size_t l = 0; l < cases.size(); ++l) {
      const double start = now_seconds();
      cases[l].run(a.data(), b.data(), cases[l].c.data());
      times[l].push_back(now_seconds() - start);
    }

  std::printf("%-26s %5lld %5lld %5lld %-2s %5lld %6d", shape.name.c_str(),
              static_cast<long long>(g.M), static_cast<long long>(g.N), static_cast<long long>(g.K),
              op_letters(g).c_str(), static_cast<long long>(g.products()), calls);
  double openblas = 0, fastest = 0;
  GemmLibrary fastest_library = GemmLibrary::openblas;
  for (size_t l = 0; l < cases.size(); ++l) {
    const double s = quantile(times[l], 0.5);
    if (l == 0) openblas = s;
    if (l == 0 || s < fastest) {
      fastest = s;
      fastest_library = cases[l].library;
    }
    std::printf(" %12.0f %7.2f", s * 1e9, g.flops() / s / 1e9);
    if (l > 0) std::printf(" %5.2fx %7.1e", openblas / s, cases[l].difference);
  }
  std::printf("  %s\n", name_of(fastest_library));
  std::fflush(stdout);
}

// One operand of the attention's per-(batch, head) products: its row
// stride, and how far apart two batches' and two heads' views start.
struct PairView {
  int64_t ld, per_batch, per_head;
};

GemmBatch pair_batch(int64_t batch, int64_t heads, int64_t M, int64_t N, int64_t K, bool trans_a,
                     bool trans_b, PairView a, PairView b, PairView c) {
  return {.M = M,
          .N = N,
          .K = K,
          .trans_a = trans_a,
          .trans_b = trans_b,
          .lda = a.ld,
          .ldb = b.ld,
          .ldc = c.ld,
          .outer = batch,
          .inner = heads,
          .a_outer = a.per_batch,
          .a_inner = a.per_head,
          .b_outer = b.per_batch,
          .b_inner = b.per_head,
          .c_outer = c.per_batch,
          .c_inner = c.per_head};
}

}  // namespace

std::vector<GemmShape> main_model_gemm_shapes() {
  constexpr int64_t B = 256, T = 4, C = 64, H = 4, D = C / H, hidden = 4 * C, V = 49;
  constexpr int64_t rows = B * T;
  struct Linear {
    const char* name;
    int64_t in, out;
  };
  const Linear linears[] = {{"qkv", C, 3 * C},
                            {"attn proj", C, C},
                            {"mlp in", C, hidden},
                            {"mlp out", hidden, C},
                            {"head", C, V}};
  std::vector<GemmShape> shapes;
  for (const Linear& l : linears)  // x (rows, in), W (out, in)
    shapes.push_back(
        {std::string(l.name) + " y = x W^T", GemmBatch::single(rows, l.out, l.in, false, true)});
  for (const Linear& l : linears)
    shapes.push_back(
        {std::string(l.name) + " dX = dY W", GemmBatch::single(rows, l.in, l.out, false, false)});
  for (const Linear& l : linears)
    shapes.push_back(
        {std::string(l.name) + " dW = dY^T X", GemmBatch::single(l.out, l.in, rows, true, false)});

  // Per (batch, head) pair: q, k, v and their gradients are (T, D) views of
  // the packed array (rows, 3C), the probabilities (T, T) of (B, H, T, T),
  // the output and its gradient (T, D) views of (rows, C).
  const PairView qkv_head{3 * C, T * 3 * C, D}, probs{T, H * T * T, T * T}, out_head{C, T * C, D};
  shapes.push_back({"attn S = q k^T (x1024)",  // and dP = dO v^T
                    pair_batch(B, H, T, T, D, false, true, qkv_head, qkv_head, probs)});
  shapes.push_back({"attn O = P v (x1024)",  // and dQ = dS k
                    pair_batch(B, H, T, D, T, false, false, probs, qkv_head, out_head)});
  shapes.push_back({"attn dV = P^T dO (x1024)",  // and dK = dS^T q
                    pair_batch(B, H, T, D, T, true, false, probs, out_head, qkv_head)});
  return shapes;
}

std::vector<GemmDifference> compare_gemm_libraries(const GemmBatch& batch) {
  const std::vector<float> a = random_values(batch.a_span(), 4),
                           b = random_values(batch.b_span(), 5);
  std::vector<GemmDifference> differences;
  for (const LibraryCase& lc : set_up_libraries(batch, a, b))
    differences.push_back({lc.library, lc.difference});
  return differences;
}

void bench_gemm() {
  std::printf("%6s %16s %16s %8s   (%d threads)\n", "n", "tapir GFLOP/s", "cblas GFLOP/s", "ratio",
              num_threads());
  for (int64_t n : {128, 256, 512, 1024}) bench_square(n, n >= 1024 ? 5 : 20);

  std::vector<GemmLibrary> libraries;
  for (GemmLibrary library : kGemmLibraries)
    if (gemm_library_built(library)) libraries.push_back(library);
  print_model_header(libraries);
  for (const GemmShape& shape : main_model_gemm_shapes()) bench_shape(shape);
}

}  // namespace tapir
