// `tapir bench`: training-step throughput on the fixed configurations of
// the benchmark page (tiny, small, lm): forward, next-token cross-entropy at
// every position, backward, AdamW (lr 1e-3, weight decay 0.01), on one fixed
// random batch; and the main job's model (main: the training loop's own
// steps on modadd p = 47), and the main job's search (search: a Stage I
// step of its 4 models, each a D_arch pass and a training step; counted as
// 4 N FLOPs per D_arch token, whose pass computes no weight gradients, and
// 6 N per training token). Median of the timed steps after warm-up, with the
// model FLOPs per token, the achieved model GFLOP/s and the MFU against the
// sgemm peak measured at the start of the same run (engine/gemm_peak.h,
// docs/performance.md). Variants: the MLP activation (gelu, relu, spline: 121
// knots on [-20, 20], linear extrapolation, GeLU init) and the attention
// (softmax, score-spline); the variants of a configuration step in turn, so
// that their ratios survive a shared machine's changing load. With --device
// cuda the model, optimizer state and batch live on the GPU and each step
// ends with a synchronize, so the times are whole steps; peak MB is still the
// host's, and the GEMM columns read 0 (cuBLAS calls run asynchronously and
// are not timed). Sits in lab/, on optim/; the command is tools/cmd_bench.cpp.
#pragma once
#include <string>
#include <vector>

#include "engine/device.h"
#include "nn/transformer.h"

namespace tapir {

struct BenchOptions {
  std::vector<std::string> configs = {"tiny", "small", "lm", "main", "search"};
  std::vector<MlpAct> mlp_acts = {MlpAct::gelu};
  std::vector<AttentionKind> attns = {AttentionKind::softmax};
  int steps = 20, warmup = 5, threads = 1;
  Device device = Device::cpu;
  bool json = false;  // one JSON object per run instead of the table
  bool gemm = false;  // matrix products: tapir vs cblas, libraries (lab/bench_gemm.h)
  int search = 0;     // > 0: a Stage I step of M models (lab/bench_search.h)
};

// The configurations' names, in the order they run: tiny, small, lm, main,
// search.
std::vector<std::string> bench_config_names();

// Sets the thread count and runs what `options` asks for, printing to stdout.
void run_bench(const BenchOptions& options);

}  // namespace tapir
