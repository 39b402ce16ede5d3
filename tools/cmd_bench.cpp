// `tapir bench`: training-step throughput on the fixed configurations of
// the benchmark page (tiny, small, lm): forward, next-token cross-entropy at
// every position, backward, AdamW (lr 1e-3, weight decay 0.01), on one fixed
// random batch; and the main job's model (main: the training loop's own
// steps on modadd p = 47). Median of the timed steps after warm-up, with the
// model FLOPs per token, the achieved model GFLOP/s and the MFU against the
// sgemm peak measured at the start of the same run (docs/performance.md). Variants: the MLP
// activation (gelu, relu, spline: 121 knots on [-20, 20], linear
// extrapolation, GeLU init) and the attention (softmax, score-spline); the
// variants of a configuration step in turn, so that their ratios survive a
// shared machine's changing load. With --device cuda the model, optimizer
// state and batch live on the GPU and each step ends with a synchronize, so
// the times are whole steps; peak MB is still the host's, and the GEMM
// columns read 0 (cuBLAS calls run asynchronously and are not timed).
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "autograd/ops.h"
#include "engine/profile.h"
#include "engine/threads.h"
#include "lab/bench_search.h"
#include "nn/transformer.h"
#include "optim/optimizer.h"
#include "optim/trainer.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

namespace {

struct BenchConfig {
  const char* name;
  int64_t vocab, context, batch, width, heads, layers;
};
// The last is the main job's model (scripts/main.sh): real training steps
// of modadd p = 47, batches sampled from the task (its vocabulary and
// length come from the task).
constexpr BenchConfig kConfigs[] = {
    {"tiny", 99, 4, 512, 128, 4, 2},
    {"small", 128, 64, 64, 128, 4, 2},
    {"lm", 96, 256, 16, 256, 8, 4},
    {"main", 0, 0, 256, 64, 4, 1},
};
bool is_main(const BenchConfig& bc) {
  return std::string(bc.name) == "main";
}

// The seconds of `reps` calls of fn, after two untimed ones, fastest first.
template <typename Fn>
std::vector<double> sorted_seconds(int reps, Fn&& fn) {
  std::vector<double> times;
  for (int i = 0; i < reps + 2; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i >= 2) times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  return times;
}
template <typename Fn>
double median_seconds(int reps, Fn&& fn) {
  const std::vector<double> times = sorted_seconds(reps, fn);
  return times[times.size() / 2];
}

struct BenchResult {
  std::string name, variant;
  int threads = 1;
  double step_seconds = 0, tokens_per_s = 0, peak_rss_mb = 0, gemm_share = 0, gemm_gflops = 0;
  double flops_per_token = 0, model_gflops = 0, mfu = 0;
};

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// One variant of a configuration, ready to step.
struct BenchRun {
  std::string variant;
  std::function<void()> step;  // one whole training step
  int64_t tokens = 0;          // per step
  double flops_per_token = 0;  // model FLOPs (nn/transformer.h)
  std::unique_ptr<Transformer> model;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<Trainer> trainer;
  std::vector<double> times;
  double gemm_seconds = 0, gemm_flops = 0;
};

std::string variant_name(MlpAct mlp_act, AttentionKind attn) {
  std::string name = name_of(mlp_act);
  name += "+";
  name += name_of(attn);
  return name;
}

// A fixed configuration: forward, next-token cross-entropy at every
// position, backward and AdamW on one fixed batch (tokens, targets).
std::unique_ptr<BenchRun> make_run(const BenchConfig& bc, MlpAct mlp_act, AttentionKind attn,
                                   Device device, Tensor tokens, Tensor targets) {
  ModelConfig mc;
  mc.vocab = bc.vocab;
  mc.context = bc.context;
  mc.width = bc.width;
  mc.heads = bc.heads;
  mc.layers = bc.layers;
  mc.mlp_act = mlp_act;
  mc.attn = attn;
  auto run = std::make_unique<BenchRun>();
  run->variant = variant_name(mlp_act, attn);
  run->model = std::make_unique<Transformer>(mc);
  run->model->init(0);
  run->model->to_device(device);
  OptimizerConfig oc;
  oc.name = "adamw";
  oc.weight_decay = 0.01;
  run->optimizer = make_optimizer(oc, run->model->parameters());
  run->tokens = bc.batch * bc.context;
  run->flops_per_token = model_flops_per_token(mc, bc.context);
  BenchRun* r = run.get();
  run->step = [r, tokens, targets] {
    r->optimizer->zero_grad();
    Tensor loss = cross_entropy(r->model->forward(tokens), targets);
    backward(loss);
    r->optimizer->step(1e-3);
    reset_step();
  };
  return run;
}

// The main job's model: the training loop's own step (sampling included).
std::unique_ptr<BenchRun> make_main_run(const BenchConfig& bc, MlpAct mlp_act, AttentionKind attn,
                                        Device device, int threads) {
  TrainConfig c;
  c.task = "modadd";
  c.task_options.set("p", "47");
  c.model.width = bc.width;
  c.model.heads = bc.heads;
  c.model.layers = bc.layers;
  c.model.mlp_act = mlp_act;
  c.model.attn = attn;
  c.batch = bc.batch;
  c.device = device;
  c.threads = threads;
  auto run = std::make_unique<BenchRun>();
  run->variant = variant_name(mlp_act, attn);
  run->trainer = std::make_unique<Trainer>(c, "");
  const int64_t T = run->trainer->task().max_length();
  run->tokens = c.batch * T;
  run->flops_per_token = model_flops_per_token(run->trainer->config().model, T);
  Trainer* t = run->trainer.get();
  run->step = [t] { t->train_step(); };
  return run;
}

// One training step, timed; recorded unless it is a warm-up step.
void time_step(BenchRun& run, Device device, bool record) {
  kernel_profile() = {};
  const auto start = std::chrono::steady_clock::now();
  run.step();
  synchronize(device);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!record) return;
  run.times.push_back(seconds);
  run.gemm_seconds += kernel_profile().gemm_seconds;
  run.gemm_flops += kernel_profile().gemm_flops;
}

