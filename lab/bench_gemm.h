// `tapir bench --gemm`: single-precision matrix products, in two tables.
// Square products through tapir's matmul op (split over --threads, as in a
// step) against one direct cblas_sgemm call; then the products of a
// training step of the main job's model through OpenBLAS, Eigen and libxsmm
// (engine/gemm_libraries.h) at one thread, on the same operands, with each
// library's result checked against OpenBLAS's. docs/performance.md has the
// figures. Sits in lab/, on autograd and the engine; run_bench (lab/bench.h)
// calls it.
#pragma once
#include <string>
#include <vector>

#include "engine/gemm_libraries.h"

namespace tapir {

// How far a library's result may be from OpenBLAS's: the largest absolute
// difference over OpenBLAS's largest magnitude. Only the order of the sums
// differs, which moves a sum of K terms by up to about K * 6e-8 of its
// terms' magnitude (K = 1024 here: 6e-5), and far less in practice.
constexpr double kGemmMaxDifference = 1e-4;

struct GemmShape {
  std::string name;
  GemmBatch batch;
};

// The products of one training step of the main job's model (modadd p = 47:
// batch 256 x context 4 = 1024 token rows, width 64, 4 heads of 16, MLP
// 256, vocab 49), as autograd/ops_matmul.cpp's linear and
// engine/cpu/attention.cpp make them: y = x W^T, dX = dY W, dW = dY^T X for
// qkv, the attention's projection, the MLP's two and the head; then the
// attention's per-(batch, head) products, 1024 to a call, on strided views
// of the packed qkv array as the kernel reads them.
std::vector<GemmShape> main_model_gemm_shapes();

struct GemmDifference {
  GemmLibrary library;
  double difference = 0;  // from OpenBLAS's result, as kGemmMaxDifference measures it
};

// Runs `batch` once through each library built in (OpenBLAS first), on the
// same random operands, and measures each result against OpenBLAS's.
std::vector<GemmDifference> compare_gemm_libraries(const GemmBatch& batch);

// Prints both tables to stdout; fails when a library's result is further
// than kGemmMaxDifference from OpenBLAS's.
void bench_gemm();

}  // namespace tapir
