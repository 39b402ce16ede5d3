// `tapir bench` (lab/bench.h): the configurations, one timed training step,
// the results of a configuration's variants, and their table or JSON lines.
#include "lab/bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "autograd/ops.h"
#include "base/clock.h"
#include "engine/gemm_peak.h"
#include "engine/profile.h"
#include "engine/threads.h"
#include "lab/bench_gemm.h"
#include "lab/bench_search.h"
#include "optim/optimizer.h"
#include "optim/search.h"
#include "optim/trainer.h"

namespace tapir {

namespace {

struct BenchConfig {
  const char* name;
  int64_t vocab, context, batch, width, heads, layers;
};
// main is the main job's model (scripts/main.sh): real training steps of
// modadd p = 47, batches sampled from the task (its vocabulary and length
// come from the task). search is the main job's Stage I step on that model
// (lab/bench_search.h): its 4 models, each a D_arch pass and a training
// step, concurrently on the threads.
constexpr BenchConfig kConfigs[] = {
    {"tiny", 99, 4, 512, 128, 4, 2}, {"small", 128, 64, 64, 128, 4, 2},
    {"lm", 96, 256, 16, 256, 8, 4},  {"main", 0, 0, 256, 64, 4, 1},
    {"search", 0, 0, 256, 64, 4, 1},
};
constexpr int kMainSearchModels = 4;  // scripts/main.sh: --models 4
bool is_main(const BenchConfig& bc) {
  return std::string(bc.name) == "main";
}
bool is_search(const BenchConfig& bc) {
  return std::string(bc.name) == "search";
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
  std::unique_ptr<Search> search;
  std::vector<double> times;
  double gemm_seconds = 0, gemm_flops = 0;
};

std::string variant_name(MlpAct mlp_act, AttentionKind attn) {
  std::string name = name_of(mlp_act);
  name += "+";
  name += name_of(attn);
  return name;
}

// The polynomial a `poly` variant runs: degree 8 fitted to GeLU on [-4, 4],
// clamped there, one for every block (what fit-poly writes for a GeLU-shaped
// function).
std::vector<PolyFunction> bench_polynomial() {
  SplineConfig gelu;
  gelu.grid = SplineGrid(161, -8, 8, true);
  const std::vector<double> v = spline_init_values(gelu);  // the default init: GeLU
  return {fit_polynomial(std::vector<float>(v.begin(), v.end()), gelu.grid, -4, 4, 8)};
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
  if (mlp_act == MlpAct::poly) mc.mlp_poly = bench_polynomial();
  auto run = std::make_unique<BenchRun>();
  run->variant = variant_name(mlp_act, attn);
  run->model = std::make_unique<Transformer>(mc);
  run->model->init(0);
  run->model->to_device(device);
  OptimizerConfig oc;
  oc.kind = OptimizerKind::adamw;
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
  if (mlp_act == MlpAct::poly) c.model.mlp_poly = bench_polynomial();
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

// The main job's Stage I step (the spline is what a search learns; attn as
// given). Per model a D_arch pass (forward and the inputs' gradients: the
// weights are frozen there) and a training step, each on a batch of 256;
// on cuda the models step one after the other.
std::unique_ptr<BenchRun> make_search_run(AttentionKind attn, Device device, int64_t steps) {
  SearchConfig c = main_search_config(kMainSearchModels, steps);
  c.base.model.attn = attn;
  c.base.device = device;
  auto run = std::make_unique<BenchRun>();
  run->variant = variant_name(MlpAct::spline, attn);
  run->search = std::make_unique<Search>(c, "");
  const SearchConfig r = c.resolved();
  const Trainer one(r.base, "");  // a model as the search builds them: its shape and length
  const ModelConfig& model = one.config().model;
  const int64_t T = one.task().max_length();
  const double train_tokens = double(r.base.batch * T), arch_tokens = double(r.arch_batch * T);
  run->tokens = static_cast<int64_t>(r.models * (train_tokens + arch_tokens));
  run->flops_per_token = (train_tokens * model_flops_per_token(model, T) +
                          arch_tokens * model_flops_per_token_frozen(model, T)) /
                         (train_tokens + arch_tokens);
  Search* s = run->search.get();
  run->step = [s] { s->step(); };
  return run;
}

// One training step, timed; recorded unless it is a warm-up step.
void time_step(BenchRun& run, Device device, bool record) {
  kernel_profile() = {};
  const double start = now_seconds();
  run.step();
  synchronize(device);
  const double seconds = now_seconds() - start;
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

// A stepped run's numbers: median step, throughput, GEMM share, MFU.
BenchResult bench_result(const BenchConfig& bc, BenchRun& run, double peak_gflops) {
  double total = 0;
  for (double t : run.times) total += t;
  std::sort(run.times.begin(), run.times.end());
  BenchResult r;
  r.name = bc.name;
  r.variant = run.variant;
  r.threads = num_threads();
  r.step_seconds = run.times[run.times.size() / 2];
  r.tokens_per_s = double(run.tokens) / r.step_seconds;
  r.peak_rss_mb = peak_rss_mb();  // of the process: the largest variant so far
  r.gemm_share = run.gemm_seconds / total;
  r.gemm_gflops = run.gemm_seconds > 0 ? run.gemm_flops / run.gemm_seconds / 1e9 : 0;
  r.flops_per_token = run.flops_per_token;
  r.model_gflops = r.flops_per_token * r.tokens_per_s / 1e9;
  r.mfu = peak_gflops > 0 ? r.model_gflops / peak_gflops : 0;
  return r;
}

// Times every variant of one configuration. The variants step in turn (one
// step of each, then the next), so a change in the machine's load affects
// them alike and their ratios stay meaningful on a shared machine.
std::vector<BenchResult> bench_config(const BenchConfig& bc, const BenchOptions& o,
                                      double peak_gflops) {
  std::vector<std::unique_ptr<BenchRun>> runs;
  FixedBatch batch;
  if (!is_main(bc) && !is_search(bc)) batch = fixed_batch(bc, o.device);
  if (is_search(bc))  // one variant per attention: a search learns the MLP's spline
    for (AttentionKind attn : o.attns)
      runs.push_back(make_search_run(attn, o.device, o.warmup + o.steps + 1));
  else
    for (MlpAct act : o.mlp_acts)
      for (AttentionKind attn : o.attns)
        runs.push_back(is_main(bc) ? make_main_run(bc, act, attn, o.device, num_threads())
                                   : make_run(bc, act, attn, o.device, batch.tokens.view(),
                                              batch.targets.view()));
  for (int i = 0; i < o.warmup + o.steps; ++i)
    for (auto& run : runs) time_step(*run, o.device, i >= o.warmup);
  std::vector<BenchResult> results;
  for (auto& run : runs) results.push_back(bench_result(bc, *run, peak_gflops));
  return results;
}

void print_table_header(double peak, int64_t peak_n, Device device) {
  std::printf("sgemm peak %.1f GFLOP/s (n = %lld, %s, %d thread%s); MFU = model GFLOP/s / peak\n",
              peak, static_cast<long long>(peak_n), device == Device::cuda ? "cuBLAS" : "OpenBLAS",
              num_threads(), num_threads() == 1 ? "" : "s");
  std::printf("%-6s %-20s %7s %9s %11s %10s %9s %6s %9s %10s\n", "config", "variant", "threads",
              "ms/step", "tokens/s", "MFLOP/tok", "GFLOP/s", "MFU", "peak MB", "GEMM share");
}

void print_table_row(const BenchResult& r) {
  std::printf("%-6s %-20s %7d %9.2f %11.0f %10.3f %9.1f %5.1f%% %9.1f %9.1f%%\n", r.name.c_str(),
              r.variant.c_str(), r.threads, r.step_seconds * 1e3, r.tokens_per_s,
              r.flops_per_token / 1e6, r.model_gflops, 100 * r.mfu, r.peak_rss_mb,
              100 * r.gemm_share);
}

void print_json_line(const BenchResult& r, double peak) {
  std::printf(
      "{\"config\":\"%s\",\"variant\":\"%s\",\"threads\":%d,"
      "\"step_ms\":%.3f,\"tokens_per_s\":%.1f,\"steps_per_s\":%.3f,"
      "\"peak_rss_mb\":%.1f,\"gemm_share\":%.3f,\"gemm_gflops\":%.1f,"
      "\"model_flops_per_token\":%.0f,\"model_gflops\":%.2f,"
      "\"sgemm_peak_gflops\":%.1f,\"mfu\":%.4f}\n",
      r.name.c_str(), r.variant.c_str(), r.threads, r.step_seconds * 1e3, r.tokens_per_s,
      1.0 / r.step_seconds, r.peak_rss_mb, r.gemm_share, r.gemm_gflops, r.flops_per_token,
      r.model_gflops, peak, r.mfu);
}

// The chosen configurations' variants, as a table or JSON lines.
void bench_steps(const BenchOptions& o) {
  // The peak MFU is taken against, measured now with the same threads.
  const int64_t peak_n = o.device == Device::cuda ? 8192 : 1024;
  const double peak = sgemm_peak_gflops(o.device, peak_n, o.device == Device::cuda ? 10 : 9);
  if (!o.json) print_table_header(peak, peak_n, o.device);
  for (const BenchConfig& bc : kConfigs) {
    if (std::find(o.configs.begin(), o.configs.end(), bc.name) == o.configs.end()) continue;
    for (const BenchResult& r : bench_config(bc, o, peak)) {
      if (o.json)
        print_json_line(r, peak);
      else
        print_table_row(r);
    }
    std::fflush(stdout);
  }
}

}  // namespace

std::vector<std::string> bench_config_names() {
  std::vector<std::string> names;
  for (const BenchConfig& bc : kConfigs) names.push_back(bc.name);
  return names;
}

void run_bench(const BenchOptions& o) {
  set_num_threads(o.threads);
  if (o.gemm) {
    TAPIR_CHECK(o.device == Device::cpu,
                "bench --gemm compares cpu libraries and runs on the cpu only");
    bench_gemm();
    return;
  }
  if (o.search > 0) {
    bench_search(o.search, o.warmup, o.steps);
    return;
  }
  bench_steps(o);
}

}  // namespace tapir