// One fixed batch of a fixed configuration: random tokens, targets = the
// next token (the last position's target is one more random token).
struct FixedBatch {
  HeapTensor tokens, targets;
};
FixedBatch fixed_batch(const BenchConfig& bc, Device device) {
  Rng rng(0, 1);
  const int64_t B = bc.batch, T = bc.context;
  FixedBatch f{HeapTensor(Shape{B, T}, DType::i32), HeapTensor(Shape{B, T}, DType::i32)};
  for (int64_t b = 0; b < B; ++b) {
    std::vector<int32_t> seq(static_cast<size_t>(T + 1));
    for (auto& s : seq) s = static_cast<int32_t>(rng.randint(bc.vocab));
    for (int64_t t = 0; t < T; ++t) {
      f.tokens.view().host_data<int32_t>()[b * T + t] = seq[static_cast<size_t>(t)];
      f.targets.view().host_data<int32_t>()[b * T + t] = seq[static_cast<size_t>(t + 1)];
    }
  }
  f.tokens.to_device(device);
  f.targets.to_device(device);
  return f;
}

// Times every variant of one configuration. The variants step in turn (one
// step of each, then the next), so a change in the machine's load affects
// them alike and their ratios stay meaningful on a shared machine.
std::vector<BenchResult> bench_config(const BenchConfig& bc, const std::vector<MlpAct>& acts,
                                      const std::vector<AttentionKind>& attns, int warmup,
                                      int steps, Device device, double peak_gflops) {
  std::vector<std::unique_ptr<BenchRun>> runs;
  FixedBatch batch;
  if (!is_main(bc)) batch = fixed_batch(bc, device);
  for (MlpAct act : acts)
    for (AttentionKind attn : attns)
      runs.push_back(
          is_main(bc) ? make_main_run(bc, act, attn, device, num_threads())
                      : make_run(bc, act, attn, device, batch.tokens.view(), batch.targets.view()));
  for (int i = 0; i < warmup + steps; ++i)
    for (auto& run : runs) time_step(*run, device, i >= warmup);

  std::vector<BenchResult> results;
  for (auto& run : runs) {
    double total = 0;
    for (double t : run->times) total += t;
    std::sort(run->times.begin(), run->times.end());
    BenchResult r;
    r.name = bc.name;
    r.variant = run->variant;
    r.threads = num_threads();
    r.step_seconds = run->times[run->times.size() / 2];
    r.tokens_per_s = double(run->tokens) / r.step_seconds;
    r.peak_rss_mb = peak_rss_mb();  // of the process: the largest variant so far
    r.gemm_share = run->gemm_seconds / total;
    r.gemm_gflops = run->gemm_seconds > 0 ? run->gemm_flops / run->gemm_seconds / 1e9 : 0;
    r.flops_per_token = run->flops_per_token;
    r.model_gflops = r.flops_per_token * r.tokens_per_s / 1e9;
    r.mfu = peak_gflops > 0 ? r.model_gflops / peak_gflops : 0;
    results.push_back(r);
  }
  return results;
}

// The single-precision GEMM peak MFU is taken against: square products of
// size n through tapir's matmul (OpenBLAS on the cpu, split over the
// threads as every product of a step is; cuBLAS on cuda), the fastest of
// `reps`, at the thread count in force. The fastest, not the median: a
// peak is what the machine can do, and on a shared machine a few slow
// products (another process on the core) would otherwise lower it and
// raise every MFU of the run.
double sgemm_peak_gflops(Device device, int64_t n, int reps) {
  NoGrad no_grad;
  Rng rng(0, 3);
  HeapTensor a(Shape{n, n}, DType::f32), b(Shape{n, n}, DType::f32);
  rng.fill_uniform<float>(a.view().host_data<float>(), n * n, -1.0f, 1.0f);
  rng.fill_uniform<float>(b.view().host_data<float>(), n * n, -1.0f, 1.0f);
  a.to_device(device);
  b.to_device(device);
  const double seconds = sorted_seconds(reps, [&] {
                           matmul(a.view(), b.view());
                           synchronize(device);
                           reset_step();
                         }).front();
  return 2.0 * double(n) * double(n) * double(n) / seconds / 1e9;
}

// Square sgemm throughput at size n, through tapir's matmul op (arena
// output, shape checks, dispatch) and through cblas_sgemm directly.
void bench_gemm(int64_t n, int reps) {
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
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f,
                a.view().host_data<float>(), int(n), b.view().host_data<float>(), int(n), 0.0f,
                c.view().host_data<float>(), int(n));
  });
  const double flops = 2.0 * double(n) * double(n) * double(n);
  std::printf("%6lld %16.1f %16.1f %8.3f\n", static_cast<long long>(n), flops / through_op / 1e9,
              flops / direct / 1e9, through_op / direct);
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time training steps of the benchmark configurations");
  struct Options {
    std::vector<std::string> configs = {"tiny", "small", "lm", "main"};
    std::vector<MlpAct> mlp_acts = {MlpAct::gelu};
    std::vector<AttentionKind> attns = {AttentionKind::softmax};
    int steps = 20, warmup = 5, threads = 1;
    Device device = Device::cpu;
    bool json = false, gemm = false;
    int search = 0;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--config", o->configs,
                  "Configurations: tiny, small, lm, main (the main job's model)")
      ->check(CLI::IsMember({"tiny", "small", "lm", "main"}))
      ->capture_default_str();
  add_names_option(*cmd, "--mlp-act", o->mlp_acts, "MLP activations to compare");
  add_names_option(*cmd, "--attn", o->attns, "Attention kernels to compare");
  cmd->add_option("--steps", o->steps, "Timed steps (median reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed warm-up steps")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  add_threads_option(*cmd, o->threads);
  add_device_option(*cmd, o->device, "Where to step");
  cmd->add_flag("--json", o->json, "One JSON object per run");
  cmd->add_flag(
      "--gemm", o->gemm,
      "Square sgemm GFLOP/s through tapir's matmul (split over --threads) vs one cblas call "
      "(one thread)");
  cmd->add_option("--search", o->search,
                  "Time a Stage I step of M models against M one-model steps")
      ->check(CLI::Range(1, 64));
  return {cmd, [o]() {
            set_num_threads(o->threads);
            const Device device = o->device;
            if (o->gemm) {
              TAPIR_CHECK(device == Device::cpu,
                          "bench --gemm compares against cblas and runs on the cpu only");
              std::printf("%6s %16s %16s %8s   (%d threads)\n", "n", "tapir GFLOP/s",
                          "cblas GFLOP/s", "ratio", num_threads());
              for (int64_t n : {128, 256, 512, 1024}) bench_gemm(n, n >= 1024 ? 5 : 20);
              return 0;
            }
            if (o->search > 0) {
              bench_search(o->search, o->warmup, o->steps);
              return 0;
            }
            // The peak MFU is taken against, measured now with the same threads.
            const int64_t peak_n = device == Device::cuda ? 8192 : 1024;
            const double peak = sgemm_peak_gflops(device, peak_n, device == Device::cuda ? 10 : 9);
            if (!o->json) {
              std::printf(
                  "sgemm peak %.1f GFLOP/s (n = %lld, %s, %d thread%s); MFU = model "
                  "GFLOP/s / peak\n",
                  peak, static_cast<long long>(peak_n),
                  device == Device::cuda ? "cuBLAS" : "OpenBLAS", num_threads(),
                  num_threads() == 1 ? "" : "s");
              std::printf("%-6s %-20s %7s %9s %11s %10s %9s %6s %9s %10s\n", "config", "variant",
                          "threads", "ms/step", "tokens/s", "MFLOP/tok", "GFLOP/s", "MFU",
                          "peak MB", "GEMM share");
            }
            for (const BenchConfig& bc : kConfigs) {
              if (std::find(o->configs.begin(), o->configs.end(), bc.name) == o->configs.end())
                continue;
              for (const BenchResult& r :
                   bench_config(bc, o->mlp_acts, o->attns, o->warmup, o->steps, device, peak)) {
                if (o->json)
                  std::printf(
                      "{\"config\":\"%s\",\"variant\":\"%s\",\"threads\":%d,"
                      "\"step_ms\":%.3f,\"tokens_per_s\":%.1f,\"steps_per_s\":%.3f,"
                      "\"peak_rss_mb\":%.1f,\"gemm_share\":%.3f,\"gemm_gflops\":%.1f,"
                      "\"model_flops_per_token\":%.0f,\"model_gflops\":%.2f,"
                      "\"sgemm_peak_gflops\":%.1f,\"mfu\":%.4f}\n",
                      r.name.c_str(), r.variant.c_str(), r.threads, r.step_seconds * 1e3,
                      r.tokens_per_s, 1.0 / r.step_seconds, r.peak_rss_mb, r.gemm_share,
                      r.gemm_gflops, r.flops_per_token, r.model_gflops, peak, r.mfu);
                else
                  std::printf("%-6s %-20s %7d %9.2f %11.0f %10.3f %9.1f %5.1f%% %9.1f %9.1f%%\n",
                              r.name.c_str(), r.variant.c_str(), r.threads, r.step_seconds * 1e3,
                              r.tokens_per_s, r.flops_per_token / 1e6, r.model_gflops, 100 * r.mfu,
                              r.peak_rss_mb, 100 * r.gemm_share);
              }
              std::fflush(stdout);
            }
            return 0;
          }};
}

}  // namespace tapir
